import { type EventPayloadMap, isPlainObject, type TokenUsage } from '../core/index.js';

/** One measured model call, as published in `telemetry_record` events and stored by `TelemetryStore` (defined in core). */
export type TelemetryRecord = EventPayloadMap['telemetry_record']['record'];

/** What `buildTelemetryRecord` needs to know about one finished call. */
export interface TelemetryMeasurement {
  readonly timestampMs: number;
  readonly model: string;
  readonly engine: string;
  readonly usage: TokenUsage;
  readonly latencySeconds: number;
  readonly ttftSeconds: number;
  readonly costUsd: number;
  /** Set for failed calls. */
  readonly error?: string;
  /** Why the model stopped, when the call finished and the engine said so. */
  readonly finishReason?: string;
}

/** Turns a count or duration from an engine into a finite, non-negative number (anything else becomes 0). */
export function sanitizeMeasure(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** Token counts with bad values zeroed and a missing total filled in from its parts. */
export function sanitizeUsage(usage: TokenUsage): TokenUsage {
  const promptTokens = sanitizeMeasure(usage.promptTokens);
  const completionTokens = sanitizeMeasure(usage.completionTokens);
  const reportedTotal = sanitizeMeasure(usage.totalTokens);
  const totalTokens = reportedTotal > 0 ? reportedTotal : promptTokens + completionTokens;
  return { promptTokens, completionTokens, totalTokens };
}

/** Completion tokens per second of decoding time (`latency - ttft`), or 0 when that time is not positive or too small to divide by. */
export function throughputTokensPerSecond(
  completionTokens: number,
  latencySeconds: number,
  ttftSeconds: number,
): number {
  const decodeSeconds = latencySeconds - ttftSeconds;
  // A clock too coarse to see the call reports the smallest positive duration; dividing by it overflows.
  const throughput = decodeSeconds > 0 ? completionTokens / decodeSeconds : 0;
  return Number.isFinite(throughput) ? throughput : 0;
}

/** Builds the (frozen) record of one call, computing throughput and leaving `error` out of successful calls. */
export function buildTelemetryRecord(measurement: TelemetryMeasurement): TelemetryRecord {
  const usage = sanitizeUsage(measurement.usage);
  const latencySeconds = sanitizeMeasure(measurement.latencySeconds);
  const ttftSeconds = sanitizeMeasure(measurement.ttftSeconds);
  const record: TelemetryRecord = {
    timestampMs: measurement.timestampMs,
    model: measurement.model,
    engine: measurement.engine,
    ...usage,
    latencySeconds,
    ttftSeconds,
    throughputTokensPerSecond: throughputTokensPerSecond(
      usage.completionTokens,
      latencySeconds,
      ttftSeconds,
    ),
    costUsd: sanitizeMeasure(measurement.costUsd),
    success: measurement.error === undefined,
  };
  const reason = measurement.finishReason;
  // Frozen because every subscriber of the event receives this same object.
  return Object.freeze({
    ...record,
    ...(measurement.error === undefined ? {} : { error: measurement.error }),
    ...(reason === undefined || measurement.error !== undefined ? {} : { finishReason: reason }),
  });
}

const NUMBER_FIELDS = [
  'timestampMs',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'latencySeconds',
  'ttftSeconds',
  'throughputTokensPerSecond',
  'costUsd',
] as const;

/** Says what is wrong with a value that should be a `TelemetryRecord`, or returns undefined when it is one. */
export function findTelemetryRecordProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'a telemetry record must be an object';
  for (const field of ['model', 'engine'] as const) {
    if (typeof value[field] !== 'string') return `'${field}' must be a string`;
  }
  for (const field of NUMBER_FIELDS) {
    const number = value[field];
    if (typeof number !== 'number' || !Number.isFinite(number))
      return `'${field}' must be a finite number`;
    if (field !== 'timestampMs' && number < 0) return `'${field}' must not be negative`;
  }
  if (typeof value.success !== 'boolean') return `'success' must be a boolean`;
  if (value.error !== undefined && typeof value.error !== 'string')
    return `'error' must be a string when present`;
  return undefined;
}

/** True when `value` has every field of a `TelemetryRecord` with a valid value. */
export function isTelemetryRecord(value: unknown): value is TelemetryRecord {
  return findTelemetryRecordProblem(value) === undefined;
}
