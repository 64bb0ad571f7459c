import type { PostgresQueryable } from '../storage/index.js';
import type { TelemetryRecord } from './telemetry-record.js';
import type { TelemetrySummaryEntry } from './telemetry-summary.js';
import { type SpanRow, spanOf, spanTree } from './trace-tables.js';
import type { FinishedTrace, TraceRun, TraceRunSummary } from './trace-types.js';

// Batches go in as one array parameter per column (`unnest`), so a batch of any size is one statement per table.

const INSERT_RECORDS = `
INSERT INTO telemetry (timestamp_ms, model, engine, prompt_tokens, completion_tokens, total_tokens,
  latency_seconds, ttft_seconds, throughput_tokens_per_second, cost_usd, success, error)
SELECT t, m, e, p, c, tt, l, f, tp, cu, s, er FROM unnest($1::float8[], $2::text[], $3::text[], $4::int8[],
  $5::int8[], $6::int8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::bool[], $12::text[])
  WITH ORDINALITY AS r(t, m, e, p, c, tt, l, f, tp, cu, s, er, n) ORDER BY n`;

const DELETE_SPANS = 'DELETE FROM trace_spans WHERE run_id = ANY($1::text[])';

// A run stored again replaces the old one and counts as the newest (SQLite's INSERT OR REPLACE).
const UPSERT_RUNS = `
INSERT INTO trace_runs (id, started_ms, ended_ms, agent, model, input_length, turns, model_calls, tool_calls,
  prompt_tokens, completion_tokens, latency_seconds, status, error, dropped_spans)
SELECT i, sm, em, a, m, il, t, mc, tc, p, c, l, s, er, d FROM unnest($1::text[], $2::float8[], $3::float8[],
  $4::text[], $5::text[], $6::int8[], $7::int8[], $8::int8[], $9::int8[], $10::int8[], $11::int8[],
  $12::float8[], $13::text[], $14::text[], $15::int8[])
  WITH ORDINALITY AS r(i, sm, em, a, m, il, t, mc, tc, p, c, l, s, er, d, n) ORDER BY n
ON CONFLICT (id) DO UPDATE SET position = DEFAULT, started_ms = EXCLUDED.started_ms,
  ended_ms = EXCLUDED.ended_ms, agent = EXCLUDED.agent, model = EXCLUDED.model,
  input_length = EXCLUDED.input_length, turns = EXCLUDED.turns, model_calls = EXCLUDED.model_calls,
  tool_calls = EXCLUDED.tool_calls, prompt_tokens = EXCLUDED.prompt_tokens,
  completion_tokens = EXCLUDED.completion_tokens, latency_seconds = EXCLUDED.latency_seconds,
  status = EXCLUDED.status, error = EXCLUDED.error, dropped_spans = EXCLUDED.dropped_spans`;

const INSERT_SPANS = `
INSERT INTO trace_spans (run_id, seq, span_id, parent_span_id, kind, name, started_ms, ended_ms, status,
  attributes)
SELECT * FROM unnest($1::text[], $2::int4[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[],
  $8::float8[], $9::text[], $10::text[])`;

const PRUNE = `DELETE FROM trace_runs WHERE id IN (SELECT id FROM trace_runs
  ORDER BY started_ms DESC, position DESC OFFSET $1)`;

/** The SQLite store's summary (see `SUMMARY_SQL`), in PostgreSQL: same nearest-rank p95, same order. */
export const SUMMARY = `
WITH scoped AS (
  SELECT * FROM telemetry WHERE timestamp_ms >= $1::float8
),
ranked AS (
  SELECT model, engine, latency_seconds,
    ROW_NUMBER() OVER (PARTITION BY model, engine ORDER BY latency_seconds) AS position,
    COUNT(*) OVER (PARTITION BY model, engine) AS successes
  FROM scoped WHERE success
),
p95 AS (
  SELECT model, engine, latency_seconds AS p95_latency_seconds
  FROM ranked WHERE position = (95 * successes + 99) / 100
)
SELECT
  scoped.model AS "model",
  scoped.engine AS "engine",
  COUNT(*) AS "calls",
  COUNT(*) FILTER (WHERE NOT scoped.success) AS "failures",
  SUM(scoped.prompt_tokens)::int8 AS "promptTokens",
  SUM(scoped.completion_tokens)::int8 AS "completionTokens",
  SUM(scoped.total_tokens)::int8 AS "totalTokens",
  COALESCE(AVG(scoped.latency_seconds) FILTER (WHERE scoped.success), 0) AS "meanLatencySeconds",
  COALESCE(MAX(p95.p95_latency_seconds), 0) AS "p95LatencySeconds",
  COALESCE(AVG(scoped.ttft_seconds) FILTER (WHERE scoped.success), 0) AS "meanTtftSeconds",
  COALESCE(SUM(scoped.cost_usd), 0) AS "totalCostUsd"
FROM scoped LEFT JOIN p95 ON p95.model = scoped.model AND p95.engine = scoped.engine
GROUP BY scoped.model, scoped.engine
ORDER BY scoped.model COLLATE "C", scoped.engine COLLATE "C"`;

/** The latest `$1` records, newest first. */
export const RECENT = `
SELECT timestamp_ms AS "timestampMs", model, engine, prompt_tokens AS "promptTokens",
  completion_tokens AS "completionTokens", total_tokens AS "totalTokens", latency_seconds AS "latencySeconds",
  ttft_seconds AS "ttftSeconds", throughput_tokens_per_second AS "throughputTokensPerSecond",
  cost_usd AS "costUsd", success, error
FROM telemetry ORDER BY timestamp_ms DESC, id DESC LIMIT $1`;

const RUN_COLUMNS = `id, started_ms AS "startedMs", ended_ms AS "endedMs", agent, model,
  input_length AS "inputLength", turns, model_calls AS "modelCalls", tool_calls AS "toolCalls",
  prompt_tokens AS "promptTokens", completion_tokens AS "completionTokens", latency_seconds AS "latencySeconds",
  status, error, dropped_spans AS "droppedSpans"`;

/** The newest `$2` runs that started before `$1`. */
export const LIST_RUNS = `SELECT ${RUN_COLUMNS} FROM trace_runs WHERE started_ms < $1::float8
  ORDER BY started_ms DESC, position DESC LIMIT $2`;

/** The run with id `$1`, or up to two runs whose id starts with it (4+ characters). */
export const FIND_RUN = `SELECT ${RUN_COLUMNS} FROM trace_runs WHERE id = $1 OR (length($1) >= 4 AND
  starts_with(id, $1)) ORDER BY (id = $1) DESC, id LIMIT 2`;

/** The spans of run `$1` in start order. */
export const RUN_SPANS = `SELECT span_id AS "spanId", parent_span_id AS "parentSpanId", kind, name,
  started_ms AS "startedMs", ended_ms AS "endedMs", status, attributes FROM trace_spans WHERE run_id = $1
  ORDER BY seq`;

/** A row of `RECENT`. */
export type RecordRow = Omit<TelemetryRecord, 'error'> & { readonly error: string | null };
/** A row of `LIST_RUNS` and `FIND_RUN`. */
export type RunRow = Omit<TraceRunSummary, 'error'> & {
  error: string | null;
  droppedSpans: number;
};
/** A row of `SUMMARY`. */
export type SummaryRow = TelemetrySummaryEntry;

/** Inserts redacted records in one statement. */
export async function insertRecords(
  tx: PostgresQueryable,
  records: readonly TelemetryRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const column = <K extends keyof TelemetryRecord>(key: K) => records.map((record) => record[key]);
  await tx.query(INSERT_RECORDS, [
    column('timestampMs'),
    column('model'),
    column('engine'),
    column('promptTokens'),
    column('completionTokens'),
    column('totalTokens'),
    column('latencySeconds'),
    column('ttftSeconds'),
    column('throughputTokensPerSecond'),
    column('costUsd'),
    column('success'),
    records.map((record) => record.error ?? null),
  ]);
}

/**
 * Stores redacted runs (a run id given twice keeps the last), replacing earlier versions with their spans,
 * then keeps only the newest `maxRuns` runs.
 */
export async function storeRuns(
  tx: PostgresQueryable,
  traces: readonly FinishedTrace[],
  maxRuns: number,
): Promise<void> {
  if (traces.length === 0) return;
  const byId = new Map(traces.map((trace) => [trace.summary.id, trace]));
  const runs = [...byId.values()];
  const ids = runs.map((trace) => trace.summary.id);
  await tx.query(DELETE_SPANS, [ids]);
  await tx.query(UPSERT_RUNS, runParams(runs));
  const spans = runs.flatMap((trace) =>
    trace.spans.map((span, seq) => ({ runId: trace.summary.id, seq, span })),
  );
  if (spans.length > 0) {
    await tx.query(INSERT_SPANS, [
      spans.map((s) => s.runId),
      spans.map((s) => s.seq),
      spans.map((s) => s.span.spanId),
      spans.map((s) => s.span.parentSpanId ?? null),
      spans.map((s) => s.span.kind),
      spans.map((s) => s.span.name),
      spans.map((s) => s.span.startedMs),
      spans.map((s) => s.span.endedMs),
      spans.map((s) => s.span.status),
      spans.map((s) => JSON.stringify(s.span.attributes)),
    ]);
  }
  await tx.query(PRUNE, [maxRuns]);
}

function runParams(runs: readonly FinishedTrace[]): unknown[] {
  const column = <K extends keyof TraceRunSummary>(key: K) => runs.map((run) => run.summary[key]);
  return [
    column('id'),
    column('startedMs'),
    column('endedMs'),
    column('agent'),
    column('model'),
    column('inputLength'),
    column('turns'),
    column('modelCalls'),
    column('toolCalls'),
    column('promptTokens'),
    column('completionTokens'),
    column('latencySeconds'),
    column('status'),
    runs.map((run) => run.summary.error ?? null),
    runs.map((run) => run.droppedSpans),
  ];
}

/** A `RECENT` row as a record (`error` only on failed calls, as stored). */
export function recordOf(row: RecordRow): TelemetryRecord {
  const { error, ...fields } = row;
  return error === null ? fields : { ...fields, error };
}

/** A run row as its summary. */
export function summaryOf(row: RunRow): TraceRunSummary {
  const { error, droppedSpans: _dropped, ...fields } = row;
  return {
    ...fields,
    status: fields.status === 'ok' ? 'ok' : 'error',
    ...(error === null ? {} : { error }),
  };
}

/** Reads the spans of the run `row` as a tree. */
export async function runOf(db: PostgresQueryable, row: RunRow): Promise<TraceRun> {
  const spans = (await db.query<SpanRow>(RUN_SPANS, [row.id])).map(spanOf);
  return { ...summaryOf(row), spans: spanTree(spans), droppedSpans: row.droppedSpans };
}
