import { describe, expect, it } from 'vitest';
import { EngineError, type Message, ZERO_USAGE } from '../core/index.js';
import { assistantReply, errorReply, ScriptedEngine } from '../testing/index.js';
import { summaryMessage } from './history-fit.js';
import type { SessionSummary, SessionTurn } from './session-types.js';
import { condenseTurn, foldTurns, SUMMARY_INSTRUCTION } from './summarize.js';
import { estimateCounter, estimateTokens } from './token-count.js';

function turn(seq: number, messages: Message[]): SessionTurn {
  return {
    seq,
    messages,
    agent: 'orchestrator',
    model: 'm',
    engine: 'scripted',
    usage: ZERO_USAGE,
    status: 'completed',
    startedMs: 0,
    endedMs: 0,
  };
}

const toolTurn = (seq: number, resultChars = 50): SessionTurn =>
  turn(seq, [
    { role: 'user', content: `What is the weather in Paris? (${seq})` },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          id: `c${seq}`,
          name: 'weather',
          arguments: JSON.stringify({ city: 'Paris', detail: 'x'.repeat(400) }),
        },
      ],
    },
    { role: 'tool', content: `sunny ${'r'.repeat(resultChars)}`, toolCallId: `c${seq}` },
    { role: 'assistant', content: 'It is sunny in Paris.' },
  ]);

const clock = { nowMs: () => 42_000, monotonicMs: () => 0 };

describe('condenseTurn', () => {
  it('writes who said what and each tool call as name(short arguments) with a short result', () => {
    const text = condenseTurn(toolTurn(3, 1000));
    expect(text).toContain('[turn 3]');
    expect(text).toContain('Person: What is the weather in Paris? (3)');
    expect(text).toContain('  Assistant called weather({"city":"Paris","detail":"xxx');
    expect(text).toContain('weather returned: sunny');
    expect(text).toContain('Assistant: It is sunny in Paris.');
    expect(text.length).toBeLessThan(700);
  });
});

describe('foldTurns', () => {
  it('asks the same model, without tools, to update the summary, and returns it through the last turn', async () => {
    const engine = new ScriptedEngine([
      assistantReply('  The person asked about Paris weather: sunny.  '),
    ]);
    const previous: SessionSummary = { text: 'Earlier: greetings.', throughSeq: 2, updatedMs: 1 };
    const outcome = await foldTurns({
      engine,
      model: 'qwen',
      previous,
      turns: [toolTurn(3), toolTurn(4)],
      maxSummaryTokens: 200,
      counter: estimateCounter,
      contextTokens: 4096,
      clock,
    });
    expect(outcome).toEqual({
      ok: true,
      calls: 1,
      summary: {
        text: 'The person asked about Paris weather: sunny.',
        throughSeq: 4,
        updatedMs: 42_000,
      },
    });
    const [call] = engine.calls;
    expect(call?.options.model).toBe('qwen');
    expect(call?.options.tools).toBeUndefined();
    expect(call?.options.maxTokens).toBe(200);
    expect(call?.messages[0]).toEqual({ role: 'system', content: SUMMARY_INSTRUCTION });
    expect(call?.messages[1]?.content).toContain('Earlier: greetings.');
    expect(call?.messages[1]?.content).toContain('[turn 4]');
    engine.assertAllStepsConsumed();
  });

  it('folds large turns in slices, each request within the context, feeding each summary to the next', async () => {
    const engine = new ScriptedEngine();
    for (let i = 1; i <= 20; i += 1) engine.enqueue(assistantReply(`summary ${i}`));
    const turns = Array.from({ length: 12 }, (_, index) =>
      turn(index + 1, [
        { role: 'user', content: `${index + 1} ${'long question '.repeat(200)}` },
        { role: 'assistant', content: 'y'.repeat(3000) },
      ]),
    );
    const outcome = await foldTurns({
      engine,
      model: 'm',
      previous: undefined,
      turns,
      maxSummaryTokens: 256,
      counter: estimateCounter,
      contextTokens: 2048,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.summary?.throughSeq).toBe(12);
    expect(engine.calls.length).toBeGreaterThan(1);
    expect(outcome.calls).toBe(engine.calls.length);
    for (const [index, call] of engine.calls.entries()) {
      expect(estimateTokens(call.messages) + 256).toBeLessThanOrEqual(2048);
      if (index > 0) expect(call.messages[1]?.content).toContain(`summary ${index}`);
    }
    // Every turn went into exactly one slice.
    const seen = engine.calls.flatMap((call) =>
      [...(call.messages[1]?.content ?? '').matchAll(/\[turn (\d+)\]/g)].map((m) => Number(m[1])),
    );
    expect(seen).toEqual(turns.map((t) => t.seq));
    expect(engine.remainingReplies).toBe(20 - engine.calls.length);
  });

  it('cuts a turn too large for one request and a summary longer than its bound', async () => {
    const engine = new ScriptedEngine([assistantReply('z'.repeat(5000))]);
    const outcome = await foldTurns({
      engine,
      model: 'm',
      previous: undefined,
      turns: [
        turn(1, [
          { role: 'user', content: 'é'.repeat(30_000) },
          { role: 'assistant', content: 'ok' },
        ]),
      ],
      maxSummaryTokens: 100,
      counter: estimateCounter,
      contextTokens: 1024,
    });
    expect(outcome.ok).toBe(true);
    const call = engine.calls[0];
    expect(estimateTokens(call?.messages ?? []) + 100).toBeLessThanOrEqual(1024);
    const summary = outcome.summary as SessionSummary;
    expect(estimateTokens([summaryMessage(summary)])).toBeLessThanOrEqual(100);
    expect(summary.text.endsWith('…')).toBe(true);
  });

  it('returns an engine failure as a value, keeping the previous summary', async () => {
    const engine = new ScriptedEngine([errorReply('engine_unavailable')]);
    const previous: SessionSummary = { text: 'old', throughSeq: 2, updatedMs: 1 };
    const outcome = await foldTurns({
      engine,
      model: 'm',
      previous,
      turns: [toolTurn(3)],
      maxSummaryTokens: 100,
      counter: estimateCounter,
      contextTokens: 4096,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.summary).toBe(previous);
    expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(EngineError);
  });

  it('keeps the slices folded before a failure, and refuses an empty answer', async () => {
    const engine = new ScriptedEngine([assistantReply('first part'), assistantReply('   ')]);
    const turns = [1, 2].map((seq) => turn(seq, [{ role: 'user', content: 'q'.repeat(2500) }]));
    const outcome = await foldTurns({
      engine,
      model: 'm',
      previous: undefined,
      turns,
      maxSummaryTokens: 128,
      counter: estimateCounter,
      contextTokens: 1200,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.summary).toMatchObject({ text: 'first part', throughSeq: 1 });
    expect(outcome.ok ? '' : outcome.error.message).toContain('empty summary');
  });

  it('says when the context leaves no room to summarize, without calling the model', async () => {
    const engine = new ScriptedEngine();
    const outcome = await foldTurns({
      engine,
      model: 'm',
      previous: undefined,
      turns: [toolTurn(1)],
      maxSummaryTokens: 400,
      counter: estimateCounter,
      contextTokens: 900,
    });
    expect(outcome.ok ? '' : outcome.error.message).toContain('lower maxSummaryTokens');
    expect(engine.calls).toEqual([]);
  });

  it('throws when the caller cancelled', async () => {
    const engine = new ScriptedEngine([assistantReply('never')]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      foldTurns({
        engine,
        model: 'm',
        previous: undefined,
        turns: [toolTurn(1)],
        maxSummaryTokens: 100,
        counter: estimateCounter,
        contextTokens: 4096,
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'engine_cancelled' });
  });
});
