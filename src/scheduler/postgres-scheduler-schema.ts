/** The store name of the scheduler's tables in `jarvis_schema_versions`. */
export const POSTGRES_SCHEDULER_STORE = 'scheduler';

/** The LISTEN/NOTIFY channel on which task creations and changes are announced (payload: the task id). */
export const SCHEDULER_CHANNEL = 'openjarvis_scheduler';

/**
 * The scheduler's PostgreSQL schema steps (`migrate` applies the missing ones; only ever append): the same
 * columns as the SQLite tables, instants as `bigint` milliseconds, `seq` keeping creation order.
 */
export const POSTGRES_SCHEDULER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE scheduler_tasks (
     seq bigserial NOT NULL,
     id text PRIMARY KEY,
     prompt text NOT NULL,
     schedule_type text NOT NULL,
     schedule_value text NOT NULL,
     timezone text NOT NULL DEFAULT 'UTC',
     context_mode text NOT NULL DEFAULT 'isolated',
     status text NOT NULL DEFAULT 'active',
     next_run_ms bigint,
     last_run_ms bigint,
     agent text NOT NULL DEFAULT 'simple',
     tools text NOT NULL DEFAULT '',
     metadata text NOT NULL DEFAULT '{}',
     created_ms bigint NOT NULL,
     created_by text NOT NULL DEFAULT 'person',
     allowed_tools text
   );
   CREATE INDEX scheduler_tasks_due ON scheduler_tasks (status, next_run_ms);
   CREATE INDEX scheduler_tasks_seq ON scheduler_tasks (seq);
   CREATE TABLE scheduler_runs (
     id bigserial PRIMARY KEY,
     task_id text NOT NULL,
     scheduled_ms bigint NOT NULL,
     status text NOT NULL,
     attempt integer NOT NULL DEFAULT 0,
     lease_owner text,
     lease_expires_ms bigint,
     started_ms bigint,
     finished_ms bigint,
     success integer NOT NULL DEFAULT 0,
     result text NOT NULL DEFAULT '',
     error text NOT NULL DEFAULT '',
     UNIQUE (task_id, scheduled_ms)
   );
   CREATE INDEX scheduler_runs_running ON scheduler_runs (lease_expires_ms) WHERE status = 'running';
   CREATE INDEX scheduler_runs_running_task ON scheduler_runs (task_id) WHERE status = 'running';`,
];
