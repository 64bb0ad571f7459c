import { describe, expect, it } from 'vitest';
import {
  EngineError,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  type StreamChunk,
} from '../core/engine.js';
import {
  type Clock,
  createMessage,
  createRedactor,
  EventBus,
  type JarvisEvent,
  type Message,
  Role,
  type TokenUsage,
} from '../core/index.js';
import { InstrumentedEngine } from './instrumented-engine.js';
import type { PricingTable } from './telemetry-pricing.js';
import type { TelemetryRecord } from './telemetry-record.js';
import { STREAM_ABANDONED_ERROR, STREAM_MISSING_END_ERROR } from './telemetry-stream.js';

const START_WALL_MS = 1_700_000_000_000;

/** A clock that moves only when told to. */
class ManualClock implements Clock {
  wallMs = START_WALL_MS;
  monoMs = 5_000;
  nowMs(): number {
    return this.wallMs;
  }
  monotonicMs(): number {
    return this.monoMs;
  }
  advance(ms: number): void {
    this.wallMs += ms;
    this.monoMs += ms;
  }
}

type GenerateImpl = (
  messages: readonly Message[],
  options: GenerateOptions,
) => Promise<GenerateResult>;
type StreamImpl = (
  messages: readonly Message[],
  options: GenerateOptions,
) => AsyncIterable<StreamChunk>;

/** An in-test engine whose calls do whatever the test sets, and which refuses calls it was not given. */
class FakeEngine implements InferenceEngine {
  readonly engineId = 'fake';
  generateImpl: GenerateImpl = () => Promise.reject(new Error('unexpected generate call'));
  streamImpl: StreamImpl = () => {
    throw new Error('unexpected stream call');
  };
  closeCalls = 0;
  generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    return this.generateImpl(messages, options);
  }
  stream(messages: readonly Message[], options: GenerateOptions): AsyncIterable<StreamChunk> {
    return this.streamImpl(messages, options);
  }
  async listModels(): Promise<readonly string[]> {
    return ['small', 'large'];
  }
  async health(): Promise<boolean> {
    return true;
  }
  async close(): Promise<void> {
    this.closeCalls += 1;
  }
}

const MESSAGES: readonly Message[] = [
  createMessage(Role.SYSTEM, 'Be brief.'),
  createMessage(Role.USER, 'What is 2+2?'),
];
const PRICING: PricingTable = {
  small: { promptUsdPerMillionTokens: 1, completionUsdPerMillionTokens: 2 },
};

function answer(usage: TokenUsage, ttftSeconds: number): GenerateResult {
  return { content: '4', toolCalls: [], usage, finishReason: 'stop', model: 'small', ttftSeconds };
}

function setup(pricing: PricingTable = PRICING) {
  const clock = new ManualClock();
  const bus = new EventBus({ recordHistory: true, clock });
  const inner = new FakeEngine();
  const engine = new InstrumentedEngine({ engine: inner, bus, clock, pricing });
  const events = (): readonly JarvisEvent[] => bus.history;
  const records = (): TelemetryRecord[] =>
    bus.history
      .filter((event) => event.type === 'telemetry_record')
      .map((event) => (event.data as { record: TelemetryRecord }).record);
  return { clock, bus, inner, engine, events, records };
}

describe('InstrumentedEngine.generate', () => {
  it('publishes one record with exact latency, ttft, throughput and cost, and no inference events', async () => {
    const { clock, inner, engine, events, records } = setup();
    const result = answer({ promptTokens: 10, completionTokens: 30, totalTokens: 40 }, 0.5);
    let eventsDuringCall = -1;
    inner.generateImpl = async () => {
      eventsDuringCall = events().length;
      clock.advance(2_500);
      return result;
    };

    const returned = await engine.generate(MESSAGES, { model: 'small' });

    expect(returned).toBe(result);
    expect(eventsDuringCall).toBe(0);
    const record: TelemetryRecord = {
      timestampMs: START_WALL_MS,
      model: 'small',
      engine: 'fake',
      promptTokens: 10,
      completionTokens: 30,
      totalTokens: 40,
      latencySeconds: 2.5,
      ttftSeconds: 0.5,
      throughputTokensPerSecond: 15,
      costUsd: (10 * 1 + 30 * 2) / 1_000_000,
      success: true,
      finishReason: 'stop',
    };
    expect(events().map((event) => [event.type, event.data])).toEqual([
      ['telemetry_record', { record }],
    ]);
    expect(Object.isFrozen(records()[0])).toBe(true);
  });

  it('records a failure with the message and rethrows the same error', async () => {
    const { clock, inner, engine, events, records } = setup();
    const failure = new EngineError({
      code: 'engine_unavailable',
      engineId: 'fake',
      address: 'http://127.0.0.1:1',
      detail: 'connection refused',
    });
    inner.generateImpl = async () => {
      clock.advance(1_250);
      throw failure;
    };

    await expect(engine.generate(MESSAGES, { model: 'small' })).rejects.toBe(failure);

    expect(events().map((event) => event.type)).toEqual(['telemetry_record']);
    expect(records()).toEqual([
      expect.objectContaining({ success: false, error: failure.message, latencySeconds: 1.25 }),
    ]);
  });

  it('records the error of a failed call redacted: the configured keys and any bearer token', async () => {
    const clock = new ManualClock();
    const bus = new EventBus({ recordHistory: true, clock });
    const inner = new FakeEngine();
    const redact = createRedactor(['office-key-7f3a9c']);
    const engine = new InstrumentedEngine({ engine: inner, bus, clock, redact });
    const failure = new Error('denied: Bearer tok_0123456789abcdef (key office-key-7f3a9c)');
    inner.generateImpl = () => Promise.reject(failure);

    await expect(engine.generate(MESSAGES, { model: 'small' })).rejects.toBe(failure);

    const redacted = 'denied: Bearer [REDACTED] (key [REDACTED])';
    expect(bus.history.map((event) => event.data)).toEqual([
      { record: expect.objectContaining({ success: false, error: redacted }) },
    ]);
  });

  it('costs 0 for unpriced models, fills a missing total and zeroes bad counts', async () => {
    const { clock, inner, engine, records } = setup();
    inner.generateImpl = async () => {
      clock.advance(1_000);
      return answer({ promptTokens: 7, completionTokens: 3, totalTokens: 0 }, Number.NaN);
    };
    await engine.generate(MESSAGES, { model: 'unpriced' });
    inner.generateImpl = async () => {
      clock.advance(1_000);
      return answer(
        { promptTokens: -4, completionTokens: Number.POSITIVE_INFINITY, totalTokens: 9 },
        0,
      );
    };
    await engine.generate(MESSAGES, { model: 'constructor' });

    expect(records()).toMatchObject([
      { promptTokens: 7, completionTokens: 3, totalTokens: 10, costUsd: 0, ttftSeconds: 0 },
      { promptTokens: 0, completionTokens: 0, totalTokens: 9, costUsd: 0 },
    ]);
    expect(records()[0]?.throughputTokensPerSecond).toBe(3);
  });

  it('reports throughput 0 when the engine says the first token came at or after the end', async () => {
    const { clock, inner, engine, records } = setup();
    inner.generateImpl = async () => {
      clock.advance(1_000);
      return answer({ promptTokens: 1, completionTokens: 50, totalTokens: 51 }, 1.5);
    };
    await engine.generate(MESSAGES, { model: 'small' });
    expect(records()[0]).toMatchObject({
      latencySeconds: 1,
      ttftSeconds: 1.5,
      throughputTokensPerSecond: 0,
    });
  });
});

/** Yields the given chunks, moving the clock by `delayMs` before each, and notes whether it was closed. */
function timedStream(
  clock: ManualClock,
  steps: readonly {
    readonly delayMs: number;
    readonly chunk?: StreamChunk;
    readonly error?: Error;
  }[],
  state: { finished: boolean },
): AsyncIterable<StreamChunk> {
  return (async function* () {
    try {
      for (const step of steps) {
        clock.advance(step.delayMs);
        if (step.error !== undefined) throw step.error;
        if (step.chunk !== undefined) yield step.chunk;
      }
    } finally {
      state.finished = true;
    }
  })();
}

const END_CHUNK: StreamChunk = {
  type: 'end',
  finishReason: 'stop',
  usage: { promptTokens: 5, completionTokens: 20, totalTokens: 25 },
  model: 'small',
  ttftSeconds: 0.1,
};

async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('InstrumentedEngine.stream', () => {
  it('passes chunks through and records the whole stream with ttft at the first chunk', async () => {
    const { clock, inner, engine, events, records } = setup();
    const state = { finished: false };
    const chunks: StreamChunk[] = [
      { type: 'text_delta', text: '2+2' },
      { type: 'text_delta', text: ' = 4' },
      END_CHUNK,
    ];
    inner.streamImpl = () =>
      timedStream(
        clock,
        chunks.map((chunk, index) => ({ delayMs: [300, 200, 500][index] ?? 0, chunk })),
        state,
      );

    const stream = engine.stream(MESSAGES, { model: 'small' });
    expect(events()).toEqual([]);
    const received = await collect(stream);

    expect(received).toEqual(chunks);
    expect(received[2]).toBe(END_CHUNK);
    expect(state.finished).toBe(true);
    expect(events().map((event) => event.type)).toEqual(['telemetry_record']);
    expect(records()).toEqual([
      {
        timestampMs: START_WALL_MS,
        model: 'small',
        engine: 'fake',
        promptTokens: 5,
        completionTokens: 20,
        totalTokens: 25,
        latencySeconds: 1,
        ttftSeconds: 0.3,
        throughputTokensPerSecond: 20 / (1 - 0.3),
        costUsd: (5 * 1 + 20 * 2) / 1_000_000,
        success: true,
        finishReason: 'stop',
      },
    ]);
  });

  it('records a stream that throws midway and rethrows the same error', async () => {
    const { clock, inner, engine, events, records } = setup();
    const cut = new EngineError({
      code: 'engine_stream_cut',
      engineId: 'fake',
      address: 'http://127.0.0.1:1',
      detail: 'connection closed mid-answer',
    });
    const state = { finished: false };
    inner.streamImpl = () =>
      timedStream(
        clock,
        [
          { delayMs: 400, chunk: { type: 'text_delta', text: 'par' } },
          { delayMs: 600, error: cut },
        ],
        state,
      );

    await expect(collect(engine.stream(MESSAGES, { model: 'small' }))).rejects.toBe(cut);

    expect(records()).toEqual([
      expect.objectContaining({
        success: false,
        error: cut.message,
        latencySeconds: 1,
        ttftSeconds: 0.4,
        totalTokens: 0,
      }),
    ]);
    expect(events().map((event) => event.type)).toEqual(['telemetry_record']);
  });

  it('records an abandoned stream as failed and closes the inner stream', async () => {
    const { clock, inner, engine, records } = setup();
    const state = { finished: false };
    inner.streamImpl = () =>
      timedStream(
        clock,
        [
          { delayMs: 250, chunk: { type: 'text_delta', text: 'first' } },
          { delayMs: 250, chunk: { type: 'text_delta', text: 'never read' } },
          { delayMs: 250, chunk: END_CHUNK },
        ],
        state,
      );

    for await (const chunk of engine.stream(MESSAGES, { model: 'small' })) {
      expect(chunk).toEqual({ type: 'text_delta', text: 'first' });
      clock.advance(750);
      break;
    }

    expect(state.finished).toBe(true);
    expect(records()).toEqual([
      expect.objectContaining({
        success: false,
        error: STREAM_ABANDONED_ERROR,
        latencySeconds: 1,
        ttftSeconds: 0.25,
        completionTokens: 0,
      }),
    ]);
  });

  it('counts a stream as complete once its end chunk arrived, even if the reader stops there', async () => {
    const { clock, inner, engine, records } = setup();
    const state = { finished: false };
    inner.streamImpl = () =>
      timedStream(
        clock,
        [
          { delayMs: 100, chunk: END_CHUNK },
          { delayMs: 100, chunk: { type: 'text_delta', text: 'after the end' } },
        ],
        state,
      );
    for await (const chunk of engine.stream(MESSAGES, { model: 'small' })) {
      if (chunk.type === 'end') break;
    }
    expect(records()).toEqual([expect.objectContaining({ success: true, totalTokens: 25 })]);
    expect(records()[0]).not.toHaveProperty('error');
  });

  it('records a stream that finishes without an end chunk as failed', async () => {
    const { clock, inner, engine, records } = setup();
    inner.streamImpl = () =>
      timedStream(clock, [{ delayMs: 100, chunk: { type: 'text_delta', text: 'x' } }], {
        finished: false,
      });
    await collect(engine.stream(MESSAGES, { model: 'small' }));
    expect(records()).toEqual([
      expect.objectContaining({
        success: false,
        error: STREAM_MISSING_END_ERROR,
        ttftSeconds: 0.1,
      }),
    ]);
  });

  it('records an engine whose stream() throws before yielding anything', async () => {
    const { inner, engine, events, records } = setup();
    const broken = new Error('no such model');
    inner.streamImpl = () => {
      throw broken;
    };
    await expect(collect(engine.stream(MESSAGES, { model: 'small' }))).rejects.toBe(broken);
    expect(events().map((event) => event.type)).toEqual(['telemetry_record']);
    expect(records()).toEqual([
      expect.objectContaining({ success: false, error: 'no such model', ttftSeconds: 0 }),
    ]);
  });
});

describe('InstrumentedEngine wrapper', () => {
  it('keeps the inner engine id and passes the other calls through', async () => {
    const { inner, engine, events } = setup();
    expect(engine.engineId).toBe('fake');
    expect(await engine.listModels()).toEqual(['small', 'large']);
    expect(await engine.health()).toBe(true);
    await engine.close();
    expect(inner.closeCalls).toBe(1);
    expect(events()).toEqual([]);
  });

  it('refuses to wrap an engine that is instrumented already', () => {
    const { bus, engine } = setup();
    expect(() => new InstrumentedEngine({ engine, bus })).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: expect.stringContaining('already instrumented'),
      }),
    );
  });

  it('rejects a negative or missing price, naming the model and field', () => {
    const bus = new EventBus();
    const pricing = {
      good: { promptUsdPerMillionTokens: 0, completionUsdPerMillionTokens: 0 },
      bad: { promptUsdPerMillionTokens: -1, completionUsdPerMillionTokens: 1 },
    };
    expect(() => new InstrumentedEngine({ engine: new FakeEngine(), bus, pricing })).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: expect.stringMatching(
          /pricing for model 'bad': 'promptUsdPerMillionTokens' must be a finite number/,
        ),
      }),
    );
    const missing = { odd: { promptUsdPerMillionTokens: 1 } } as unknown as PricingTable;
    expect(
      () => new InstrumentedEngine({ engine: new FakeEngine(), bus, pricing: missing }),
    ).toThrow(
      /'completionUsdPerMillionTokens' must be a finite number of US dollars >= 0 \(got undefined\)/,
    );
  });
});
