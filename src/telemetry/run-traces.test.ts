import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistries, EventBus } from '../core/index.js';
import { configFromToml } from '../system/config/index.js';
import { buildSystem, type JarvisSystem } from '../system/index.js';
import { assistantReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { RunTracer } from './run-tracer.js';
import { openTelemetryDatabase } from './telemetry-schema.js';
import { TelemetryStore } from './telemetry-store.js';
import type { FinishedTrace, TraceSpanNode } from './trace-types.js';

let home: string;
const systems: JarvisSystem[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-traces-'));
});

afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.close()));
  await rm(home, { recursive: true, force: true });
});

function systemWith(engine: ScriptedEngine, toml = ''): JarvisSystem {
  const { config } = configFromToml(toml, join(home, 'config.toml'), {
    home,
    cwd: home,
    homeDir: home,
  });
  const system = buildSystem({
    config,
    engine,
    env: {},
    registries: createRegistries(),
  });
  systems.push(system);
  return system;
}

/** The tree as `kind name` lines, indented by depth. */
function outline(nodes: readonly TraceSpanNode[], depth = 0): string[] {
  return nodes.flatMap((node) => [
    `${'  '.repeat(depth)}${node.kind} ${node.name} ${node.status}`,
    ...outline(node.children, depth + 1),
  ]);
}

const CALC = toolCallReply({ id: 'call_1', name: 'calculator', arguments: { expression: '2+2' } });

describe('run traces in the telemetry store', () => {
  it('stores a run with a tool call as agent > turns > model and tool spans, with tokens and results', async () => {
    const engine = new ScriptedEngine([
      { ...CALC, usage: { promptTokens: 10, completionTokens: 3 } },
      assistantReply('It is 4.', { usage: { promptTokens: 20, completionTokens: 4 } }),
    ]);
    const system = systemWith(engine);
    await system.run('What is 2+2?', { tools: ['calculator'] });

    const runs = await system.telemetry().listRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      agent: 'orchestrator',
      model: 'scripted',
      inputLength: 'What is 2+2?'.length,
      turns: 2,
      modelCalls: 2,
      toolCalls: 1,
      promptTokens: 30,
      completionTokens: 7,
      status: 'ok',
    });
    expect(runs[0]?.id).toMatch(/^[0-9a-f]{32}$/);
    const run = await system.telemetry().getRun(runs[0]?.id.slice(0, 8) ?? '');
    expect(outline(run?.spans ?? [])).toEqual([
      'agent invoke_agent orchestrator ok',
      '  turn turn 1 ok',
      '    model chat scripted ok',
      '    tool execute_tool calculator ok',
      '  turn turn 2 ok',
      '    model chat scripted ok',
    ]);
    const turn1 = run?.spans[0]?.children[0];
    expect(turn1?.children[0]?.attributes).toMatchObject({
      model: 'scripted',
      engine: 'scripted',
      promptTokens: 10,
      completionTokens: 3,
      finishReason: 'tool_calls',
    });
    expect(turn1?.children[1]?.attributes).toMatchObject({
      toolName: 'calculator',
      callId: 'call_1',
      arguments: '{"expression":"2+2"}',
      result: '4',
      success: true,
    });
    for (const span of turn1?.children ?? []) {
      expect(span.startedMs).toBeGreaterThanOrEqual(turn1?.startedMs ?? Number.NaN);
      expect(span.endedMs).toBeGreaterThanOrEqual(span.startedMs);
    }
  });

  it('keeps concurrent runs on one system apart', async () => {
    const engine = new ScriptedEngine([assistantReply('a'), assistantReply('b')]);
    const system = systemWith(engine);
    await Promise.all([
      system.run('first', { agent: 'simple' }),
      system.run('second question', { agent: 'simple' }),
    ]);
    const runs = await system.telemetry().listRuns();
    expect(runs.map((run) => run.inputLength).sort((a, b) => a - b)).toEqual([5, 15]);
    for (const summary of runs) {
      const run = await system.telemetry().getRun(summary.id);
      expect(outline(run?.spans ?? [])).toEqual([
        'agent invoke_agent simple ok',
        '  turn turn 1 ok',
        '    model chat scripted ok',
      ]);
    }
  });

  it.each([
    ['simple', 'run'],
    ['simple', 'stream'],
    ['orchestrator', 'run'],
    ['orchestrator', 'stream'],
    ['native_react', 'run'],
    ['native_openhands', 'run'],
  ] as const)("keeps a %s agent's %s under the caller's runId", async (agent, how) => {
    const system = systemWith(new ScriptedEngine([assistantReply('Done.')]));
    const prepared = await system.prepare('Hello', { agent });
    const options = { runId: `page-chat:${agent}-${how}` };
    if (how === 'run') await prepared.agent.run('Hello', prepared.context, options);
    else for await (const _ of prepared.agent.stream?.('Hello', prepared.context, options) ?? []);
    expect((await system.telemetry().getRun(options.runId))?.agent).toBe(agent);
  });

  it('makes its own id when the caller gives none or one it does not keep', async () => {
    const system = systemWith(new ScriptedEngine([assistantReply('A.'), assistantReply('B.')]));
    const prepared = await system.prepare('Hello', { agent: 'simple' });
    await prepared.agent.run('Hello', prepared.context, { runId: 'no spaces or slashes/ allowed' });
    await prepared.agent.run('Hello', prepared.context);
    const ids = (await system.telemetry().listRuns()).map((run) => run.id);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('records a failed run with its error', async () => {
    const engine = new ScriptedEngine([
      { type: 'error', error: new Error('boom with Bearer abcdefghijklmnop1234') },
    ]);
    const system = systemWith(engine);
    await system.run('x', { agent: 'simple' }).catch(() => undefined);
    const [summary] = await system.telemetry().listRuns();
    expect(summary?.status).toBe('error');
    const run = await system.telemetry().getRun(summary?.id ?? '');
    const model = run?.spans[0]?.children[0]?.children[0];
    expect(model?.status).toBe('error');
    expect(String(model?.attributes.error)).toContain('Bearer [REDACTED]');
    expect(String(model?.attributes.error)).not.toContain('abcdefghijklmnop1234');
  });
});

/** Publishes a whole run with one tool call on `bus`. */
function publishRun(bus: EventBus, args: unknown, result: string): void {
  bus.publish('agent_turn_start', { agent: 'orchestrator', input: 'go' });
  bus.publish('inference_start', { model: 'm', engine: 'e', turn: 1 });
  const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
  bus.publish('inference_end', {
    model: 'm',
    engine: 'e',
    turn: 1,
    success: true,
    latencySeconds: 0.1,
    usage,
    ttftSeconds: 0.05,
  });
  bus.publish('tool_call_start', { toolName: 't', callId: 'c1', arguments: args as never });
  bus.publish('tool_call_end', {
    toolName: 't',
    callId: 'c1',
    success: true,
    latencySeconds: 0.01,
    result: { success: true, content: result, toolName: 't' } as never,
  });
  bus.publish('agent_turn_end', { agent: 'orchestrator', turns: 1 });
}

describe('RunTracer bounds', () => {
  it('redacts secrets and cuts long arguments and results to the configured size', () => {
    const bus = new EventBus();
    const traces: FinishedTrace[] = [];
    const tracer = new RunTracer({
      bus,
      sinks: [{ runEnded: (trace) => traces.push(trace) }],
      redact: (text) => text.replaceAll('hunter2', '[REDACTED]'),
      maxTextChars: 40,
    });
    publishRun(bus, { password: 'hunter2', key: 'sk-abcdefghijklmnopqrstuvwx' }, 'x'.repeat(100));
    tracer.close();
    const tool = traces[0]?.spans.find((span) => span.kind === 'tool');
    expect(tool?.attributes.arguments).not.toContain('hunter2');
    expect(tool?.attributes.arguments).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(tool?.attributes.result).toBe(`${'x'.repeat(40)}… [60 more chars]`);
  });

  it('keeps at most maxSpansPerRun spans and counts the rest as dropped', () => {
    const bus = new EventBus();
    const traces: FinishedTrace[] = [];
    new RunTracer({ bus, sinks: [{ runEnded: (t) => traces.push(t) }], maxSpansPerRun: 2 });
    publishRun(bus, {}, 'ok');
    expect(traces[0]?.spans.map((span) => span.kind)).toEqual(['agent', 'turn']);
    expect(traces[0]?.droppedSpans).toBe(2);
  });
});

describe('telemetry schema 2', () => {
  it('upgrades a version 1 file: its records stay and the trace tables are added', () => {
    const dbPath = join(home, 'old.db');
    const store = new TelemetryStore({ dbPath });
    store.record({
      timestampMs: 1,
      model: 'm',
      engine: 'e',
      promptTokens: 1,
      completionTokens: 1,
      totalTokens: 2,
      latencySeconds: 1,
      ttftSeconds: 0,
      throughputTokensPerSecond: 1,
      costUsd: 0,
      success: true,
    });
    store.close();
    const db = openTelemetryDatabase(dbPath);
    db.exec('DROP TABLE trace_spans; DROP TABLE trace_runs;');
    db.pragma('user_version = 1');
    db.close();

    const reopened = new TelemetryStore({ dbPath });
    expect(reopened.recent()).toHaveLength(1);
    expect(reopened.listRuns()).toEqual([]);
    const bus = new EventBus();
    new RunTracer({ bus, sinks: [reopened.traceSink()] });
    publishRun(bus, {}, 'ok');
    expect(reopened.listRuns()).toHaveLength(1);
    reopened.close();
    const check = openTelemetryDatabase(dbPath);
    expect(check.pragma('user_version', { simple: true })).toBe(2);
    check.close();
  });
});
