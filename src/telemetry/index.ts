export {
  InstrumentedEngine,
  type InstrumentedEngineOptions,
} from './instrumented-engine.js';
export {
  OpenTelemetryTraceSink,
  type OpenTelemetryTraceSinkOptions,
  OTEL_SCOPE_NAME,
} from './otel-trace-sink.js';
export {
  OTLP_PACKAGES,
  type OtlpExport,
  type OtlpExportOptions,
  otlpTracesUrl,
  startOtlpExport,
} from './otlp-export.js';
export {
  PostgresTelemetryStore,
  type PostgresTelemetryStoreOptions,
} from './postgres-telemetry-store.js';
export { RunTracer, type RunTracerOptions } from './run-tracer.js';
export { type RunTracing, type RunTracingOptions, startRunTracing } from './run-tracing.js';
export {
  SqliteTelemetryBackend,
  type TelemetryBackend,
  telemetryBackend,
} from './telemetry-backend.js';
export { type ModelPricing, PriceList, type PricingTable } from './telemetry-pricing.js';
export {
  buildTelemetryRecord,
  findTelemetryRecordProblem,
  isTelemetryRecord,
  type TelemetryMeasurement,
  type TelemetryRecord,
  throughputTokensPerSecond,
} from './telemetry-record.js';
export {
  TELEMETRY_APPLICATION_ID,
  TELEMETRY_SCHEMA_VERSION,
} from './telemetry-schema.js';
export { TelemetryStore, type TelemetryStoreOptions } from './telemetry-store.js';
export { STREAM_ABANDONED_ERROR, STREAM_MISSING_END_ERROR } from './telemetry-stream.js';
export type { TelemetrySummaryEntry, TelemetrySummaryOptions } from './telemetry-summary.js';
export { runJson, traceJson } from './trace-json.js';
export type { ListRunsOptions } from './trace-tables.js';
export type {
  FinishedTrace,
  StartedTraceSpan,
  TraceAttributeValue,
  TraceRun,
  TraceRunSummary,
  TraceSink,
  TraceSpan,
  TraceSpanKind,
  TraceSpanNode,
  TraceSpanStatus,
} from './trace-types.js';
