import { describe, expect, it } from 'vitest';
import { type ChatEvent, chatEventOf } from './chat-protocol.js';
import { applyChatEvent, endTurn, startTurn } from './chat-state.js';

function fold(events: readonly ChatEvent[]) {
  return events.reduce(applyChatEvent, startTurn('What is 6*7?'));
}

describe('chatEventOf', () => {
  it('reads each event of /api/chat into camelCase, with missing fields as empty values', () => {
    expect(chatEventOf('run_start', '{"session_id":"ses_1"}')).toEqual({
      type: 'run_start',
      sessionId: 'ses_1',
    });
    expect(
      chatEventOf(
        'tool_call_end',
        '{"id":"c1","name":"calculator","result":"bad","ok":false,"latency_ms":3,"error_code":"tool_failed"}',
      ),
    ).toEqual({
      type: 'tool_call_end',
      id: 'c1',
      name: 'calculator',
      result: 'bad',
      ok: false,
      latencyMs: 3,
      errorCode: 'tool_failed',
    });
    expect(
      chatEventOf('result', '{"content":"42","usage":{"prompt_tokens":5},"run_id":"r1","turns":2}'),
    ).toEqual({
      type: 'result',
      content: '42',
      usage: { promptTokens: 5, completionTokens: 0, totalTokens: 0 },
      turns: 2,
      sessionId: '',
      runId: 'r1',
    });
    expect(
      chatEventOf('error', '{"code":"engine_error","message":"m","session_id":"ses_1"}'),
    ).toEqual({ type: 'error', code: 'engine_error', message: 'm', sessionId: 'ses_1' });
    expect(chatEventOf('error', '{"code":"engine_error","message":"m","session_id":null}')).toEqual(
      { type: 'error', code: 'engine_error', message: 'm' },
    );
    expect(chatEventOf('text_delta', '{"text":7}')).toEqual({
      type: 'text_delta',
      turn: 0,
      text: '',
    });
  });

  it('ignores unknown events and data that is not a JSON object', () => {
    expect(chatEventOf('ping', '{}')).toBeUndefined();
    expect(chatEventOf('result', 'not json')).toBeUndefined();
    expect(chatEventOf('result', '[1]')).toBeUndefined();
  });
});

describe('applyChatEvent', () => {
  it('builds the answer from deltas (a blank line between model turns) and pairs tool cards with their ends', () => {
    const turn = fold([
      { type: 'run_start', sessionId: 's' },
      { type: 'text_delta', turn: 1, text: 'Let me ' },
      { type: 'text_delta', turn: 1, text: 'compute.' },
      { type: 'tool_call_start', id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' },
      { type: 'tool_call_end', id: 'c1', name: 'calculator', result: '42', ok: true, latencyMs: 4 },
      { type: 'text_delta', turn: 2, text: 'It is 42.' },
      {
        type: 'result',
        content: 'It is 42.',
        usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
        turns: 2,
        sessionId: 's',
        runId: 'r1',
      },
    ]);
    expect(turn.answer).toBe('Let me compute.\n\nIt is 42.');
    expect(turn.tools).toEqual([
      {
        id: 'c1',
        name: 'calculator',
        arguments: '{"expression":"6*7"}',
        status: 'ok',
        result: '42',
        latencyMs: 4,
      },
    ]);
    expect(turn).toMatchObject({ status: 'done', runId: 'r1', usage: { totalTokens: 13 } });
  });

  it('takes the result text when nothing streamed, and shows failures as failures', () => {
    const quiet = fold([
      {
        type: 'result',
        content: 'Paris',
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        turns: 1,
        sessionId: 's',
      },
    ]);
    expect(quiet.answer).toBe('Paris');
    expect(quiet.runId).toBeUndefined();
    const failed = fold([
      { type: 'tool_call_start', id: 'c1', name: 'calculator', arguments: '1/' },
      {
        type: 'tool_call_end',
        id: 'c1',
        name: 'calculator',
        result: 'division by nothing',
        ok: false,
        latencyMs: 1,
        errorCode: 'tool_failed',
      },
      { type: 'error', message: 'The model engine failed', code: 'engine_error' },
    ]);
    expect(failed.tools[0]).toMatchObject({ status: 'failed', errorCode: 'tool_failed' });
    expect(failed).toMatchObject({ status: 'failed', error: 'The model engine failed' });
  });

  it('ends a broken-off exchange: running tools become unfinished failures; a stop is not a failure', () => {
    const running = fold([
      { type: 'tool_call_start', id: 'c1', name: 'web_search', arguments: '{}' },
    ]);
    expect(endTurn(running, false)).toMatchObject({
      status: 'failed',
      error: 'The answer stopped before it ended',
      tools: [{ status: 'failed', errorCode: 'unfinished' }],
    });
    expect(endTurn(running, true).status).toBe('stopped');
    const done = applyChatEvent(running, { type: 'error', message: 'x', code: 'y' });
    expect(endTurn(done, false)).toBe(done);
  });
});
