// The contract every TelemetryBackend keeps, run against each backend by its own test file (not run alone).
import { expect, it } from 'vitest';
import type { GenerateResult, InferenceEngine } from '../core/engine.js';
import {
  type Clock,
  createMessage,
  createRedactor,
  EventBus,
  type EventPayloadMap,
  type Redactor,
  Role,
} from '../core/index.js';
import { InstrumentedEngine } from './instrumented-engine.js';
import { RunTracer } from './run-tracer.js';
import type { TelemetryBackend } from './telemetry-backend.js';
import type { TelemetryRecord } from './telemetry-record.js';
import { runJson, traceJson } from './trace-json.js';
import type { FinishedTrace, TraceSpan, TraceSpanNode } from './trace-types.js';

/** What a store of the contract is opened with. */
export interface ContractStoreOptions {
  readonly redact?: Redactor;
  readonly maxRuns?: number;
}

/** A fresh, empty place per test: `open` opens a store on it (again after a close, to see what was kept). */
export interface ContractPlace {
  open(options?: ContractStoreOptions): Promise<TelemetryBackend>;
}

/** What `setup` gets from the running test: a backend that cannot run here skips it with the reason. */
export interface ContractTest {
  skip(note?: string): never;
}

/** A successful call of `small` on `ollama` at 1000 ms, with `overrides`. */
export function telemetryRecord(overrides: Partial<TelemetryRecord> = {}): TelemetryRecord {
  return {
    timestampMs: 1_000,
    model: 'small',
    engine: 'ollama',
    promptTokens: 10,
    completionTokens: 20,
    totalTokens: 30,
    latencySeconds: 1,
    ttftSeconds: 0.5,
    throughputTokensPerSecond: 40,
    costUsd: 0.25,
    success: true,
    ...overrides,
  };
}

/** A finished run `id` started at `startedMs`: an agent span, a turn, a model call and a tool call. */
export function finishedTrace(id: string, startedMs: number, error?: string): FinishedTrace {
  const span = (fields: Omit<TraceSpan, 'status' | 'endedMs'>, endedMs: number): TraceSpan => ({
    ...fields,
    endedMs,
    status: error === undefined ? 'ok' : 'error',
  });
  const spans: TraceSpan[] = [
    span(
      {
        spanId: 'a',
        kind: 'agent',
        name: 'invoke_agent simple',
        startedMs,
        attributes: { agent: 'simple', inputLength: 5 },
      },
      startedMs + 40,
    ),
    span(
      {
        spanId: 't',
        parentSpanId: 'a',
        kind: 'turn',
        name: 'turn 1',
        startedMs: startedMs + 1,
        attributes: { turn: 1 },
      },
      startedMs + 39,
    ),
    span(
      {
        spanId: 'm',
        parentSpanId: 't',
        kind: 'model',
        name: 'chat small',
        startedMs: startedMs + 2,
        attributes: {
          model: 'small',
          promptTokens: 7,
          ttftSeconds: 0.125,
          finishReason: 'tool_calls',
        },
      },
      startedMs + 20,
    ),
    span(
      {
        spanId: 'x',
        parentSpanId: 't',
        kind: 'tool',
        name: 'execute_tool calculator',
        startedMs: startedMs + 21,
        attributes: {
          toolName: 'calculator',
          arguments: '{"expression":"2+2"}',
          result: '4',
          success: true,
        },
      },
      startedMs + 30,
    ),
  ];
  return {
    summary: {
      id,
      startedMs,
      endedMs: startedMs + 40,
      agent: 'simple',
      model: 'small',
      inputLength: 5,
      turns: 1,
      modelCalls: 1,
      toolCalls: 1,
      promptTokens: 7,
      completionTokens: 3,
      latencySeconds: 0.04,
      status: error === undefined ? 'ok' : 'error',
      ...(error === undefined ? {} : { error }),
    },
    spans,
    droppedSpans: 0,
  };
}

/** The tree as `kind name` lines, indented by depth. */
export function outline(nodes: readonly TraceSpanNode[], depth = 0): string[] {
  return nodes.flatMap((node) => [
    `${'  '.repeat(depth)}${node.kind} ${node.name}`,
    ...outline(node.children, depth + 1),
  ]);
}

/** The error `promise` rejects with (failing when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Records the known data of the summary tests: three model/engine pairs with exact aggregates. */
function fillKnownData(store: TelemetryBackend): void {
  // small@ollama: 20 successes with latencies 20, 19, …, 1 (p95 by nearest rank = 19), 2 failures.
  for (let latency = 20; latency >= 1; latency -= 1) {
    store.record(
      telemetryRecord({
        timestampMs: 100 + latency * 5,
        latencySeconds: latency,
        ttftSeconds: 0.25,
      }),
    );
  }
  for (const timestampMs of [50, 200]) {
    store.record(
      telemetryRecord({
        timestampMs,
        latencySeconds: 100,
        ttftSeconds: 0,
        promptTokens: 5,
        completionTokens: 0,
        totalTokens: 5,
        costUsd: 0,
        success: false,
        error: 'engine down',
      }),
    );
  }
  // small@vllm: same model on another engine, latencies 3, 1, 2.
  for (const latency of [3, 1, 2]) {
    store.record(
      telemetryRecord({
        engine: 'vllm',
        timestampMs: 150,
        latencySeconds: latency,
        ttftSeconds: latency / 4,
      }),
    );
  }
  // big@ollama: failures only.
  store.record(
    telemetryRecord({ model: 'big', timestampMs: 300, success: false, error: 'oom', costUsd: 0 }),
  );
}

const KNOWN_SUMMARY = [
  {
    model: 'big',
    engine: 'ollama',
    calls: 1,
    failures: 1,
    promptTokens: 10,
    completionTokens: 20,
    totalTokens: 30,
    meanLatencySeconds: 0,
    p95LatencySeconds: 0,
    meanTtftSeconds: 0,
    totalCostUsd: 0,
  },
  {
    model: 'small',
    engine: 'ollama',
    calls: 22,
    failures: 2,
    promptTokens: 20 * 10 + 2 * 5,
    completionTokens: 20 * 20,
    totalTokens: 20 * 30 + 2 * 5,
    meanLatencySeconds: 10.5,
    p95LatencySeconds: 19,
    meanTtftSeconds: 0.25,
    totalCostUsd: 5,
  },
  {
    model: 'small',
    engine: 'vllm',
    calls: 3,
    failures: 0,
    promptTokens: 30,
    completionTokens: 60,
    totalTokens: 90,
    meanLatencySeconds: 2,
    p95LatencySeconds: 3,
    meanTtftSeconds: 0.5,
    totalCostUsd: 0.75,
  },
];

/** A scripted engine answering `reply`, or failing with `failure`. */
function engineOf(reply: GenerateResult | Error): InferenceEngine {
  return {
    engineId: 'scripted',
    generate: async () => {
      if (reply instanceof Error) throw reply;
      return reply;
    },
    stream: () => {
      throw new Error('not used');
    },
    listModels: async () => [],
    health: async () => true,
    close: async () => {},
  };
}

/** Publishes a whole run with one tool call on `bus`. */
function publishRun(bus: EventBus): void {
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
  bus.publish('tool_call_start', { toolName: 't', callId: 'c1', arguments: {} as never });
  bus.publish('tool_call_end', {
    toolName: 't',
    callId: 'c1',
    success: true,
    latencySeconds: 0.01,
    result: { success: true, content: 'ok', toolName: 't' } as never,
  });
  bus.publish('agent_turn_end', { agent: 'orchestrator', turns: 1 });
}

const CLOCK: Clock = { nowMs: () => 42_000, monotonicMs: () => 0 };

/** Registers the contract's tests for the backend `setup` builds. */
export function telemetryStoreContract(
  setup: (test: ContractTest) => Promise<ContractPlace>,
): void {
  const withPlace =
    (
      test: (open: (options?: ContractStoreOptions) => Promise<TelemetryBackend>) => Promise<void>,
    ) =>
    async (ctx: ContractTest) => {
      const place = await setup(ctx);
      const opened: TelemetryBackend[] = [];
      try {
        await test(async (options) => {
          const store = await place.open(options);
          opened.push(store);
          return store;
        });
      } finally {
        for (const store of opened) await store.close().catch(() => undefined);
      }
    };

  it(
    'returns the latest records newest first, with errors of failed calls, and checks the limit',
    withPlace(async (open) => {
      const store = await open();
      store.record(telemetryRecord({ timestampMs: 1 }));
      store.record(telemetryRecord({ timestampMs: 3, success: false, error: 'engine down' }));
      store.record(telemetryRecord({ timestampMs: 2 }));
      store.record(telemetryRecord({ timestampMs: 2, model: 'same ms, later' }));
      expect(await store.recent(3)).toEqual([
        telemetryRecord({ timestampMs: 3, success: false, error: 'engine down' }),
        telemetryRecord({ timestampMs: 2, model: 'same ms, later' }),
        telemetryRecord({ timestampMs: 2 }),
      ]);
      expect(await store.recent()).toHaveLength(4);
      expect(await store.recent(0)).toEqual([]);
      expect(await rejection(store.recent(-1))).toMatchObject({ code: 'invalid_argument' });
    }),
  );

  it(
    'refuses an invalid record at once, and every call after close',
    withPlace(async (open) => {
      const store = await open();
      const bad = { ...telemetryRecord(), latencySeconds: Number.NaN };
      expect(() => store.record(bad)).toThrow(
        "invalid telemetry record: 'latencySeconds' must be a finite number",
      );
      await store.close();
      await store.close();
      expect(() => store.record(telemetryRecord())).toThrow(
        expect.objectContaining({ code: 'telemetry_store_closed' }),
      );
      expect(() => store.recordRun(finishedTrace('abcd0001', 1))).toThrow(
        expect.objectContaining({ code: 'telemetry_store_closed' }),
      );
      expect(await rejection(store.summary())).toMatchObject({ code: 'telemetry_store_closed' });
      expect(await rejection(store.listRuns())).toMatchObject({ code: 'telemetry_store_closed' });
    }),
  );

  it(
    'keeps what was recorded across close and reopen, without a flush',
    withPlace(async (open) => {
      const first = await open();
      first.record(telemetryRecord({ model: 'kept' }));
      first.recordRun(finishedTrace('0123456789abcdef', 5));
      await first.close();
      const again = await open();
      expect(await again.recent(5)).toEqual([telemetryRecord({ model: 'kept' })]);
      expect((await again.listRuns()).map((run) => run.id)).toEqual(['0123456789abcdef']);
      expect(again.writeFailures).toBe(0);
    }),
  );

  it(
    'aggregates per model and engine with exact means, nearest-rank p95 and totals',
    withPlace(async (open) => {
      const store = await open();
      fillKnownData(store);
      expect(await store.summary()).toEqual(KNOWN_SUMMARY);
    }),
  );

  it(
    'counts only calls that started at or after sinceMs, and refuses NaN',
    withPlace(async (open) => {
      const store = await open();
      fillKnownData(store);
      const summary = await store.summary({ sinceMs: 150 });
      expect(summary.map((e) => [e.model, e.engine, e.calls, e.failures])).toEqual([
        ['big', 'ollama', 1, 1],
        ['small', 'ollama', 12, 1],
        ['small', 'vllm', 3, 0],
      ]);
      // Successes from 150 on have latencies 10..20: 11 values, nearest rank ceil(10.45) = 11th = 20.
      expect(summary[1]).toMatchObject({ meanLatencySeconds: 15, p95LatencySeconds: 20 });
      expect(await store.summary({ sinceMs: 1_000 })).toEqual([]);
      expect(await rejection(store.summary({ sinceMs: Number.NaN }))).toMatchObject({
        code: 'invalid_argument',
      });
    }),
  );

  it(
    'stores every telemetry_record an instrumented engine publishes, until detached',
    withPlace(async (open) => {
      const store = await open();
      const bus = new EventBus({ clock: CLOCK, recordHistory: false });
      const detach = store.attach(bus);
      const reply: GenerateResult = {
        content: 'hi',
        toolCalls: [],
        usage: { promptTokens: 2, completionTokens: 3, totalTokens: 5 },
        finishReason: 'stop',
        model: 'small',
        ttftSeconds: 0,
      };
      const engine = new InstrumentedEngine({ engine: engineOf(reply), bus, clock: CLOCK });
      await engine.generate([createMessage(Role.USER, 'hello')], { model: 'small' });
      detach();
      await engine.generate([createMessage(Role.USER, 'again')], { model: 'small' });
      expect(await store.recent(10)).toEqual([
        expect.objectContaining({
          timestampMs: 42_000,
          model: 'small',
          engine: 'scripted',
          totalTokens: 5,
        }),
      ]);
      expect(store.writeFailures).toBe(0);
      expect(store.lastWriteError).toBeUndefined();
    }),
  );

  it(
    'counts payloads it cannot store without throwing into the publisher, and stops at close',
    withPlace(async (open) => {
      const store = await open();
      const bus = new EventBus({ clock: CLOCK });
      store.attach(bus);
      const malformed = [
        { record: { model: 'no numbers' } },
        {},
      ] as unknown as EventPayloadMap['telemetry_record'][];
      for (const payload of malformed) {
        expect(() => bus.publish('telemetry_record', payload)).not.toThrow();
      }
      expect(store.writeFailures).toBe(2);
      expect(store.lastWriteError).toMatchObject({
        code: 'invalid_argument',
        message: 'invalid telemetry record: a telemetry record must be an object',
      });
      expect(bus.listenerErrors).toEqual([]);
      expect(await store.recent(10)).toEqual([]);
      await store.close();
      expect(bus.hasSubscribers('telemetry_record')).toBe(false);
      expect(store.writeFailures).toBe(2);
    }),
  );

  it(
    'redacts configured keys and secret shapes in records and traces',
    withPlace(async (open) => {
      const key = 'office-key-7f3a9c';
      const bearer = 'tok_0123456789abcdef';
      const store = await open({ redact: createRedactor([key]) });
      const bus = new EventBus({ clock: CLOCK });
      store.attach(bus);
      const message = `401: Authorization: Bearer ${bearer} rejected; key ${key} unknown`;
      const engine = new InstrumentedEngine({
        engine: engineOf(new Error(message)),
        bus,
        clock: CLOCK,
      });
      await expect(
        engine.generate([createMessage(Role.USER, 'hi')], { model: `m-${key}` }),
      ).rejects.toThrow();
      store.recordRun(
        finishedTrace('feed0001', 1, `failed with ${key} and api_key="sk-abcdefghijklmnopqrstuv"`),
      );
      expect(await store.recent(1)).toEqual([
        expect.objectContaining({
          model: 'm-[REDACTED]',
          error: '401: Authorization: Bearer [REDACTED] rejected; key [REDACTED] unknown',
        }),
      ]);
      const run = await store.getRun('feed0001');
      expect(run?.error).toBe('failed with [REDACTED] and api_key="[REDACTED]"');
      expect(JSON.stringify(run)).not.toContain(key);
    }),
  );

  it(
    'stores a run and reads it back as a tree with the same JSON shapes, by id or unique prefix',
    withPlace(async (open) => {
      const store = await open();
      const trace = finishedTrace('abcdef0123456789abcdef0123456789', 1_700_000_000_000.5);
      store.recordRun(trace);
      const [summary] = await store.listRuns();
      expect(summary).toEqual(trace.summary);
      const run = await store.getRun('abcdef01');
      expect(outline(run?.spans ?? [])).toEqual([
        'agent invoke_agent simple',
        '  turn turn 1',
        '    model chat small',
        '    tool execute_tool calculator',
      ]);
      expect(run?.spans[0]?.children[0]?.children[0]?.attributes).toEqual(
        trace.spans[2]?.attributes,
      );
      expect(run?.spans[0]?.parentSpanId).toBeUndefined();
      expect(traceJson(run as NonNullable<typeof run>)).toMatchObject({
        ...runJson(trace.summary),
        dropped_spans: 0,
        spans: [
          expect.objectContaining({ span_id: 'a', kind: 'agent', started_ms: 1_700_000_000_000.5 }),
        ],
      });
    }),
  );

  it(
    'answers undefined for an unknown run, refuses an ambiguous prefix and a bad limit',
    withPlace(async (open) => {
      const store = await open();
      store.recordRun(finishedTrace('abcd0001', 1));
      store.recordRun(finishedTrace('abcd0002', 2, 'boom'));
      expect(await store.getRun('ffff')).toBeUndefined();
      expect(await store.getRun('abc')).toBeUndefined();
      expect(await store.getRun('abcd\0')).toBeUndefined();
      expect((await store.getRun('abcd0002'))?.status).toBe('error');
      expect(await store.getRun('abcd0002')).toMatchObject({ id: 'abcd0002', error: 'boom' });
      expect(await rejection(store.getRun('abcd'))).toMatchObject({
        message: expect.stringMatching(/matches several runs/),
      });
      expect(await rejection(store.listRuns({ limit: -1 }))).toMatchObject({
        message: expect.stringMatching(/limit/),
      });
      expect(await rejection(store.listRuns({ limit: 1001 }))).toMatchObject({
        code: 'invalid_argument',
      });
    }),
  );

  it(
    'lists runs newest first and pages on with beforeMs; a run stored again replaces the old one',
    withPlace(async (open) => {
      const store = await open();
      for (const [id, startedMs] of [
        ['r001', 10],
        ['r002', 30],
        ['r003', 20],
        ['r004', 30],
      ] as const) {
        store.recordRun(finishedTrace(id, startedMs));
      }
      expect((await store.listRuns()).map((run) => run.id)).toEqual([
        'r004',
        'r002',
        'r003',
        'r001',
      ]);
      expect((await store.listRuns({ limit: 2 })).map((run) => run.id)).toEqual(['r004', 'r002']);
      expect((await store.listRuns({ beforeMs: 30 })).map((run) => run.id)).toEqual([
        'r003',
        'r001',
      ]);
      store.recordRun(finishedTrace('r003', 20, 'second version'));
      expect(await store.listRuns({ beforeMs: 30, limit: 1 })).toEqual([
        expect.objectContaining({ id: 'r003', error: 'second version' }),
      ]);
      const run = await store.getRun('r003');
      expect(outline(run?.spans ?? [])).toHaveLength(4);
    }),
  );

  it(
    'keeps only the newest maxRuns runs, also when they come from a tracer',
    withPlace(async (open) => {
      const store = await open({ maxRuns: 2 });
      const bus = new EventBus();
      const ids = ['aaaa0001', 'aaaa0002', 'aaaa0003'];
      const spanIds = (function* () {
        for (let n = 1; ; n += 1) yield `s${n}`;
      })();
      new RunTracer({
        bus,
        sinks: [store.traceSink()],
        ids: { run: () => ids.shift() ?? 'zzzz', span: () => spanIds.next().value ?? 's0' },
      });
      for (let i = 0; i < 3; i += 1) publishRun(bus);
      const runs = await store.listRuns();
      expect(runs).toHaveLength(2);
      expect(runs.map((run) => run.id).sort()).toEqual(['aaaa0002', 'aaaa0003']);
      expect(outline((await store.getRun('aaaa0003'))?.spans ?? [])).toEqual([
        'agent invoke_agent orchestrator',
        '  turn turn 1',
        '    model chat m',
        '    tool execute_tool t',
      ]);
      expect(store.writeFailures).toBe(0);
    }),
  );
}
