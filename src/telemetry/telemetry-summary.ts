/** Aggregates of the recorded calls of one model on one engine. */
export interface TelemetrySummaryEntry {
  readonly model: string;
  readonly engine: string;
  /** Every recorded call, failed ones included. */
  readonly calls: number;
  readonly failures: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Mean latency of the successful calls (0 when none succeeded). */
  readonly meanLatencySeconds: number;
  /** 95th percentile latency of the successful calls by the nearest-rank method (0 when none succeeded). */
  readonly p95LatencySeconds: number;
  /** Mean time to first token of the successful calls (0 when none succeeded). */
  readonly meanTtftSeconds: number;
  readonly totalCostUsd: number;
}

/** Options of `TelemetryStore.summary`. */
export interface TelemetrySummaryOptions {
  /** Only calls that started at or after this instant (milliseconds since the Unix epoch). */
  readonly sinceMs?: number;
}

/**
 * One row per model and engine, ordered by both; takes `@sinceMs`. Latency and time-to-first-token
 * statistics cover successful calls only, because a refused connection says nothing about model speed.
 * The p95 is nearest-rank: the value at position ceil(0.95 * n) of the sorted latencies, with ceil done in
 * integer arithmetic as (95n + 99) / 100.
 */
export const SUMMARY_SQL = `
WITH scoped AS (
  SELECT * FROM telemetry WHERE timestamp_ms >= @sinceMs
),
ranked AS (
  SELECT model, engine, latency_seconds,
    ROW_NUMBER() OVER (PARTITION BY model, engine ORDER BY latency_seconds) AS position,
    COUNT(*) OVER (PARTITION BY model, engine) AS successes
  FROM scoped WHERE success = 1
),
p95 AS (
  SELECT model, engine, latency_seconds AS p95_latency_seconds
  FROM ranked WHERE position = (95 * successes + 99) / 100
)
SELECT
  scoped.model AS model,
  scoped.engine AS engine,
  COUNT(*) AS calls,
  COUNT(*) - SUM(scoped.success) AS failures,
  SUM(scoped.prompt_tokens) AS promptTokens,
  SUM(scoped.completion_tokens) AS completionTokens,
  SUM(scoped.total_tokens) AS totalTokens,
  COALESCE(AVG(CASE WHEN scoped.success = 1 THEN scoped.latency_seconds END), 0) AS meanLatencySeconds,
  COALESCE(MAX(p95.p95_latency_seconds), 0) AS p95LatencySeconds,
  COALESCE(AVG(CASE WHEN scoped.success = 1 THEN scoped.ttft_seconds END), 0) AS meanTtftSeconds,
  TOTAL(scoped.cost_usd) AS totalCostUsd
FROM scoped LEFT JOIN p95 ON p95.model = scoped.model AND p95.engine = scoped.engine
GROUP BY scoped.model, scoped.engine
ORDER BY scoped.model, scoped.engine
`;
