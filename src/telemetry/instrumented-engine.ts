import {
  type Clock,
  createRedactor,
  describeError,
  type EventBus,
  elapsedSeconds,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  JarvisError,
  type Message,
  type Redactor,
  type SignalOptions,
  type StreamChunk,
  systemClock,
  ZERO_USAGE,
} from '../core/index.js';
import { PriceList, type PricingTable } from './telemetry-pricing.js';
import { buildTelemetryRecord, sanitizeUsage } from './telemetry-record.js';
import { measureStream, type StreamOutcome } from './telemetry-stream.js';

/** Options of an `InstrumentedEngine`. */
export interface InstrumentedEngineOptions {
  /** The engine whose calls are measured. */
  readonly engine: InferenceEngine;
  /** Where `telemetry_record` is published (agents publish `inference_start` and `inference_end` themselves). */
  readonly bus: EventBus;
  readonly clock?: Clock;
  /** Prices per model, used for `costUsd`; models missing here cost 0. */
  readonly pricing?: PricingTable;
  /**
   * Applied to the error text of failed calls before it is published (configured keys); core's secret-shape
   * redaction (bearer tokens, `api_key=...`, `sk-...`) is applied after it in any case.
   */
  readonly redact?: Redactor;
}

/** Core's redaction of secret shapes only (no known values). */
const redactShapes = createRedactor();

/** When and what a call started with. */
interface CallStart {
  readonly timestampMs: number;
  readonly startedMs: number;
  readonly model: string;
}

/**
 * Wraps an engine, measures every `generate` and `stream` call (failures too) and publishes one
 * `telemetry_record` for each; results, chunks and errors pass through unchanged. It publishes no
 * `inference_start`/`inference_end`: the agent making the call is their one publisher.
 */
export class InstrumentedEngine implements InferenceEngine {
  readonly engineId: string;
  readonly #engine: InferenceEngine;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  readonly #prices: PriceList;
  readonly #redact: Redactor;

  /** Throws a `JarvisError` when `engine` is instrumented already (every call would be recorded twice). */
  constructor(options: InstrumentedEngineOptions) {
    if (options.engine instanceof InstrumentedEngine) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `engine '${options.engine.engineId}' is already instrumented; wrap the inner engine only once, or every call is recorded twice`,
      });
    }
    this.#engine = options.engine;
    this.engineId = options.engine.engineId;
    this.#bus = options.bus;
    this.#clock = options.clock ?? systemClock;
    this.#prices = new PriceList(options.pricing);
    const redact = options.redact;
    this.#redact =
      redact === undefined ? redactShapes : (text: string) => redactShapes(redact(text));
  }

  /** Calls the wrapped engine's `generate` and records it; a failure is recorded and rethrown. */
  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const start = this.#start(options.model);
    let result: GenerateResult;
    try {
      result = await this.#engine.generate(messages, options);
    } catch (error) {
      this.#finish(start, {
        usage: ZERO_USAGE,
        latencySeconds: elapsedSeconds(this.#clock, start.startedMs),
        ttftSeconds: 0,
        error: describeError(error),
      });
      throw error;
    }
    this.#finish(start, {
      usage: result.usage,
      latencySeconds: elapsedSeconds(this.#clock, start.startedMs),
      ttftSeconds: result.ttftSeconds,
      finishReason: result.finishReason,
    });
    return result;
  }

  /**
   * Streams from the wrapped engine, timed from the first read and recorded when the stream ends, throws or
   * is abandoned; the time to the first token is the time to the first chunk.
   */
  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncIterable<StreamChunk> {
    const start = this.#start(options.model);
    yield* measureStream(
      () => this.#engine.stream(messages, options),
      this.#clock,
      (outcome) => this.#finish(start, outcome),
    );
  }

  /** Asks the wrapped engine (not measured). */
  /** The wrapped engine's context window for `model`, if it reports one. */
  contextTokens(model: string, options?: SignalOptions): Promise<number | undefined> {
    return this.#engine.contextTokens?.(model, options) ?? Promise.resolve(undefined);
  }

  /** The wrapped engine's prompt token count, if it can count. */
  countTokens(messages: readonly Message[], options: GenerateOptions): Promise<number | undefined> {
    return this.#engine.countTokens?.(messages, options) ?? Promise.resolve(undefined);
  }

  listModels(options?: SignalOptions): Promise<readonly string[]> {
    return this.#engine.listModels(options);
  }

  /** Asks the wrapped engine (not measured). */
  health(options?: SignalOptions): Promise<boolean> {
    return this.#engine.health(options);
  }

  /** Closes the wrapped engine. */
  close(): Promise<void> {
    return this.#engine.close();
  }

  #start(model: string): CallStart {
    return { timestampMs: this.#clock.nowMs(), startedMs: this.#clock.monotonicMs(), model };
  }

  #finish(start: CallStart, outcome: StreamOutcome): void {
    const usage = sanitizeUsage(outcome.usage);
    const record = buildTelemetryRecord({
      timestampMs: start.timestampMs,
      model: start.model,
      engine: this.engineId,
      usage,
      latencySeconds: outcome.latencySeconds,
      ttftSeconds: outcome.ttftSeconds,
      costUsd: this.#prices.costUsd(start.model, usage),
      ...(outcome.error === undefined ? {} : { error: this.#redact(outcome.error) }),
      ...(outcome.finishReason === undefined ? {} : { finishReason: outcome.finishReason }),
    });
    this.#bus.publish('telemetry_record', { record });
  }
}
