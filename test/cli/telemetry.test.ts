import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../../src/testing/index.js';
import { runCli } from '../support/run-cli.js';

// One real `jarvis ask` (orchestrator + calculator against the scripted OpenAI-compatible server) writes a
// trace; then the built CLI reads it back with `jarvis telemetry runs` and `jarvis telemetry show <id>`.

let home: string;
let server: ScriptedOpenAIServer;
let env: Record<string, string>;
/** The only run, as `jarvis telemetry runs --json` lists it. */
let summary: Record<string, unknown>;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-telemetry-'));
  env = { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') };
  server = await startScriptedOpenAIServer({
    script: [
      {
        toolCalls: [{ name: 'calculator', arguments: { expression: '340*0.15' } }],
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
      },
      {
        content: '15% of 340 is 51.',
        usage: { promptTokens: 30, completionTokens: 6, totalTokens: 36 },
      },
    ],
  });
  const asked = await runCli(
    [
      'ask',
      '--engine',
      'openai',
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--agent',
      'orchestrator',
      '--tools',
      'calculator',
      'What is 15% of 340?',
    ],
    { env },
  );
  expect(asked).toMatchObject({ code: 0, stdout: '15% of 340 is 51.\n' });
  server.assertAllRepliesConsumed();
  const runs = await runsJson();
  expect(runs).toHaveLength(1);
  summary = runs[0] ?? {};
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
});

/** The runs as `jarvis telemetry runs --json` prints them. */
async function runsJson(): Promise<Record<string, unknown>[]> {
  const run = await runCli(['telemetry', 'runs', '--json'], { env });
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as Record<string, unknown>[];
}

interface SpanJson {
  readonly kind: string;
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  readonly children: readonly SpanJson[];
}

function allSpans(spans: readonly SpanJson[]): SpanJson[] {
  return spans.flatMap((span) => [span, ...allSpans(span.children)]);
}

describe('jarvis telemetry after a real jarvis ask', () => {
  it('lists the run as JSON: agent, model, turns, calls, tokens, status', () => {
    expect(summary).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{16,32}$/),
      agent: 'orchestrator',
      model: 'm',
      turns: 2,
      model_calls: 2,
      tool_calls: 1,
      prompt_tokens: 40,
      completion_tokens: 8,
      status: 'ok',
    });
    const run = summary as { started_ms: number; ended_ms: number; latency_seconds: number };
    expect(run.ended_ms).toBeGreaterThanOrEqual(run.started_ms);
    expect(run.latency_seconds).toBeGreaterThanOrEqual(0);
  });

  it.concurrent('lists the run as a table with its short id', async () => {
    const run = await runCli(['telemetry', 'runs'], { env });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [header, row, ...rest] = run.stdout.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'ID',
      'STARTED (UTC)',
      'AGENT',
      'MODEL',
      'TURNS',
      'TOKENS',
      'LATENCY',
      'STATUS',
    ]);
    expect(rest).toEqual([]);
    const cells = row?.split(/\s{2,}/);
    expect(cells?.[0]).toBe(String(summary.id).slice(0, 12));
    expect(cells?.slice(2, 5)).toEqual(['orchestrator', 'm', '2']);
    expect(cells?.[5]).toBe('48');
    expect(cells?.at(-1)).toBe('ok');
  });

  it.concurrent('shows the run by an id prefix as a timeline with the tool call', async () => {
    const id = String(summary.id);
    const run = await runCli(['telemetry', 'show', id.slice(0, 8)], { env });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`Run ${id}  ok`);
    expect(lines[1]).toMatch(/agent orchestrator, model m$/);
    expect(lines[2]).toBe('2 turns, 2 model calls, 1 tool calls, 40+8 tokens');
    const timeline = lines
      .slice(3)
      .join('\n')
      .replace(/\d+\.\d+s/g, 'Ns');
    expect(timeline).toBe(
      [
        '',
        'invoke_agent orchestrator  (Ns)',
        '  turn 1  (Ns)',
        '    chat m  (Ns, 10+2 tokens, ttft Ns, tool_calls)',
        '    execute_tool calculator  (Ns)',
        '      args:   {"expression":"340*0.15"}',
        '      result: 51.0',
        '  turn 2  (Ns)',
        '    chat m  (Ns, 30+6 tokens, ttft Ns, stop)',
        '',
      ].join('\n'),
    );
  });

  it.concurrent('shows the run as JSON: the summary and the span tree down to the tool call', async () => {
    const run = await runCli(['telemetry', 'show', String(summary.id), '--json'], { env });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const trace = JSON.parse(run.stdout) as Record<string, unknown> & { spans: SpanJson[] };
    expect(trace).toMatchObject({ ...summary, dropped_spans: 0 });
    const spans = allSpans(trace.spans);
    expect(spans.map((span) => span.kind).sort()).toEqual([
      'agent',
      'model',
      'model',
      'tool',
      'turn',
      'turn',
    ]);
    const tool = spans.find((span) => span.kind === 'tool');
    expect(tool?.name).toBe('execute_tool calculator');
    expect(tool?.attributes).toMatchObject({ arguments: '{"expression":"340*0.15"}' });
    expect(String(tool?.attributes.result)).toMatch(/^51/);
  });

  it.concurrent('refuses an id that is not hex, and names the command for one that is not there', async () => {
    const [bad, missing] = await Promise.all([
      runCli(['telemetry', 'show', 'nope!'], { env }),
      runCli(['telemetry', 'show', 'ffffffff'], { env }),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'nope!' is not a run id");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("No run with id 'ffffffff'");
    expect(missing.stderr).toContain('jarvis telemetry runs');
  });
});
