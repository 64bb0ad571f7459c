import {
  databaseIncompatibleError,
  describeError,
  type EventBus,
  JarvisError,
  type Redactor,
} from '../core/index.js';
import { migrate, type PostgresDatabase, StorageError } from '../storage/index.js';
import { TELEMETRY_MIGRATIONS } from './postgres-telemetry-schema.js';
import {
  FIND_RUN,
  insertRecords,
  LIST_RUNS,
  RECENT,
  type RecordRow,
  type RunRow,
  recordOf,
  runOf,
  SUMMARY,
  type SummaryRow,
  storeRuns,
  summaryOf,
} from './postgres-telemetry-sql.js';
import type { TelemetryBackend } from './telemetry-backend.js';
import {
  ambiguousRunError,
  checkListRuns,
  checkMaxRuns,
  checkRecentLimit,
  checkSinceMs,
  checkTelemetryRecord,
} from './telemetry-checks.js';
import type { TelemetryRecord } from './telemetry-record.js';
import { redactTrace, storeRedactor } from './telemetry-redaction.js';
import { DEFAULT_TRACE_MAX_RUNS } from './telemetry-store.js';
import type { TelemetrySummaryEntry, TelemetrySummaryOptions } from './telemetry-summary.js';
import { type WriteFailure, WriteQueue } from './telemetry-write-queue.js';
import { TelemetryWriters } from './telemetry-writers.js';
import type { ListRunsOptions } from './trace-tables.js';
import type { FinishedTrace, TraceRun, TraceRunSummary, TraceSink } from './trace-types.js';

/** Options of a `PostgresTelemetryStore`. */
export interface PostgresTelemetryStoreOptions {
  /**
   * The database handle, or how to open it: then the store opens on its first write or read, and a failed
   * opening is tried again by the next one.
   */
  readonly database: PostgresDatabase | (() => Promise<PostgresDatabase>);
  /** Close the handle with the store (default true). */
  readonly closeDatabase?: boolean | undefined;
  /** Where the data is, for messages before the database is open (the URL without its password). */
  readonly location?: string | undefined;
  /** Applied to every text stored, before core's secret-shape redaction (as `TelemetryStore` does). */
  readonly redact?: Redactor | undefined;
  /** Runs whose traces are kept; older ones are deleted as new ones are stored (default 1000). */
  readonly maxRuns?: number | undefined;
  /** Most records and runs written in one transaction (default 500). */
  readonly batchSize?: number | undefined;
  /** How long a write waits for others to share its transaction (default 100 ms). */
  readonly flushDelayMs?: number | undefined;
  /** Most writes kept waiting while the database is away; later ones are dropped and reported (default 10000). */
  readonly maxQueued?: number | undefined;
  /** The first wait before writing again after the database could not be reached (default 1000 ms, doubling up to 30 s). */
  readonly retryDelayMs?: number | undefined;
  /** Told of every write that failed: kept for a retry, or dropped (never with the password). */
  readonly onProblem?: ((message: string) => void) | undefined;
}

/** A write waiting in the queue (its texts already redacted). */
type PendingWrite =
  | { readonly kind: 'record'; readonly record: TelemetryRecord }
  | { readonly kind: 'run'; readonly trace: FinishedTrace };

const MAX_RETRY_DELAY_MS = 30_000;

/**
 * Telemetry records and run traces in PostgreSQL, with the SQLite store's tables, summary, pruning and shapes.
 * Writes are queued and stored in batches in the background (one transaction per batch); a batch the database
 * cannot take is kept and retried with backoff, one it refuses is dropped item by item and reported, and
 * `close()` writes what is still queued. Reads first write what this process queued, so they see it.
 */
export class PostgresTelemetryStore implements TelemetryBackend {
  readonly #open: () => Promise<PostgresDatabase>;
  readonly #closeDatabase: boolean;
  readonly #redact: Redactor;
  readonly #maxRuns: number;
  readonly #queue: WriteQueue<PendingWrite>;
  readonly #onProblem: (message: string) => void;
  readonly #writers = new TelemetryWriters((error) => {
    this.#writeFailures += 1;
    this.#lastWriteError = error;
  });
  #database: PostgresDatabase | undefined;
  #ready: Promise<PostgresDatabase> | undefined;
  #location: string;
  #writeFailures = 0;
  #lastWriteError: unknown;
  #closing: Promise<void> | undefined;

  constructor(options: PostgresTelemetryStoreOptions) {
    const { database } = options;
    this.#open = typeof database === 'function' ? database : () => Promise.resolve(database);
    this.#closeDatabase = options.closeDatabase ?? true;
    this.#location =
      options.location ?? (typeof database === 'function' ? 'PostgreSQL' : database.location);
    const redact = storeRedactor(options.redact);
    // PostgreSQL text cannot hold NUL: it becomes U+FFFD rather than costing the whole write.
    this.#redact = (text) => redact(text).replaceAll('\0', '\uFFFD');
    this.#maxRuns = checkMaxRuns(options.maxRuns, DEFAULT_TRACE_MAX_RUNS);
    this.#onProblem = options.onProblem ?? (() => undefined);
    const retryDelayMs = positive('retryDelayMs', options.retryDelayMs, 1_000);
    this.#queue = new WriteQueue<PendingWrite>({
      write: (batch) => this.#write(batch),
      batchSize: positive('batchSize', options.batchSize, 500),
      flushDelayMs: positive('flushDelayMs', options.flushDelayMs, 100),
      maxQueued: positive('maxQueued', options.maxQueued, 10_000),
      retryDelayMs,
      maxRetryDelayMs: Math.max(retryDelayMs, MAX_RETRY_DELAY_MS),
      classify,
      onFailure: (failure) => this.#failed(failure),
    });
  }

  /** Where the tables are (the URL without its password). */
  get location(): string {
    return this.#location;
  }

  get writeFailures(): number {
    return this.#writeFailures;
  }

  get lastWriteError(): unknown {
    return this.#lastWriteError;
  }

  /** Writes queued and not stored yet. */
  get pendingWrites(): number {
    return this.#queue.size;
  }

  /** Resolves when the database answers and the tables are at the current version (migrating them once). */
  ready(): Promise<PostgresDatabase> {
    this.#ready ??= this.#prepare().catch((error: unknown) => {
      this.#ready = undefined; // the next call tries again
      throw error;
    });
    return this.#ready;
  }

  async #prepare(): Promise<PostgresDatabase> {
    const db = this.#database ?? (await this.#open());
    this.#database = db;
    this.#location = db.location;
    try {
      await migrate(db, TELEMETRY_MIGRATIONS);
    } catch (error) {
      if (StorageError.is(error, 'storage_schema_incompatible')) {
        throw databaseIncompatibleError('telemetry', db.location, error.message);
      }
      throw error;
    }
    return db;
  }

  record(record: TelemetryRecord): void {
    this.#checkOpen();
    checkTelemetryRecord(record);
    const { finishReason: _notStored, error, ...columns } = record;
    const stored: TelemetryRecord = {
      ...columns,
      model: this.#redact(record.model),
      engine: this.#redact(record.engine),
      ...(error === undefined ? {} : { error: this.#redact(error) }),
    };
    this.#push({ kind: 'record', record: stored });
  }

  recordRun(trace: FinishedTrace): void {
    this.#checkOpen();
    this.#push({ kind: 'run', trace: redactTrace(trace, this.#redact) });
  }

  attach(bus: EventBus): () => void {
    return this.#writers.attach(bus, (record) => this.record(record));
  }

  traceSink(): TraceSink {
    return this.#writers.traceSink((trace) => this.recordRun(trace));
  }

  async flush(): Promise<void> {
    await this.#queue.drain();
    if (this.#queue.size > 0) {
      throw new StorageError({
        code: 'storage_unavailable',
        message: `${this.#queue.size} telemetry writes wait for PostgreSQL at ${this.#location}: ${describeError(this.#lastWriteError)}; they are retried`,
        cause: this.#lastWriteError,
      });
    }
  }

  async summary(options: TelemetrySummaryOptions = {}): Promise<readonly TelemetrySummaryEntry[]> {
    const sinceMs = checkSinceMs(options.sinceMs);
    return this.#read((db) => db.query<SummaryRow>(SUMMARY, [sinceMs]));
  }

  async recent(limit = 20): Promise<readonly TelemetryRecord[]> {
    checkRecentLimit(limit);
    const rows = await this.#read((db) => db.query<RecordRow>(RECENT, [limit]));
    return rows.map(recordOf);
  }

  async listRuns(options: ListRunsOptions = {}): Promise<readonly TraceRunSummary[]> {
    const { limit, beforeMs } = checkListRuns(options);
    const rows = await this.#read((db) => db.query<RunRow>(LIST_RUNS, [beforeMs, limit]));
    return rows.map(summaryOf);
  }

  async getRun(id: string): Promise<TraceRun | undefined> {
    // No stored id holds NUL, and PostgreSQL text cannot carry it as a parameter.
    if (id.includes('\0')) return this.#read(async () => undefined);
    return this.#read(async (db) => {
      const [first, second] = await db.query<RunRow>(FIND_RUN, [id]);
      if (first === undefined) return undefined;
      if (second !== undefined && first.id !== id) throw ambiguousRunError(id, first.id, second.id);
      return runOf(db, first);
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    this.#writers.detachAll();
    const left = await this.#queue.close();
    if (this.#closeDatabase) await this.#database?.close();
    if (left > 0) {
      this.#writeFailures += left;
      throw new StorageError({
        code: 'storage_unavailable',
        message: `${left} telemetry writes could not be stored in PostgreSQL at ${this.#location} before closing: ${describeError(this.#lastWriteError)}`,
        cause: this.#lastWriteError,
      });
    }
  }

  /** Runs a read after writing what this process queued (unless the database is away: then at once). */
  async #read<T>(query: (db: PostgresDatabase) => Promise<T>): Promise<T> {
    this.#checkOpen();
    if (!this.#queue.backingOff) await this.#queue.drain();
    return query(await this.ready());
  }

  async #write(batch: readonly PendingWrite[]): Promise<void> {
    const db = await this.ready();
    const records = batch.flatMap((item) => (item.kind === 'record' ? [item.record] : []));
    const runs = batch.flatMap((item) => (item.kind === 'run' ? [item.trace] : []));
    await db.transaction(async (tx) => {
      await insertRecords(tx, records);
      await storeRuns(tx, runs, this.#maxRuns);
    });
  }

  #push(item: PendingWrite): void {
    if (!this.#queue.push(item)) this.#writeFailures += 1;
  }

  #failed({ error, dropped, waiting, retryInMs }: WriteFailure): void {
    this.#lastWriteError = error;
    this.#writeFailures += dropped;
    const fate =
      retryInMs !== undefined
        ? `${waiting} writes wait; retrying in ${retryInMs} ms`
        : dropped > 0
          ? `${dropped} ${dropped === 1 ? 'write was' : 'writes were'} dropped (${waiting} wait)`
          : `${waiting} writes wait`;
    this.#onProblem(
      `telemetry: storing in PostgreSQL at ${this.#location} failed (${describeError(error)}); ${fate}`,
    );
  }

  #checkOpen(): void {
    if (this.#closing !== undefined) {
      throw new JarvisError({
        code: 'telemetry_store_closed',
        message: `the telemetry store at ${this.#location} is closed; create a new PostgresTelemetryStore`,
      });
    }
  }
}

/** A database that could not be reached is waited for; a refused statement is narrowed down to its item. */
function classify(error: unknown): 'retry' | 'isolate' | 'drop' {
  if (StorageError.is(error, 'storage_unavailable')) return 'retry';
  if (StorageError.is(error, 'storage_query_failed')) return 'isolate';
  return 'drop';
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `telemetry ${name} must be a whole number > 0 (got ${String(value)})`,
    });
  }
  return value;
}
