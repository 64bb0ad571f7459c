import type { EventBus } from '../core/index.js';
import { SqliteTelemetryBackend } from './sqlite-telemetry-backend.js';
import type { TelemetryRecord } from './telemetry-record.js';
import { TelemetryStore } from './telemetry-store.js';
import type { TelemetrySummaryEntry, TelemetrySummaryOptions } from './telemetry-summary.js';
import type { ListRunsOptions } from './trace-tables.js';
import type { FinishedTrace, TraceRun, TraceRunSummary, TraceSink } from './trace-types.js';

/**
 * Where telemetry records and run traces are kept (SQLite through `SqliteTelemetryBackend`, PostgreSQL through
 * `PostgresTelemetryStore`), with the same semantics and shapes on every backend. Writes are fire-and-forget:
 * `record`/`recordRun` validate and queue (a backend may write in batches in the background); a write that
 * fails is retried and reported (`writeFailures`, `lastWriteError`), never thrown into an agent run. Reads are
 * asynchronous and see every write this process queued before them.
 */
export interface TelemetryBackend {
  /** Where the data lives, for messages (a file path, or a PostgreSQL address without its password). */
  readonly location: string;
  /** Records and runs that could not be stored (invalid payloads from a bus, writes given up on). */
  readonly writeFailures: number;
  /** The latest error behind `writeFailures` or a retried write, or undefined when there was none. */
  readonly lastWriteError: unknown;
  /** Queues one record (texts redacted); throws a `JarvisError` for an invalid record or a closed store. */
  record(record: TelemetryRecord): void;
  /** Queues a finished run's trace, keeping the newest `maxRuns` runs; throws once the store is closed. */
  recordRun(trace: FinishedTrace): void;
  /** Stores every `telemetry_record` published on `bus` (failures are counted, never thrown); returns a detach. */
  attach(bus: EventBus): () => void;
  /** A tracer sink that stores every finished run; a run that cannot be stored is counted in `writeFailures`. */
  traceSink(): TraceSink;
  /** Resolves once every write queued so far is stored; rejects when the database cannot take them yet. */
  flush(): Promise<void>;
  /** Calls, failures, tokens, latency, time to first token and cost per model and engine. */
  summary(options?: TelemetrySummaryOptions): Promise<readonly TelemetrySummaryEntry[]>;
  /** The latest `limit` records (default 20), newest first. */
  recent(limit?: number): Promise<readonly TelemetryRecord[]>;
  /** Stored runs, newest first (`limit` default 20; `beforeMs` pages on). */
  listRuns(options?: ListRunsOptions): Promise<readonly TraceRunSummary[]>;
  /** One stored run with its spans as a tree (by id, or a unique prefix of 4+ characters); undefined if none. */
  getRun(id: string): Promise<TraceRun | undefined>;
  /** Detaches from every bus, writes what is queued and closes; calling it again does nothing. */
  close(): Promise<void>;
}

export { SqliteTelemetryBackend } from './sqlite-telemetry-backend.js';

/** The asynchronous store for either kind: a SQLite `TelemetryStore` is wrapped, a backend passes through. */
export function telemetryBackend(store: TelemetryStore | TelemetryBackend): TelemetryBackend {
  return store instanceof TelemetryStore ? new SqliteTelemetryBackend(store) : store;
}
