import { type EventBus, JarvisError, type Redactor } from '../core/index.js';
import { findTelemetryRecordProblem, type TelemetryRecord } from './telemetry-record.js';
import { redactTrace, storeRedactor } from './telemetry-redaction.js';
import {
  openTelemetryDatabase,
  type SqliteDatabase,
  type SqliteStatement,
} from './telemetry-schema.js';
import {
  SUMMARY_SQL,
  type TelemetrySummaryEntry,
  type TelemetrySummaryOptions,
} from './telemetry-summary.js';
import { TelemetryWriters } from './telemetry-writers.js';
import { type ListRunsOptions, TraceTables } from './trace-tables.js';
import type { FinishedTrace, TraceRun, TraceRunSummary, TraceSink } from './trace-types.js';

/** Options of a `TelemetryStore`. */
export interface TelemetryStoreOptions {
  /** The SQLite file (its folders are created), or `:memory:`. */
  readonly dbPath: string;
  /**
   * Applied to every text stored (model, engine, error), e.g. core's `createRedactor(configSecrets(...))` so
   * configured keys never reach the file; core's secret-shape redaction (bearer tokens, `api_key=...`, `sk-...`)
   * is applied after it in any case.
   */
  readonly redact?: Redactor;
  /** Runs whose traces are kept; older ones are deleted as new ones are stored (default 1000). */
  readonly maxRuns?: number;
}

/** Runs kept when `maxRuns` is not given. */
export const DEFAULT_TRACE_MAX_RUNS = 1000;

const INSERT_SQL = `
INSERT INTO telemetry (timestamp_ms, model, engine, prompt_tokens, completion_tokens, total_tokens,
  latency_seconds, ttft_seconds, throughput_tokens_per_second, cost_usd, success, error)
VALUES (@timestampMs, @model, @engine, @promptTokens, @completionTokens, @totalTokens,
  @latencySeconds, @ttftSeconds, @throughputTokensPerSecond, @costUsd, @success, @error)
`;

const RECENT_SQL = `
SELECT timestamp_ms AS timestampMs, model, engine, prompt_tokens AS promptTokens,
  completion_tokens AS completionTokens, total_tokens AS totalTokens, latency_seconds AS latencySeconds,
  ttft_seconds AS ttftSeconds, throughput_tokens_per_second AS throughputTokensPerSecond,
  cost_usd AS costUsd, success, error
FROM telemetry ORDER BY timestamp_ms DESC, id DESC LIMIT ?
`;

/** A row of `RECENT_SQL`. */
type RecordRow = Omit<TelemetryRecord, 'success' | 'error'> & {
  readonly success: number;
  readonly error: string | null;
};

interface Statements {
  readonly insert: SqliteStatement;
  readonly summary: SqliteStatement;
  readonly recent: SqliteStatement;
}

/** Stores telemetry records in SQLite (one row per model call) and answers per-model summaries. */
export class TelemetryStore {
  readonly dbPath: string;
  #db: SqliteDatabase | undefined;
  readonly #statements: Statements;
  readonly #writers = new TelemetryWriters((error) => {
    this.#writeFailures += 1;
    this.#lastWriteError = error;
  });
  #writeFailures = 0;
  #lastWriteError: unknown;
  readonly #redact: Redactor;
  readonly #traces: TraceTables;
  readonly #maxRuns: number;
  readonly #writeBatch: (
    records: readonly TelemetryRecord[],
    runs: readonly FinishedTrace[],
  ) => void;

  /** Opens or creates the database; throws a `JarvisError` naming the file when it cannot be used. */
  constructor(options: TelemetryStoreOptions) {
    this.dbPath = options.dbPath;
    this.#redact = storeRedactor(options.redact);
    this.#maxRuns = options.maxRuns ?? DEFAULT_TRACE_MAX_RUNS;
    if (!Number.isSafeInteger(this.#maxRuns) || this.#maxRuns < 0) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `telemetry maxRuns must be a whole number >= 0 (got ${String(options.maxRuns)})`,
      });
    }
    const db = openTelemetryDatabase(options.dbPath);
    this.#db = db;
    this.#traces = new TraceTables(db);
    this.#statements = {
      insert: db.prepare(INSERT_SQL),
      summary: db.prepare(SUMMARY_SQL),
      recent: db.prepare(RECENT_SQL),
    };
    this.#writeBatch = db.transaction(
      (records: readonly TelemetryRecord[], runs: readonly FinishedTrace[]) => {
        for (const record of records) this.#insertRecord(record);
        for (const run of runs) this.#traces.insert(redactTrace(run, this.#redact));
        if (runs.length > 0) this.#traces.prune(this.#maxRuns);
      },
    );
  }

  /** How many records from the bus could not be stored (invalid payloads and write errors). */
  get writeFailures(): number {
    return this.#writeFailures;
  }

  /** The latest error behind `writeFailures`, or undefined when there was none. */
  get lastWriteError(): unknown {
    return this.#lastWriteError;
  }

  /** Stores one record, its texts redacted; throws a `JarvisError` for an invalid record or a closed store. */
  record(record: TelemetryRecord): void {
    this.#open();
    this.#insertRecord(record);
  }

  /**
   * Stores records and finished runs in one transaction (checked and redacted as `record` and `recordRun` do,
   * runs pruned to `maxRuns` once): all or nothing, so one commit stands for a whole batch. Throws a
   * `JarvisError` for an invalid record or a closed store, or the database's error; nothing is stored then.
   */
  writeBatch(records: readonly TelemetryRecord[], runs: readonly FinishedTrace[]): void {
    this.#open();
    this.#writeBatch(records, runs);
  }

  #insertRecord(record: TelemetryRecord): void {
    const problem = findTelemetryRecordProblem(record);
    if (problem !== undefined) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `invalid telemetry record: ${problem}`,
      });
    }
    const { finishReason: _stored, ...columns } = record;
    this.#statements.insert.run({
      ...columns,
      model: this.#redact(record.model),
      engine: this.#redact(record.engine),
      success: record.success ? 1 : 0,
      error: record.error === undefined ? null : this.#redact(record.error),
    });
  }

  /**
   * Stores every `telemetry_record` published on `bus`; returns a function that stops it. A record that
   * cannot be stored never throws into the publisher: it is counted in `writeFailures` instead.
   */
  attach(bus: EventBus): () => void {
    return this.#writers.attach(bus, (record) => this.record(record));
  }

  /** Calls, failures, tokens, latency, time to first token and cost per model and engine. */
  summary(options: TelemetrySummaryOptions = {}): readonly TelemetrySummaryEntry[] {
    this.#open();
    const sinceMs = options.sinceMs ?? Number.NEGATIVE_INFINITY;
    if (Number.isNaN(sinceMs)) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: 'summary sinceMs must be a number of milliseconds since the Unix epoch',
      });
    }
    return this.#statements.summary.all({ sinceMs }) as TelemetrySummaryEntry[];
  }

  /** The latest `limit` records, newest first. */
  recent(limit = 20): readonly TelemetryRecord[] {
    this.#open();
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `recent limit must be a whole number >= 0 (got ${String(limit)})`,
      });
    }
    const rows = this.#statements.recent.all(limit) as RecordRow[];
    return rows.map(rowToRecord);
  }

  /**
   * Stores a finished run's trace (its texts were redacted by the tracer; the configured redaction runs again
   * here), keeping the newest `maxRuns` runs.
   */
  recordRun(trace: FinishedTrace): void {
    this.#open();
    this.#traces.store(redactTrace(trace, this.#redact), this.#maxRuns);
  }

  /** A tracer sink that stores every finished run; a run that cannot be stored is counted in `writeFailures`. */
  traceSink(): TraceSink {
    return this.#writers.traceSink((trace) => this.recordRun(trace));
  }

  /** Stored runs, newest first (`limit` default 20; `beforeMs` pages on). */
  listRuns(options: ListRunsOptions = {}): readonly TraceRunSummary[] {
    this.#open();
    return this.#traces.list(options);
  }

  /** One stored run with its spans as a tree (by id, or a unique prefix of 4+ characters); undefined if none. */
  getRun(id: string): TraceRun | undefined {
    this.#open();
    return this.#traces.get(id);
  }

  /** Detaches from every bus and closes the database; calling it again does nothing. */
  close(): void {
    this.#writers.detachAll();
    this.#db?.close();
    this.#db = undefined;
  }

  #open(): SqliteDatabase {
    if (this.#db === undefined) {
      throw new JarvisError({
        code: 'telemetry_store_closed',
        message: `the telemetry store for ${this.dbPath} is closed; create a new TelemetryStore`,
      });
    }
    return this.#db;
  }
}

function rowToRecord(row: RecordRow): TelemetryRecord {
  const { success, error, ...fields } = row;
  const record: TelemetryRecord = { ...fields, success: success === 1 };
  return error === null ? record : { ...record, error };
}
