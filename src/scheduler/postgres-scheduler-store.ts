import {
  migrate,
  type OpenPostgresOptions,
  openPostgres,
  type PostgresDatabase,
  type PostgresQueryable,
} from '../storage/index.js';
import { formatIsoSeconds } from './instant.js';
import { planOccurrences, skipUntil } from './occurrence-plan.js';
import {
  POSTGRES_SCHEDULER_MIGRATIONS,
  POSTGRES_SCHEDULER_STORE,
  SCHEDULER_CHANNEL,
} from './postgres-scheduler-schema.js';
import { parseSchedule, type Schedule } from './schedule.js';
import { SchedulerError } from './scheduler-error.js';
import type {
  ClaimDueOptions,
  CompleteRunOptions,
  DeletedTask,
  LeaseOptions,
  TaskChange,
} from './scheduler-store.js';
import type { SchedulerStoreBackend } from './scheduler-store-backend.js';
import {
  allowedToolsColumn,
  type RunRow,
  runFromRow,
  type TaskRow,
  taskFromRow,
} from './store-rows.js';
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

const MINUTE_MS = 60_000;

const INSERT_TASK = `WITH saved AS (
  INSERT INTO scheduler_tasks (id, prompt, schedule_type, schedule_value, timezone, context_mode, status,
    next_run_ms, last_run_ms, agent, tools, metadata, created_ms, created_by, allowed_tools)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id)
SELECT pg_notify('${SCHEDULER_CHANNEL}', id) FROM saved`;

const NOTIFY = `SELECT pg_notify('${SCHEDULER_CHANNEL}', $1)`;

type Tx = PostgresQueryable;

function taskParams(task: ScheduledTask): unknown[] {
  return [
    task.id,
    task.prompt,
    task.scheduleType,
    task.scheduleValue,
    task.timezone,
    task.contextMode,
    task.status,
    task.nextRunMs ?? null,
    task.lastRunMs ?? null,
    task.agent,
    task.tools,
    JSON.stringify(task.metadata),
    task.createdMs,
    task.createdBy,
    allowedToolsColumn(task.allowedTools),
  ];
}

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

async function insertRun(
  tx: Tx,
  taskId: string,
  scheduledMs: number,
  status: 'missed' | 'failed' | 'skipped',
  nowMs: number,
  error: string,
): Promise<void> {
  await tx.query(
    `INSERT INTO scheduler_runs (task_id, scheduled_ms, status, finished_ms, error) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (task_id, scheduled_ms) DO NOTHING`,
    [taskId, scheduledMs, status, nowMs, error],
  );
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
    await this.#query(INSERT_TASK, taskParams(task));
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
    return this.#transaction(async (tx) => {
      const claims = await this.#reclaimExpired(tx, options);
      if (claims.length < options.limit)
        claims.push(...(await this.#claimScheduled(tx, options, options.limit - claims.length)));
      return claims;
    });
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

  /** Due tasks nobody holds: locked with SKIP LOCKED, so concurrent workers take different ones. */
  async #claimScheduled(tx: Tx, options: ClaimDueOptions, limit: number): Promise<RunClaim[]> {
    const rows = await tx.query<TaskRow>(
      `SELECT * FROM scheduler_tasks t WHERE status = 'active' AND next_run_ms <= $1
         AND NOT EXISTS (SELECT 1 FROM scheduler_runs r WHERE r.task_id = t.id AND r.status = 'running')
       ORDER BY next_run_ms LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [options.nowMs, limit],
    );
    const claims: RunClaim[] = [];
    for (const row of rows) {
      // A fresh statement sees an occurrence committed after this query's snapshot (a manual run).
      if ((await hasRunning(tx, row.id)) !== undefined) continue;
      const claim = await this.#claimTask(tx, taskFromRow(row), options);
      if (claim !== undefined) claims.push(claim);
    }
    return claims;
  }

  async #claimTask(
    tx: Tx,
    task: ScheduledTask,
    options: ClaimDueOptions,
  ): Promise<RunClaim | undefined> {
    const dueMs = task.nextRunMs ?? options.nowMs;
    let schedule: Schedule;
    let plan: ReturnType<typeof planOccurrences>;
    try {
      schedule = parseSchedule({ ...task, timezone: task.timezone });
      plan = planOccurrences({
        schedule,
        dueMs,
        nowMs: options.nowMs,
        catchupWindowMs: options.catchupWindowMs,
      });
    } catch (error) {
      const why = `stored schedule is invalid: ${String(error)}`;
      await insertRun(tx, task.id, dueMs, 'failed', options.nowMs, why);
      await tx.query(
        "UPDATE scheduler_tasks SET next_run_ms = NULL, status = 'completed' WHERE id = $1",
        [task.id],
      );
      return undefined;
    }
    await this.#recordMissed(tx, task.id, plan, options.nowMs);
    const { runMs, nextRunMs } = await this.#applyRateLimit(tx, task.id, schedule, plan, options);
    await tx.query(
      `UPDATE scheduler_tasks SET next_run_ms = $1,
         status = CASE WHEN $1::bigint IS NULL AND $2::bigint IS NULL THEN 'completed' ELSE status END
       WHERE id = $3`,
      [nextRunMs ?? null, runMs ?? null, task.id],
    );
    if (runMs === undefined) return undefined;
    const run = await insertClaim(tx, task.id, runMs, options);
    return run === undefined ? undefined : { run, task: { ...task, nextRunMs } };
  }

  async #recordMissed(
    tx: Tx,
    taskId: string,
    plan: { readonly missedMs: readonly number[]; readonly unrecordedMissed: number },
    nowMs: number,
  ): Promise<void> {
    for (const [index, scheduledMs] of plan.missedMs.entries()) {
      const extra =
        index === 0 && plan.unrecordedMissed > 0
          ? ` (${plan.unrecordedMissed} earlier occurrence(s) also missed)`
          : '';
      const why = `missed: outside the catch-up window or superseded${extra}`;
      await insertRun(tx, taskId, scheduledMs, 'missed', nowMs, why);
    }
  }

  /** The runs-per-minute limit (see `SchedulerStore`): beyond it the occurrences are skipped, not queued. */
  async #applyRateLimit(
    tx: Tx,
    taskId: string,
    schedule: Schedule,
    plan: { readonly runMs: number | undefined; readonly nextRunMs: number | undefined },
    options: ClaimDueOptions,
  ): Promise<{ readonly runMs: number | undefined; readonly nextRunMs: number | undefined }> {
    const limit = options.maxRunsPerTaskPerMinute;
    const { runMs } = plan;
    if (runMs === undefined || limit === undefined || schedule.type === 'once') return plan;
    const [oldest] = await tx.query<{ scheduled_ms: number }>(
      `SELECT scheduled_ms FROM scheduler_runs WHERE task_id = $1 AND scheduled_ms > $2
         AND status NOT IN ('missed', 'skipped')
       ORDER BY scheduled_ms DESC LIMIT 1 OFFSET $3`,
      [taskId, runMs - MINUTE_MS, Math.max(0, Math.floor(limit) - 1)],
    );
    if (oldest === undefined) return plan;
    const freeMs = oldest.scheduled_ms + MINUTE_MS;
    const skip = skipUntil(schedule, runMs, freeMs);
    const more =
      skip.skipped > 1
        ? `; ${skip.skipped - 1} more occurrence(s) until ${formatIsoSeconds(freeMs)} are skipped too`
        : '';
    const why = `skipped: the task already ran ${limit} time(s) within a minute (limit: ${limit} runs per task per minute)${more}`;
    await insertRun(tx, taskId, runMs, 'skipped', options.nowMs, why);
    return { runMs: undefined, nextRunMs: skip.nextRunMs };
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

  /**
   * Records outcomes in one transaction. The tasks are locked first, in id order, then the runs (the order
   * every waiting writer uses), so concurrent completions and deletions never deadlock.
   */
  async completeRuns(entries: readonly CompleteRunOptions[]): Promise<boolean[]> {
    if (entries.length === 0) return [];
    return this.#transaction(async (tx) => {
      const ids = entries.map((entry) => entry.runId);
      const owners = await tx.query<{ id: number; task_id: string }>(
        'SELECT id, task_id FROM scheduler_runs WHERE id = ANY($1::bigint[])',
        [ids],
      );
      const taskOf = new Map(owners.map((row) => [row.id, row.task_id]));
      const taskIds = [...new Set(taskOf.values())].sort();
      await tx.query(
        'SELECT id FROM scheduler_tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
        [taskIds],
      );
      const recorded: boolean[] = [];
      for (const entry of entries) recorded.push(await this.#completeOne(tx, entry));
      return recorded;
    });
  }

  async #completeOne(tx: Tx, options: CompleteRunOptions): Promise<boolean> {
    const [row] = await tx.query<{ task_id: string }>(
      `UPDATE scheduler_runs SET status = $1, finished_ms = $2, success = $3, result = $4, error = $5,
         lease_owner = NULL, lease_expires_ms = NULL
       WHERE id = $6 AND status = 'running' AND lease_owner = $7 RETURNING task_id`,
      [
        options.success ? 'succeeded' : 'failed',
        options.nowMs,
        options.success ? 1 : 0,
        options.result,
        options.error,
        options.runId,
        options.owner,
      ],
    );
    if (row === undefined) return false;
    await afterRun(tx, row.task_id, options.nowMs);
    return true;
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
