import { type EventBus, JarvisError } from '../core/index.js';
import type { TelemetryBackend } from './telemetry-backend.js';
import { findTelemetryRecordProblem, type TelemetryRecord } from './telemetry-record.js';
import type { TelemetryStore } from './telemetry-store.js';
import type { TelemetrySummaryEntry, TelemetrySummaryOptions } from './telemetry-summary.js';
import { TelemetryWriters } from './telemetry-writers.js';
import type { ListRunsOptions } from './trace-tables.js';
import type { FinishedTrace, TraceRun, TraceRunSummary, TraceSink } from './trace-types.js';

/** Records and runs written in one transaction at most; a batch this full is written at once. */
export const SQLITE_TELEMETRY_MAX_BATCH = 256;

/**
 * The SQLite `TelemetryStore` behind the asynchronous interface, with its writes batched: records and finished
 * runs queued in one turn of the event loop are written in one transaction after it (one commit for a batch of
 * runs instead of one per model call and per run), and everything queued is written before any read, on
 * `flush()` and on `close()`, so a read sees every write queued before it. A batch the database refuses is
 * written item by item, and the items refused are counted in `writeFailures`.
 */
export class SqliteTelemetryBackend implements TelemetryBackend {
  readonly location: string;
  readonly sqlite: TelemetryStore;
  #records: TelemetryRecord[] = [];
  #runs: FinishedTrace[] = [];
  #pending: ReturnType<typeof setImmediate> | undefined;
  readonly #writers = new TelemetryWriters((error) => this.#failed(1, error));
  #writeFailures = 0;
  #lastWriteError: unknown;
  #closed = false;

  constructor(sqlite: TelemetryStore) {
    this.sqlite = sqlite;
    this.location = sqlite.dbPath;
  }

  get writeFailures(): number {
    return this.#writeFailures + this.sqlite.writeFailures;
  }

  get lastWriteError(): unknown {
    return this.#lastWriteError ?? this.sqlite.lastWriteError;
  }

  record(record: TelemetryRecord): void {
    this.#checkOpen();
    const problem = findTelemetryRecordProblem(record);
    if (problem !== undefined) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `invalid telemetry record: ${problem}`,
      });
    }
    this.#records.push(record);
    this.#schedule();
  }

  recordRun(trace: FinishedTrace): void {
    this.#checkOpen();
    this.#runs.push(trace);
    this.#schedule();
  }

  attach(bus: EventBus): () => void {
    return this.#writers.attach(bus, (record) => this.record(record));
  }

  traceSink(): TraceSink {
    return this.#writers.traceSink((trace) => this.recordRun(trace));
  }

  async flush(): Promise<void> {
    this.#write();
  }

  async summary(options?: TelemetrySummaryOptions): Promise<readonly TelemetrySummaryEntry[]> {
    this.#write();
    return this.sqlite.summary(options);
  }

  async recent(limit?: number): Promise<readonly TelemetryRecord[]> {
    this.#write();
    return this.sqlite.recent(limit);
  }

  async listRuns(options?: ListRunsOptions): Promise<readonly TraceRunSummary[]> {
    this.#write();
    return this.sqlite.listRuns(options);
  }

  async getRun(id: string): Promise<TraceRun | undefined> {
    this.#write();
    return this.sqlite.getRun(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#writers.detachAll();
    this.#write();
    this.#closed = true;
    this.sqlite.close();
  }

  #checkOpen(): void {
    if (!this.#closed) return;
    throw new JarvisError({
      code: 'telemetry_store_closed',
      message: `the telemetry store for ${this.location} is closed; create a new TelemetryStore`,
    });
  }

  /** Writes after this turn of the event loop, or now when the batch is full. */
  #schedule(): void {
    if (this.#records.length + this.#runs.length >= SQLITE_TELEMETRY_MAX_BATCH) this.#write();
    else this.#pending ??= setImmediate(() => this.#write());
  }

  /** Writes everything queued in one transaction; a refused batch is written item by item. */
  #write(): void {
    if (this.#pending !== undefined) clearImmediate(this.#pending);
    this.#pending = undefined;
    const records = this.#records;
    const runs = this.#runs;
    if (records.length === 0 && runs.length === 0) return;
    this.#records = [];
    this.#runs = [];
    try {
      this.sqlite.writeBatch(records, runs);
    } catch (error) {
      if (records.length + runs.length === 1) this.#failed(1, error);
      else this.#writeEach(records, runs);
    }
  }

  #writeEach(records: readonly TelemetryRecord[], runs: readonly FinishedTrace[]): void {
    const attempt = (write: () => void) => {
      try {
        write();
      } catch (error) {
        this.#failed(1, error);
      }
    };
    for (const record of records) attempt(() => this.sqlite.writeBatch([record], []));
    for (const run of runs) attempt(() => this.sqlite.writeBatch([], [run]));
  }

  #failed(count: number, error: unknown): void {
    this.#writeFailures += count;
    this.#lastWriteError = error;
  }
}
