import type { MigrationPlan } from '../storage/index.js';

/**
 * The telemetry tables in PostgreSQL, by version (append only): the SQLite store's `telemetry`, `trace_runs`
 * and `trace_spans` with the same columns; `id` and `position` order rows stored in the same millisecond, as
 * SQLite's rowid does. Span attributes stay JSON text, so they read back exactly as they were written.
 */
export const TELEMETRY_MIGRATIONS: MigrationPlan = {
  store: 'telemetry',
  migrations: [
    `CREATE TABLE telemetry (
       id bigserial PRIMARY KEY,
       timestamp_ms double precision NOT NULL,
       model text NOT NULL,
       engine text NOT NULL DEFAULT '',
       prompt_tokens bigint NOT NULL DEFAULT 0,
       completion_tokens bigint NOT NULL DEFAULT 0,
       total_tokens bigint NOT NULL DEFAULT 0,
       latency_seconds double precision NOT NULL DEFAULT 0,
       ttft_seconds double precision NOT NULL DEFAULT 0,
       throughput_tokens_per_second double precision NOT NULL DEFAULT 0,
       cost_usd double precision NOT NULL DEFAULT 0,
       success boolean NOT NULL DEFAULT true,
       error text
     );
     CREATE INDEX telemetry_timestamp_ms_index ON telemetry (timestamp_ms);
     CREATE INDEX telemetry_model_index ON telemetry (model, engine);
     CREATE TABLE trace_runs (
       id text PRIMARY KEY,
       position bigserial NOT NULL,
       started_ms double precision NOT NULL,
       ended_ms double precision NOT NULL,
       agent text NOT NULL,
       model text NOT NULL DEFAULT '',
       input_length bigint NOT NULL DEFAULT 0,
       turns bigint NOT NULL DEFAULT 0,
       model_calls bigint NOT NULL DEFAULT 0,
       tool_calls bigint NOT NULL DEFAULT 0,
       prompt_tokens bigint NOT NULL DEFAULT 0,
       completion_tokens bigint NOT NULL DEFAULT 0,
       latency_seconds double precision NOT NULL DEFAULT 0,
       status text NOT NULL,
       error text,
       dropped_spans bigint NOT NULL DEFAULT 0
     );
     CREATE INDEX trace_runs_started_ms_index ON trace_runs (started_ms DESC, position DESC);
     CREATE TABLE trace_spans (
       run_id text NOT NULL REFERENCES trace_runs (id) ON DELETE CASCADE,
       seq integer NOT NULL,
       span_id text NOT NULL,
       parent_span_id text,
       kind text NOT NULL,
       name text NOT NULL,
       started_ms double precision NOT NULL,
       ended_ms double precision NOT NULL,
       status text NOT NULL,
       attributes text NOT NULL,
       PRIMARY KEY (run_id, seq)
     )`,
  ],
};
