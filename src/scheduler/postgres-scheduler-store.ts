import {
  migrate,
  type OpenPostgresOptions,
  openPostgres,
  type PostgresDatabase,
  type PostgresQueryable,
} from '../storage/index.js';
import { formatIsoSeconds } from './instant.js';
import {
  POSTGRES_SCHEDULER_MIGRATIONS,
  POSTGRES_SCHEDULER_STORE,
  SCHEDULER_CHANNEL,
} from './postgres-scheduler-schema.js';
import { SchedulerError } from './scheduler-error.js';
import type {
  ClaimDueOptions,
  CompleteRunOptions,
  DeletedTask,
  LeaseOptions,
  TaskChange,
} from './scheduler-store.js';
import type {
  ClaimDueNowOptions,
  ClaimRound,
  CompletionNow,
  SchedulerStoreBackend,
} from './scheduler-store-backend.js';
import { type RunRow, runFromRow, type TaskRow, taskColumns, taskFromRow } from './store-rows.js';
import {
  MINUTE_MS,
  planDueTask,
  rateLimitApplies,
  rateLimitedPlan,
  type TaskPlan,
} from './task-claim-plan.js';
import type { RunClaim, ScheduledTask, TaskRun, TaskStatus } from './task-types.js';

/** Options of `PostgresSchedulerStore`. */
export interface PostgresSchedulerStoreOptions {
  /**
   * The database handle, or how to open it: then the store opens on its first call (which waits), and a failed
   * opening is tried again by the next call.
   */
  readonly database: PostgresDatabase | (() => Promise<PostgresDatabase>);
  /** Close the handle with the store (default true). */
  readonly closeDatabase?: boolean;
}

const INSERT_TASK = `WITH saved AS (
  INSERT INTO scheduler_tasks (id, prompt, schedule_type, schedule_value, timezone, context_mode, status,
    next_run_ms, last_run_ms, agent, tools, metadata, created_ms, created_by, allowed_tools)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id)
SELECT pg_notify('${SCHEDULER_CHANNEL}', id) FROM saved`;

const NOTIFY = `SELECT pg_notify('${SCHEDULER_CHANNEL}', $1)`;

type Tx = PostgresQueryable;

/** The database clock in whole milliseconds, as `PostgresDatabase.now()` reads it. */
const CLOCK_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** Due tasks nobody runs (the `scheduler_tasks_due` index walk, as `nextWakeMs` uses it). */
const DUE_FREE = `status = 'active' AND next_run_ms IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM scheduler_runs r WHERE r.task_id = s.id AND r.status = 'running')`;

/**
 * One round trip of a claim: the database clock; due tasks nobody holds, locked (`SKIP LOCKED`, so concurrent
 * workers take different ones); whether an expired lease waits; how many tasks are due in all (up to $1 + 1,
 * locked elsewhere or not); and the earliest future due time or lease expiry (for the next wake-up). The time
 * is $2 when given, else the database clock's.
 */
const CLAIM_READ = `WITH clock AS (SELECT coalesce($2::bigint, ${CLOCK_MS}) AS now_ms),
due AS (
  SELECT s.* FROM scheduler_tasks s, clock WHERE ${DUE_FREE} AND s.next_run_ms <= clock.now_ms
  ORDER BY s.next_run_ms LIMIT $1 FOR UPDATE OF s SKIP LOCKED)
SELECT clock.now_ms,
  (SELECT coalesce(json_agg(due), '[]'::json) FROM due) AS due,
  EXISTS (SELECT 1 FROM scheduler_runs WHERE status = 'running' AND lease_expires_ms <= clock.now_ms) AS expired,
  (SELECT count(*)::int FROM (SELECT 1 FROM scheduler_tasks s WHERE ${DUE_FREE}
     AND s.next_run_ms <= clock.now_ms LIMIT $1 + 1) AS any_due) AS due_count,
  LEAST(
    (SELECT s.next_run_ms FROM scheduler_tasks s WHERE ${DUE_FREE} AND s.next_run_ms > clock.now_ms
     ORDER BY s.next_run_ms LIMIT 1),
    (SELECT MIN(lease_expires_ms) FROM scheduler_runs WHERE status = 'running')) AS next_ms
FROM clock`;

interface ClaimReadRow {
  readonly now_ms: number;
  readonly due: TaskRow[];
  readonly expired: boolean;
  readonly due_count: number;
  readonly next_ms: number | null;
}

/** The runs-per-minute look-up of several tasks at once: the scheduled time at the limit's offset, per task. */
const RATE_READ = `SELECT p.task_id, x.scheduled_ms
FROM unnest($1::text[], $2::bigint[]) AS p(task_id, run_ms)
CROSS JOIN LATERAL (
  SELECT scheduled_ms FROM scheduler_runs WHERE task_id = p.task_id AND scheduled_ms > p.run_ms - ${MINUTE_MS}
    AND status NOT IN ('missed', 'skipped')
  ORDER BY scheduled_ms DESC LIMIT 1 OFFSET $3) AS x`;

/**
 * Writes a planned batch in one statement: the run-log entries (missed, skipped, failed), each task's next due
 * time, and the claims with their leases. A task with an occurrence running by now (a manual run committed
 * after the read's snapshot; this is a fresh one) is left alone, as the row-by-row claim did.
 */
const CLAIM_WRITE = `WITH busy AS (
  SELECT DISTINCT task_id FROM scheduler_runs WHERE task_id = ANY($1::text[]) AND status = 'running'),
logged AS (
  INSERT INTO scheduler_runs (task_id, scheduled_ms, status, finished_ms, error)
  SELECT l.task_id, l.scheduled_ms, l.status, $9, l.error
  FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[]) AS l(task_id, scheduled_ms, status, error)
  WHERE l.task_id NOT IN (SELECT task_id FROM busy)
  ON CONFLICT (task_id, scheduled_ms) DO NOTHING),
moved AS (
  UPDATE scheduler_tasks t SET next_run_ms = m.next_run_ms,
    status = CASE WHEN m.completed THEN 'completed' ELSE t.status END
  FROM unnest($1::text[], $6::bigint[], $7::boolean[]) AS m(id, next_run_ms, completed)
  WHERE t.id = m.id AND m.id NOT IN (SELECT task_id FROM busy))
INSERT INTO scheduler_runs (task_id, scheduled_ms, status, attempt, lease_owner, lease_expires_ms, started_ms)
SELECT c.task_id, c.run_ms, 'running', 1, $10, $9::bigint + $11::bigint, $9
FROM unnest($1::text[], $8::bigint[]) AS c(task_id, run_ms)
WHERE c.run_ms IS NOT NULL AND c.task_id NOT IN (SELECT task_id FROM busy)
ON CONFLICT (task_id, scheduled_ms) DO NOTHING RETURNING *`;

/**
 * Records several outcomes in one statement: their tasks are locked first, in id order (the one-time filter
 * runs before any run row is touched; every waiting writer locks tasks before runs, so none deadlock), then
 * each run held by its owner is finished (at its entry's time, or the database clock's when that is NULL) and
 * its task's last run time set (a task without a next due time is completed).
 */
const COMPLETE = `WITH entry AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::bigint[])
    AS e(run_id, owner, success, result, error, now_ms)),
locked AS (
  SELECT t.id FROM scheduler_tasks t
  WHERE t.id IN (SELECT task_id FROM scheduler_runs WHERE id = ANY($1::bigint[]))
  ORDER BY t.id FOR UPDATE OF t),
clock AS (SELECT ${CLOCK_MS} AS now_ms),
done AS (
  UPDATE scheduler_runs r SET status = CASE WHEN e.success THEN 'succeeded' ELSE 'failed' END,
    finished_ms = coalesce(e.now_ms, clock.now_ms), success = CASE WHEN e.success THEN 1 ELSE 0 END,
    result = e.result, error = e.error, lease_owner = NULL, lease_expires_ms = NULL
  FROM entry e, clock
  WHERE r.id = e.run_id AND r.status = 'running' AND r.lease_owner = e.owner
    AND (SELECT count(*) FROM locked) >= 0
  RETURNING r.id, r.task_id, coalesce(e.now_ms, clock.now_ms) AS finished_ms),
ran AS (
  UPDATE scheduler_tasks t SET last_run_ms = d.finished_ms,
    status = CASE WHEN t.status IN ('active', 'paused') AND t.next_run_ms IS NULL THEN 'completed'
      ELSE t.status END
  FROM (SELECT task_id, max(finished_ms) AS finished_ms FROM done GROUP BY task_id) AS d
  WHERE t.id = d.task_id)
SELECT id FROM done`;

async function lockedTask(tx: Tx, id: string): Promise<ScheduledTask> {
  const [row] = await tx.query<TaskRow>('SELECT * FROM scheduler_tasks WHERE id = $1 FOR UPDATE', [
    id,
  ]);
  if (row === undefined) throw new SchedulerError('task_not_found', `Task not found: ${id}`);
  return taskFromRow(row);
}

async function hasRunning(tx: Tx, taskId: string, liveAtMs?: number): Promise<RunRow | undefined> {
  const rows = await tx.query<RunRow>(
    liveAtMs === undefined
      ? "SELECT * FROM scheduler_runs WHERE task_id = $1 AND status = 'running' LIMIT 1"
      : "SELECT * FROM scheduler_runs WHERE task_id = $1 AND status = 'running' AND lease_expires_ms > $2 LIMIT 1",
    liveAtMs === undefined ? [taskId] : [taskId, liveAtMs],
  );
  return rows[0];
}

async function insertClaim(
  tx: Tx,
  taskId: string,
  scheduledMs: number,
  lease: LeaseOptions,
): Promise<TaskRun | undefined> {
  const rows = await tx.query<RunRow>(
    `INSERT INTO scheduler_runs (task_id, scheduled_ms, status, attempt, lease_owner, lease_expires_ms, started_ms)
     VALUES ($1, $2, 'running', 1, $3, $4, $5) ON CONFLICT (task_id, scheduled_ms) DO NOTHING RETURNING *`,
    [taskId, scheduledMs, lease.owner, lease.nowMs + lease.leaseMs, lease.nowMs],
  );
  return rows[0] === undefined ? undefined : runFromRow(rows[0]);
}

async function finishRun(
  tx: Tx,
  runId: number,
  outcome: { nowMs: number; success: boolean; result: string; error: string },
): Promise<void> {
  await tx.query(
    `UPDATE scheduler_runs SET status = $1, finished_ms = $2, success = $3, result = $4, error = $5,
       lease_owner = NULL, lease_expires_ms = NULL WHERE id = $6`,
    [
      outcome.success ? 'succeeded' : 'failed',
      outcome.nowMs,
      outcome.success ? 1 : 0,
      outcome.result,
      outcome.error,
      runId,
    ],
  );
}

async function afterRun(tx: Tx, taskId: string, nowMs: number): Promise<void> {
  await tx.query(
    `UPDATE scheduler_tasks SET last_run_ms = $1,
       status = CASE WHEN status IN ('active', 'paused') AND next_run_ms IS NULL THEN 'completed' ELSE status END
     WHERE id = $2`,
    [nowMs, taskId],
  );
}

/**
 * When to look again after a claim: now when due work is left (locked elsewhere, or beyond the limit); else
 * the earliest of the next future due time, the claimed tasks' new due times and the leases (ours included).
 */
function nextWake(
  read: ClaimReadRow,
  plans: readonly TaskPlan[],
  claimed: number,
  options: ClaimDueOptions,
): number | undefined {
  if (read.due_count > read.due.length) return options.nowMs;
  const candidates = [
    ...(read.next_ms === null ? [] : [Number(read.next_ms)]),
    ...plans.flatMap((plan) => (plan.nextRunMs === undefined ? [] : [plan.nextRunMs])),
    ...(claimed > 0 ? [options.nowMs + options.leaseMs] : []),
  ];
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}

/** The parameters of `CLAIM_WRITE` for `plans`. */
function claimWriteParams(plans: readonly TaskPlan[], options: ClaimDueOptions): unknown[] {
  const logs = plans.flatMap((plan) => plan.logs.map((log) => ({ ...log, taskId: plan.task.id })));
  return [
    plans.map((plan) => plan.task.id),
    logs.map((log) => log.taskId),
    logs.map((log) => log.scheduledMs),
    logs.map((log) => log.status),
    logs.map((log) => log.error),
    plans.map((plan) => plan.nextRunMs ?? null),
    plans.map((plan) => plan.completed),
    plans.map((plan) => plan.runMs ?? null),
    options.nowMs,
    options.owner,
    options.leaseMs,
  ];
}

/**
 * The scheduler's tasks and run log in PostgreSQL, shared by scheduler processes on many machines: each
 * occurrence is one row per task and scheduled time, claimed once under `FOR UPDATE SKIP LOCKED` with a lease;
 * an expired lease is claimed again (same occurrence, next attempt) or given up per `maxAttempts`; the
 * database's clock is the reference time; task creations and changes are announced with NOTIFY.
 */
export class PostgresSchedulerStore implements SchedulerStoreBackend {
  readonly #open: () => Promise<PostgresDatabase>;
  readonly #closeDatabase: boolean;
  #database: PostgresDatabase | undefined;
  #ready: Promise<PostgresDatabase> | undefined;
  #closed = false;
  #location = 'PostgreSQL';

  constructor(options: PostgresSchedulerStoreOptions) {
    const { database } = options;
    this.#open = typeof database === 'function' ? database : () => Promise.resolve(database);
    this.#closeDatabase = options.closeDatabase ?? true;
  }

  /** Opens a pool on `url`, brings the scheduler tables to the current version and returns the store. */
  static async open(options: OpenPostgresOptions): Promise<PostgresSchedulerStore> {
    const store = new PostgresSchedulerStore({ database: () => openPostgres(options) });
    try {
      await store.ready();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Where the tables are (the URL without its password). */
  get location(): string {
    return this.#location;
  }

  /** Resolves when the database answers and the tables are at the current version (migrating them once). */
  ready(): Promise<PostgresDatabase> {
    if (this.#closed) return this.#prepare(); // refuses
    this.#ready ??= this.#prepare();
    return this.#ready;
  }

  async #prepare(): Promise<PostgresDatabase> {
    try {
      this.#checkOpen();
      const db = this.#database ?? (await this.#open());
      this.#database = db;
      this.#location = db.location;
      this.#checkOpen(); // closed while opening: close() ends the handle
      await migrate(db, {
        store: POSTGRES_SCHEDULER_STORE,
        migrations: POSTGRES_SCHEDULER_MIGRATIONS,
      });
      return db;
    } catch (error) {
      this.#ready = undefined; // the next call tries again
      throw error;
    }
  }

  async #query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.ready()).query<T>(sql, params);
  }

  async #transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return (await this.ready()).transaction(fn);
  }

  async insertTask(task: ScheduledTask): Promise<void> {
    await this.#query(INSERT_TASK, taskColumns(task));
  }

  async deleteTask(id: string, nowMs: number): Promise<DeletedTask> {
    return this.#transaction(async (tx) => {
      const task = await lockedTask(tx, id);
      const running = await hasRunning(tx, id, nowMs);
      if (running !== undefined) {
        const since =
          running.started_ms === null ? '' : ` since ${formatIsoSeconds(running.started_ms)}`;
        throw new SchedulerError(
          'task_running',
          `Task ${id} is running now${since}; it was not deleted. Wait for the run to end (or stop the scheduler running it), then delete it again; \`cancel\` stops further runs meanwhile`,
        );
      }
      const runs = await tx.query('DELETE FROM scheduler_runs WHERE task_id = $1 RETURNING id', [
        id,
      ]);
      await tx.query('DELETE FROM scheduler_tasks WHERE id = $1', [id]);
      await tx.query(NOTIFY, [id]);
      return { task, runsDeleted: runs.length };
    });
  }

  async getTask(id: string): Promise<ScheduledTask | undefined> {
    const [row] = await this.#query<TaskRow>('SELECT * FROM scheduler_tasks WHERE id = $1', [id]);
    return row === undefined ? undefined : taskFromRow(row);
  }

  async listTasks(status?: TaskStatus): Promise<ScheduledTask[]> {
    const rows =
      status === undefined
        ? await this.#query<TaskRow>('SELECT * FROM scheduler_tasks ORDER BY seq')
        : await this.#query<TaskRow>(
            'SELECT * FROM scheduler_tasks WHERE status = $1 ORDER BY seq',
            [status],
          );
    return rows.map(taskFromRow);
  }

  async updateTask(
    id: string,
    change: (task: ScheduledTask) => TaskChange,
  ): Promise<ScheduledTask> {
    return this.#transaction(async (tx) => {
      const task = await lockedTask(tx, id);
      const patch = change(task);
      const updated: ScheduledTask = {
        ...task,
        ...(patch.status === undefined ? {} : { status: patch.status }),
        ...('nextRunMs' in patch ? { nextRunMs: patch.nextRunMs } : {}),
      };
      await tx.query('UPDATE scheduler_tasks SET status = $1, next_run_ms = $2 WHERE id = $3', [
        updated.status,
        updated.nextRunMs ?? null,
        id,
      ]);
      await tx.query(NOTIFY, [id]);
      return updated;
    });
  }

  async claimDue(options: ClaimDueOptions): Promise<RunClaim[]> {
    return (await this.#transaction((tx) => this.#claimRound(tx, options, options.nowMs))).claims;
  }

  /** `claimDue` at the database clock, read by the claiming statement, with the next wake-up: one transaction. */
  async claimDueNow(options: ClaimDueNowOptions): Promise<ClaimRound> {
    return this.#transaction((tx) => this.#claimRound(tx, options, undefined));
  }

  /**
   * One claim: a read (clock, due tasks locked, what is left), the misfire policy and rate limit planned here,
   * then one write for the whole batch. An expired lease (a process died) sends the round down the row-by-row
   * path, which retries or gives up those occurrences first.
   */
  async #claimRound(
    tx: Tx,
    options: ClaimDueNowOptions,
    givenNowMs: number | undefined,
  ): Promise<ClaimRound> {
    const [read] = await tx.query<ClaimReadRow>(CLAIM_READ, [options.limit, givenNowMs ?? null]);
    if (read === undefined) throw new SchedulerError('scheduler_unavailable', 'no claim read');
    const full: ClaimDueOptions = { ...options, nowMs: Number(read.now_ms) };
    const reclaimed = read.expired ? await this.#reclaimExpired(tx, full) : [];
    const due = read.due.slice(0, Math.max(0, full.limit - reclaimed.length));
    const plans = await this.#rateLimit(
      tx,
      due.map((row) => planDueTask(taskFromRow(row), full)),
      full,
    );
    const claims = plans.length === 0 ? [] : await this.#writePlans(tx, plans, full);
    // After a lease expired (rare: a process died) the next round looks again at once.
    const nextWakeMs = read.expired ? full.nowMs : nextWake(read, plans, claims.length, full);
    return { claims: [...reclaimed, ...claims], nowMs: full.nowMs, nextWakeMs };
  }

  /** Applies the runs-per-minute limit (see `rateLimitedPlan`) to every recurring plan with one look-up. */
  async #rateLimit(
    tx: Tx,
    plans: readonly TaskPlan[],
    options: ClaimDueOptions,
  ): Promise<TaskPlan[]> {
    const limit = options.maxRunsPerTaskPerMinute;
    const limited = plans.filter((plan) => rateLimitApplies(plan, limit));
    if (limit === undefined || limited.length === 0) return [...plans];
    const rows = await tx.query<{ task_id: string; scheduled_ms: number }>(RATE_READ, [
      limited.map((plan) => plan.task.id),
      limited.map((plan) => plan.runMs),
      Math.max(0, Math.floor(limit) - 1),
    ]);
    const oldest = new Map(rows.map((row) => [row.task_id, Number(row.scheduled_ms)]));
    return plans.map((plan) => {
      const oldestMs = oldest.get(plan.task.id);
      if (oldestMs === undefined || plan.schedule === undefined) return plan;
      return rateLimitedPlan(plan, plan.schedule, oldestMs, limit);
    });
  }

  /** Writes the batch (`CLAIM_WRITE`) and returns the claims in due order. */
  async #writePlans(
    tx: Tx,
    plans: readonly TaskPlan[],
    options: ClaimDueOptions,
  ): Promise<RunClaim[]> {
    const rows = await tx.query<RunRow>(CLAIM_WRITE, claimWriteParams(plans, options));
    const byTask = new Map(rows.map((row) => [row.task_id, row]));
    const claims: RunClaim[] = [];
    for (const plan of plans) {
      const row = byTask.get(plan.task.id);
      if (row !== undefined)
        claims.push({ run: runFromRow(row), task: { ...plan.task, nextRunMs: plan.nextRunMs } });
    }
    return claims;
  }

  /** Occurrences whose lease expired (their process died): the next attempt, or given up. */
  async #reclaimExpired(tx: Tx, options: ClaimDueOptions): Promise<RunClaim[]> {
    const rows = await tx.query<RunRow>(
      `SELECT r.* FROM scheduler_runs r JOIN scheduler_tasks t ON t.id = r.task_id
       WHERE r.status = 'running' AND r.lease_expires_ms <= $1
       ORDER BY r.lease_expires_ms LIMIT $2 FOR UPDATE OF r, t SKIP LOCKED`,
      [options.nowMs, options.limit],
    );
    const claims: RunClaim[] = [];
    for (const row of rows) {
      const task = await lockedTask(tx, row.task_id);
      if (task.status === 'cancelled' || row.attempt >= options.maxAttempts) {
        const reason =
          task.status === 'cancelled'
            ? 'task was cancelled before the retry'
            : `gave up after ${row.attempt} attempt(s)`;
        const error = `run did not complete (lease expired); ${reason}`;
        await finishRun(tx, row.id, { nowMs: options.nowMs, success: false, result: '', error });
        await afterRun(tx, row.task_id, options.nowMs);
        continue;
      }
      const [run] = await tx.query<RunRow>(
        `UPDATE scheduler_runs SET lease_owner = $1, lease_expires_ms = $2, attempt = attempt + 1,
           started_ms = $3 WHERE id = $4 RETURNING *`,
        [options.owner, options.nowMs + options.leaseMs, options.nowMs, row.id],
      );
      if (run !== undefined) claims.push({ run: runFromRow(run), task });
    }
    return claims;
  }

  async claimManual(taskId: string, lease: LeaseOptions): Promise<RunClaim> {
    return this.#transaction(async (tx) => {
      const task = await lockedTask(tx, taskId);
      if (task.status === 'cancelled')
        throw new SchedulerError(
          'invalid_transition',
          `Task ${taskId} is cancelled; it cannot run`,
        );
      if ((await hasRunning(tx, taskId)) !== undefined)
        throw new SchedulerError(
          'task_running',
          `Task ${taskId} is already running; try again when it ends`,
        );
      const run = await insertClaim(tx, taskId, lease.nowMs, lease);
      if (run === undefined)
        throw new SchedulerError(
          'task_running',
          `Task ${taskId} already has an occurrence at this instant`,
        );
      return { run, task };
    });
  }

  async completeRun(options: CompleteRunOptions): Promise<boolean> {
    const [recorded] = await this.completeRuns([options]);
    return recorded ?? false;
  }

  /** Records outcomes in one statement (see `COMPLETE`); one result per entry. */
  async completeRuns(entries: readonly CompleteRunOptions[]): Promise<boolean[]> {
    return this.#complete(entries);
  }

  /** `completeRuns` finishing at the database clock, read by the completing statement. */
  async completeRunsNow(entries: readonly CompletionNow[]): Promise<boolean[]> {
    return this.#complete(entries);
  }

  async #complete(entries: readonly (CompletionNow & { nowMs?: number })[]): Promise<boolean[]> {
    if (entries.length === 0) return [];
    const rows = await this.#transaction((tx) =>
      tx.query<{ id: number }>(COMPLETE, [
        entries.map((entry) => entry.runId),
        entries.map((entry) => entry.owner),
        entries.map((entry) => entry.success),
        entries.map((entry) => entry.result),
        entries.map((entry) => entry.error),
        entries.map((entry) => entry.nowMs ?? null),
      ]),
    );
    const done = new Set(rows.map((row) => Number(row.id)));
    return entries.map((entry) => done.delete(entry.runId));
  }

  async renewLease(runId: number, lease: LeaseOptions): Promise<boolean> {
    const rows = await this.#query(
      `UPDATE scheduler_runs SET lease_expires_ms = $1
       WHERE id = $2 AND status = 'running' AND lease_owner = $3 RETURNING id`,
      [lease.nowMs + lease.leaseMs, runId, lease.owner],
    );
    return rows.length === 1;
  }

  async getRun(runId: number): Promise<TaskRun | undefined> {
    const [row] = await this.#query<RunRow>('SELECT * FROM scheduler_runs WHERE id = $1', [runId]);
    return row === undefined ? undefined : runFromRow(row);
  }

  async runLogs(taskId: string, limit = 10): Promise<TaskRun[]> {
    const rows = await this.#query<RunRow>(
      'SELECT * FROM scheduler_runs WHERE task_id = $1 ORDER BY scheduled_ms DESC, id DESC LIMIT $2',
      [taskId, Math.max(0, Math.floor(limit))],
    );
    return rows.map(runFromRow);
  }

  async allRuns(): Promise<TaskRun[]> {
    const rows = await this.#query<RunRow>(
      'SELECT * FROM scheduler_runs ORDER BY task_id, scheduled_ms',
    );
    return rows.map(runFromRow);
  }

  async nextWakeMs(): Promise<number | undefined> {
    const [row] = await this.#query<{ at: number | null }>(
      `SELECT LEAST(
         -- ORDER BY ... LIMIT 1 walks the (status, next_run_ms) index from the earliest; MIN() with the
         -- NOT EXISTS was planned as a scan of every active task on each tick.
         (SELECT next_run_ms FROM scheduler_tasks s WHERE status = 'active' AND next_run_ms IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM scheduler_runs r WHERE r.task_id = s.id AND r.status = 'running')
          ORDER BY next_run_ms LIMIT 1),
         (SELECT MIN(lease_expires_ms) FROM scheduler_runs WHERE status = 'running')) AS at`,
    );
    return row?.at ?? undefined;
  }

  /** The database server's clock: every worker fires by it, whatever its own clock says. */
  async currentTimeMs(): Promise<number> {
    return (await this.ready()).now();
  }

  /** LISTEN on the scheduler channel; after a lost connection `onChange` is called too (changes may be missed). */
  async watchChanges(onChange: () => void): Promise<() => Promise<void>> {
    const db = await this.ready();
    return db.listen(SCHEDULER_CHANNEL, () => onChange(), { onReconnect: onChange });
  }

  #checkOpen(): void {
    if (this.#closed)
      throw new SchedulerError(
        'scheduler_unavailable',
        `the scheduler store at ${this.#location} is closed`,
      );
  }

  /** Closes the store (and the database handle unless `closeDatabase: false`); later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#ready?.catch(() => undefined);
    if (this.#closeDatabase) await this.#database?.close();
  }
}
