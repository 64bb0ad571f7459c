export {
  InstrumentedEngine,
  type InstrumentedEngineOptions,
} from './instrumented-engine.js';
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
