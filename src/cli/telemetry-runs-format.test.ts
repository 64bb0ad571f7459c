import { describe, expect, it } from 'vitest';
import { isTerminalSafe } from '../core/index.js';
import type { TraceRun } from '../telemetry/index.js';
import { traceJson } from '../telemetry/index.js';
import { runsTable, traceTimeline } from './telemetry-runs-format.js';

const RUN: TraceRun = {
  id: '0123456789abcdef0123456789abcdef',
  startedMs: Date.UTC(2025, 0, 2, 3, 4, 5),
  endedMs: Date.UTC(2025, 0, 2, 3, 4, 7),
  agent: 'orchestrator',
  model: 'qwen\u001b[31m',
  inputLength: 5,
  turns: 1,
  modelCalls: 1,
  toolCalls: 1,
  promptTokens: 10,
  completionTokens: 4,
  latencySeconds: 2,
  status: 'ok',
  droppedSpans: 0,
  spans: [
    {
      spanId: 'a',
      kind: 'agent',
      name: 'invoke_agent orchestrator',
      startedMs: 0,
      endedMs: 2000,
      status: 'ok',
      attributes: { agent: 'orchestrator' },
      children: [
        {
          spanId: 'b',
          parentSpanId: 'a',
          kind: 'model',
          name: 'chat qwen',
          startedMs: 0,
          endedMs: 1500,
          status: 'ok',
          attributes: {
            promptTokens: 10,
            completionTokens: 4,
            ttftSeconds: 0.25,
            finishReason: 'tool_calls',
          },
          children: [],
        },
        {
          spanId: 'c',
          parentSpanId: 'a',
          kind: 'tool',
          name: 'execute_tool file_read',
          startedMs: 1500,
          endedMs: 1600,
          status: 'error',
          attributes: {
            arguments: '{"path":"x"}',
            result: `bad\u001b]0;title\u0007${'y'.repeat(200)}`,
            errorCode: 'tool_error',
          },
          children: [],
        },
      ],
    },
  ],
};

describe('telemetry runs format', () => {
  it('lists runs with a short id, UTC start, tokens and status, terminal-safe', () => {
    const table = runsTable([RUN]);
    expect(table).toContain('0123456789ab');
    expect(table).toContain('2025-01-02 03:04:05');
    expect(table).toContain('14');
    expect(table).not.toContain('\u001b');
  });

  it('shows the timeline as an indented tree with durations, tokens, ttft and shortened tool texts', () => {
    const text = traceTimeline(RUN);
    expect(text).toContain('invoke_agent orchestrator  (2.00s)');
    expect(text).toContain('  chat qwen  (1.50s, 10+4 tokens, ttft 0.25s, tool_calls)');
    expect(text).toContain('  execute_tool file_read  (0.10s, ERROR, tool_error)');
    expect(text).toContain('    args:   {"path":"x"}');
    expect(isTerminalSafe(text)).toBe(true);
    const resultLine = text.split('\n').find((line) => line.includes('result:')) ?? '';
    expect(resultLine.length).toBeLessThan(100);
  });

  it('gives snake_case JSON with the span tree', () => {
    const json = traceJson(RUN) as { spans: { children: { span_id: string }[] }[] };
    expect(json).toMatchObject({ id: RUN.id, prompt_tokens: 10, dropped_spans: 0 });
    expect(json.spans[0]?.children.map((child) => child.span_id)).toEqual(['b', 'c']);
  });
});
