import type { TokenUsage } from '../core/index.js';
import type { TelemetryRecord } from './telemetry-record.js';

/** Payload of `inference_start` as `InstrumentedEngine` publishes it. */
export type InferenceStartPayload = {
  readonly model: string;
  /** Registry key of the wrapped engine. */
  readonly engine: string;
  readonly messageCount: number;
};

/** Payload of `inference_end` as `InstrumentedEngine` publishes it, for successful and failed calls alike. */
export type InferenceEndPayload = {
  readonly model: string;
  readonly engine: string;
  readonly success: boolean;
  readonly latencySeconds: number;
  readonly usage: TokenUsage;
  readonly ttftSeconds: number;
  readonly throughputTokensPerSecond: number;
  readonly costUsd: number;
  /** What went wrong, for failed calls. */
  readonly error?: string;
};

/** Payload of `telemetry_record`. */
export type TelemetryRecordPayload = {
  readonly record: TelemetryRecord;
};

/** Builds the `inference_end` payload that matches a record. */
export function inferenceEndPayload(record: TelemetryRecord): InferenceEndPayload {
  const payload: InferenceEndPayload = {
    model: record.model,
    engine: record.engine,
    success: record.success,
    latencySeconds: record.latencySeconds,
    usage: {
      promptTokens: record.promptTokens,
      completionTokens: record.completionTokens,
      totalTokens: record.totalTokens,
    },
    ttftSeconds: record.ttftSeconds,
    throughputTokensPerSecond: record.throughputTokensPerSecond,
    costUsd: record.costUsd,
  };
  return record.error === undefined ? payload : { ...payload, error: record.error };
}
