import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentResult, AgentStreamEvent, ToolResult } from '../core/index.js';
import { isTerminalSafe, toolFailure, toolSuccess } from '../core/index.js';
import { formatLatency, ToolActivity } from './ask-activity.js';
import { AnswerWriter, StreamedAnswer } from './ask-render.js';
import type { CliStream } from './cli-io.js';

function fakeStream(isTTY = false, columns = 80): CliStream & { text: string } {
  const stream = {
    text: '',
    isTTY,
    columns,
    write(text: string) {
      stream.text += text;
    },
  };
  return stream;
}

function result(content: string): AgentStreamEvent {
  const agentResult: AgentResult = { content, toolResults: [], turns: 1, metadata: {} };
  return { type: 'result', result: agentResult };
}

function delta(turn: number, text: string): AgentStreamEvent {
  return { type: 'text_delta', turn, text };
}

function render(events: readonly AgentStreamEvent[], isTTY = false): string {
  const stdout = fakeStream(isTTY);
  const answer = new StreamedAnswer(new AnswerWriter(stdout));
  for (const event of events) answer.handle(event);
  return stdout.text;
}

describe('StreamedAnswer', () => {
  it('writes deltas as they come and ends the output with one newline', () => {
    expect(render([delta(1, 'Paris'), delta(1, ' is it.'), result('Paris is it.')])).toBe(
      'Paris is it.\n',
    );
    expect(render([delta(1, 'Done.\n'), result('Done.')])).toBe('Done.\n');
  });

  it('prints the result when nothing was streamed (agents that do not stream)', () => {
    expect(render([{ type: 'turn_start', turn: 1 }, result('The capital is Paris.')])).toBe(
      'The capital is Paris.\n',
    );
  });

  it('puts each turn on its own line and does not repeat the last turn', () => {
    const events = [delta(1, 'Let me compute.'), delta(2, '51'), result('51')];
    expect(render(events)).toBe('Let me compute.\n51\n');
  });

  it('prints a result that differs from the streamed text (the turn-limit message) on its own line', () => {
    const events = [delta(1, 'Calling a tool'), result('Maximum turns reached.')];
    expect(render(events)).toBe('Calling a tool\nMaximum turns reached.\n');
  });

  it("leaves a stopped run's notice to stderr, but prints what the model said", () => {
    const stopped = (content: string): AgentStreamEvent => ({
      type: 'result',
      result: { content, toolResults: [], turns: 2, metadata: { max_turns_exceeded: true } },
    });
    expect(
      render([
        delta(1, 'Calling a tool'),
        stopped('Maximum turns reached without a final answer.'),
      ]),
    ).toBe('Calling a tool\n');
    expect(render([stopped('Maximum turns reached without a final answer.')])).toBe('');
    expect(render([stopped('Let me look that up.')])).toBe('Let me look that up.\n');
  });

  it('writes nothing for an empty answer', () => {
    expect(render([result('')])).toBe('');
  });
});

describe('AnswerWriter', () => {
  const HOSTILE = 'See \u001b]8;;http://evil.example\u0007this\u001b]8;;\u0007 \u001b[2K\u202eok';

  it('a pipe gets exactly the model text; a terminal gets it with escapes shown visibly', () => {
    const piped = fakeStream(false);
    new AnswerWriter(piped).write(HOSTILE);
    expect(piped.text).toBe(HOSTILE);
    const terminal = fakeStream(true);
    new AnswerWriter(terminal).write(HOSTILE);
    expect(terminal.text).toBe(
      'See ^[]8;;http://evil.example\\u{7}this^[]8;;\\u{7} ^[[2K\\u{202e}ok',
    );
  });

  it('neutralises an escape sequence split across streamed chunks, and a \\r\\n split in two', () => {
    const terminal = fakeStream(true);
    const writer = new AnswerWriter(terminal);
    for (const chunk of ['a\u001b', '[2', 'Kb\r', '\nc\r']) writer.write(chunk);
    writer.endLine();
    expect(terminal.text).toBe('a^[[2Kb\nc\\u{d}\n');
  });

  it('ends an open line before stderr draws only when stdout is a terminal', () => {
    const piped = fakeStream(false);
    const pipedWriter = new AnswerWriter(piped);
    pipedWriter.write('abc');
    pipedWriter.endLineOnTerminal();
    expect(piped.text).toBe('abc');
    const terminal = fakeStream(true);
    const terminalWriter = new AnswerWriter(terminal);
    terminalWriter.write('abc');
    terminalWriter.endLineOnTerminal();
    terminalWriter.endLine();
    expect(terminal.text).toBe('abc\n');
  });
});

function success(latencySeconds: number): ToolResult {
  return toolSuccess('calculator', '51', { latencySeconds });
}

describe('ToolActivity with hostile tool calls', () => {
  it('shows names, arguments and errors on one line with escapes visible and secrets redacted', () => {
    const stderr = fakeStream(false);
    const activity = new ToolActivity({ stderr });
    const name = 'calc\u001b[2K\u001b]0;title\u0007';
    activity.start({ toolName: name, callId: 'c1', arguments: 'raw \u009b2J text' });
    activity.end({
      toolName: name,
      callId: 'c1',
      result: toolFailure(
        name,
        'unknown_tool',
        'Unknown \u001b[31mtool\u001b[0m, key sk-abcdefghijklmnopqrstuvwxyz',
      ),
    });
    expect(isTerminalSafe(stderr.text)).toBe(true);
    expect(stderr.text).toBe(
      [
        '→ calc^[[2K^[]0;title\\u{7} "raw \\u{9b}2J text"',
        '✗ calc^[[2K^[]0;title\\u{7}: Unknown ^[[31mtool^[[0m, key [REDACTED]',
        '',
      ].join('\n'),
    );
  });

  it('on a terminal, the spinner line shows the name safely too', () => {
    const stderr = fakeStream(true);
    const activity = new ToolActivity({ stderr, clock: { nowMs: () => 0, monotonicMs: () => 0 } });
    activity.start({ toolName: 'x\u001b[2J', callId: 'c1', arguments: {} });
    activity.close();
    expect(stderr.text).toBe('\r\x1b[2K⠋ x^[[2J {} 0.0s\r\x1b[2K');
  });
});

describe('ToolActivity without a terminal', () => {
  it('prints one line when a call starts and one when it ends', () => {
    const stderr = fakeStream(false);
    const activity = new ToolActivity({ stderr });
    activity.start({ toolName: 'calculator', callId: 'c1', arguments: { expression: '340*0.15' } });
    activity.end({ toolName: 'calculator', callId: 'c1', result: success(0.002) });
    activity.start({ toolName: 'file_read', callId: 'c2', arguments: { path: '/x' } });
    activity.end({
      toolName: 'file_read',
      callId: 'c2',
      result: toolFailure('file_read', 'execution_failed', 'No such file: /x\nmore detail'),
    });
    activity.close();
    expect(stderr.text).toBe(
      [
        '→ calculator {"expression":"340*0.15"}',
        '✓ calculator 2 ms',
        '→ file_read {"path":"/x"}',
        '✗ file_read: No such file: /x',
        '',
      ].join('\n'),
    );
  });

  it('uses the explanation it is given for a failure', () => {
    const stderr = fakeStream(false);
    const activity = new ToolActivity({ stderr, explainFailure: () => 'refused: pass --yes' });
    activity.end({
      toolName: 'rm',
      callId: 'c1',
      result: toolFailure('rm', 'confirmation_denied', 'denied'),
    });
    expect(stderr.text).toBe('✗ rm: refused: pass --yes\n');
  });
});

describe('ToolActivity on a terminal', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('draws a spinner with the elapsed time and replaces it with the outcome line', () => {
    vi.useFakeTimers();
    let nowMs = 1_000;
    const clock = { nowMs: () => nowMs, monotonicMs: () => nowMs };
    const stderr = fakeStream(true);
    const activity = new ToolActivity({ stderr, clock, frameMs: 100 });
    activity.start({ toolName: 'calculator', callId: 'c1', arguments: { expression: '1+1' } });
    expect(stderr.text).toBe('\r\x1b[2K⠋ calculator {"expression":"1+1"} 0.0s');
    nowMs += 1_200;
    vi.advanceTimersByTime(100);
    expect(stderr.text.endsWith('\r\x1b[2K⠙ calculator {"expression":"1+1"} 1.2s')).toBe(true);
    activity.end({ toolName: 'calculator', callId: 'c1', result: success(1.2) });
    expect(stderr.text.endsWith('\r\x1b[2K✓ calculator {"expression":"1+1"} 1.2 s\n')).toBe(true);
    const written = stderr.text;
    vi.advanceTimersByTime(1_000);
    expect(stderr.text).toBe(written);
  });

  it('lists the running tools, keeps the spinner for the ones still running, and erases it on close', () => {
    vi.useFakeTimers();
    const clock = { nowMs: () => 0, monotonicMs: () => 0 };
    const stderr = fakeStream(true);
    const activity = new ToolActivity({ stderr, clock });
    activity.start({ toolName: 'a', callId: '1', arguments: {} });
    activity.start({ toolName: 'b', callId: '2', arguments: {} });
    expect(stderr.text.endsWith('⠋ a, b 0.0s')).toBe(true);
    activity.end({ toolName: 'a', callId: '1', result: toolSuccess('a', 'ok') });
    expect(stderr.text.endsWith('✓ a {} <1 ms\n\r\x1b[2K⠋ b {} 0.0s')).toBe(true);
    activity.close();
    expect(stderr.text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('cuts the spinner line to the terminal width', () => {
    vi.useFakeTimers();
    const clock = { nowMs: () => 0, monotonicMs: () => 0 };
    const stderr = fakeStream(true, 30);
    const activity = new ToolActivity({ stderr, clock });
    activity.start({
      toolName: 'calculator',
      callId: '1',
      arguments: { expression: 'x'.repeat(80) },
    });
    const line = stderr.text.replace('\r\x1b[2K', '');
    expect(line.length).toBeLessThanOrEqual(29);
    expect(line.endsWith('… 0.0s')).toBe(true);
    activity.close();
  });

  it('erases the spinner while a prompt runs and draws it again afterwards', async () => {
    vi.useFakeTimers();
    const clock = { nowMs: () => 0, monotonicMs: () => 0 };
    const stderr = fakeStream(true);
    const activity = new ToolActivity({ stderr, clock });
    activity.start({ toolName: 'rm', callId: '1', arguments: {} });
    const answer = await activity.suspend(async () => {
      stderr.write('PROMPT');
      vi.advanceTimersByTime(500);
      return true;
    });
    expect(answer).toBe(true);
    expect(stderr.text).toBe('\r\x1b[2K⠋ rm {} 0.0s\r\x1b[2KPROMPT\r\x1b[2K⠴ rm {} 0.0s');
    activity.close();
  });
});

describe('formatLatency', () => {
  it('reads well from microseconds to seconds', () => {
    expect(formatLatency(Number.MIN_VALUE)).toBe('<1 ms');
    expect(formatLatency(0.0024)).toBe('2 ms');
    expect(formatLatency(0.9994)).toBe('999 ms');
    expect(formatLatency(12.345)).toBe('12.3 s');
  });
});
