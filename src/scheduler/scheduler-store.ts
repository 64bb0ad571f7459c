import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { loadSqliteDriver } from '../core/index.js';
import { formatIsoSeconds } from './instant.js';
import { SchedulerError } from './scheduler-error.js';
import { type RunRow, runFromRow, type TaskRow, taskColumns, taskFromRow } from './store-rows.js';
import { prepareSchedulerSchema } from './store-schema.js';
import {
  MINUTE_MS,
  planDueTask,
  rateLimitApplies,
  rateLimitedPlan,
  type TaskPlan,
} from './task-claim-plan.js';
import type { RunClaim, ScheduledTask, TaskRun, TaskStatus } from './task-types.js';

/** Options of `SchedulerStore`. */
export interface SchedulerStoreOptions {
  /** SQLite file (a leading `~` is the home directory; parent folders are created) or `:memory:`. */
  readonly dbPath: string;
  /** How long a write waits for another process's lock (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

/** Options of `SchedulerStore.claimDue`. */
export interface ClaimDueOptions {
  readonly nowMs: number;
  /** Who claims (one id per scheduler process). */
  readonly owner: string;
  readonly leaseMs: number;
  /** Most occurrences to claim. */
  readonly limit: number;
  readonly catchupWindowMs: number;
  /** A crashed occurrence is given up (recorded as failed) after this many starts. */
  readonly maxAttempts: number;
  /**
   * Most runs of one recurring task whose scheduled times fall within a minute; a due occurrence beyond it is
   * recorded as `skipped` with the ones until the limit frees up (default: no limit).
   */
  readonly maxRunsPerTaskPerMinute?: number;
}

/** What `deleteTask` removed. */
export interface DeletedTask {
  readonly task: ScheduledTask;
  /** Run-log entries removed with it. */
  readonly runsDeleted: number;
}

/** Options of `SchedulerStore.completeRun`. */
export interface CompleteRunOptions {
  readonly runId: number;
  readonly owner: string;
  readonly nowMs: number;
  readonly success: boolean;
  readonly result: string;
  readonly error: string;
}

/** Options of `SchedulerStore.renewLease` and `claimManual`. */
export interface LeaseOptions {
  readonly nowMs: number;
  readonly owner: string;
  readonly leaseMs: number;
}

/** The fields of a task an `updateTask` change may set. */
export interface TaskChange {
  readonly status?: TaskStatus;
  readonly nextRunMs?: number | undefined;
}

/** Expands a leading `~` to the home directory. */
export function expandHome(path: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/') || path.startsWith('~\\')) return join(homedir(), path.slice(2));
  return path;
}

/**
 * Durable scheduler state in SQLite (WAL, `synchronous=FULL`, busy timeout, `BEGIN IMMEDIATE` for every
 * read-then-write): tasks, and a run log with one row per task and scheduled time holding each occurrence's lease.
 */
export class SchedulerStore {
  /** The database file actually opened (after `~` expansion). */
  readonly dbPath: string;
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(options: SchedulerStoreOptions) {
    this.dbPath = expandHome(options.dbPath);
    if (this.dbPath !== ':memory:' && this.dbPath !== '')
      mkdirSync(dirname(this.dbPath), { recursive: true });
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    const Sqlite = loadSqliteDriver<typeof Database>(createRequire(import.meta.url));
    this.#db = new Sqlite(this.dbPath, { timeout: busyTimeoutMs });
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    try {
      this.#immediate(() => prepareSchedulerSchema(this.#db, this.dbPath));
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #immediate<T>(fn: () => T): T {
    return this.#db.transaction(fn).immediate();
  }

  /** Saves a new task. */
  insertTask(task: ScheduledTask): void {
    this.#sql(
      `INSERT INTO scheduled_tasks (id, prompt, schedule_type, schedule_value, timezone, context_mode, status,
         next_run_ms, last_run_ms, agent, tools, metadata, created_ms, created_by, allowed_tools)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...taskColumns(task));
  }

  /**
   * Removes a task and its run log in one transaction; refused (`task_running`) while an occurrence of it holds
   * a live lease. An occurrence whose lease expired (its process died) is removed with the rest.
   */
  deleteTask(id: string, nowMs: number): DeletedTask {
    return this.#immediate(() => {
      const task = this.getTask(id);
      if (task === undefined) throw new SchedulerError('task_not_found', `Task not found: ${id}`);
      const running = this.#sql(
        "SELECT started_ms FROM task_runs WHERE task_id = ? AND status = 'running' AND lease_expires_ms > ?",
      ).get(id, nowMs) as { started_ms: number | null } | undefined;
      if (running !== undefined) {
        const since =
          running.started_ms === null ? '' : ` since ${formatIsoSeconds(running.started_ms)}`;
        throw new SchedulerError(
          'task_running',
          `Task ${id} is running now${since}; it was not deleted. Wait for the run to end (or stop the scheduler running it), then delete it again; \`cancel\` stops further runs meanwhile`,
        );
      }
      const runs = this.#sql('DELETE FROM task_runs WHERE task_id = ?').run(id);
      this.#sql('DELETE FROM scheduled_tasks WHERE id = ?').run(id);
      return { task, runsDeleted: runs.changes };
    });
  }

  /** The task with this id, or undefined. */
  getTask(id: string): ScheduledTask | undefined {
    const row = this.#sql('SELECT * FROM scheduled_tasks WHERE id = ?').get(id) as
      | TaskRow
      | undefined;
    return row === undefined ? undefined : taskFromRow(row);
  }

  /** Every task in creation order, optionally only those with one status. */
  listTasks(status?: TaskStatus): ScheduledTask[] {
    const rows = (
      status === undefined
        ? this.#sql('SELECT * FROM scheduled_tasks ORDER BY rowid').all()
        : this.#sql('SELECT * FROM scheduled_tasks WHERE status = ? ORDER BY rowid').all(status)
    ) as TaskRow[];
    return rows.map(taskFromRow);
  }

  /** Reads a task and applies `change(task)` in one `BEGIN IMMEDIATE` transaction; `change` may throw to refuse. */
  updateTask(id: string, change: (task: ScheduledTask) => TaskChange): ScheduledTask {
    return this.#immediate(() => {
      const task = this.getTask(id);
      if (task === undefined) throw new SchedulerError('task_not_found', `Task not found: ${id}`);
      const patch = change(task);
      const updated: ScheduledTask = {
        ...task,
        ...(patch.status === undefined ? {} : { status: patch.status }),
        ...('nextRunMs' in patch ? { nextRunMs: patch.nextRunMs } : {}),
      };
      this.#sql('UPDATE scheduled_tasks SET status = ?, next_run_ms = ? WHERE id = ?').run(
        updated.status,
        updated.nextRunMs ?? null,
        id,
      );
      return updated;
    });
  }

  /**
   * Claims due occurrences in one `BEGIN IMMEDIATE` transaction: first crashed ones whose lease expired (same
   * occurrence, next attempt), then due tasks without a running occurrence (applying the misfire policy).
   */
  claimDue(options: ClaimDueOptions): RunClaim[] {
    return this.#immediate(() => {
      const claims = this.#reclaimExpired(options);
      if (claims.length < options.limit)
        claims.push(...this.#claimScheduled(options, options.limit - claims.length));
      return claims;
    });
  }

  #reclaimExpired(options: ClaimDueOptions): RunClaim[] {
    const rows = this.#sql(
      `SELECT * FROM task_runs WHERE status = 'running' AND lease_expires_ms <= ?
       ORDER BY lease_expires_ms LIMIT ?`,
    ).all(options.nowMs, options.limit) as RunRow[];
    const claims: RunClaim[] = [];
    for (const row of rows) {
      const task = this.getTask(row.task_id);
      if (task === undefined || task.status === 'cancelled' || row.attempt >= options.maxAttempts) {
        const reason =
          task?.status === 'cancelled'
            ? 'task was cancelled before the retry'
            : `gave up after ${row.attempt} attempt(s)`;
        this.#finishRun(
          row.id,
          options.nowMs,
          false,
          '',
          `run did not complete (lease expired); ${reason}`,
        );
        this.#afterRun(row.task_id, options.nowMs);
        continue;
      }
      this.#sql(
        `UPDATE task_runs SET lease_owner = ?, lease_expires_ms = ?, attempt = attempt + 1, started_ms = ?
         WHERE id = ?`,
      ).run(options.owner, options.nowMs + options.leaseMs, options.nowMs, row.id);
      claims.push({ run: this.#run(row.id), task });
    }
    return claims;
  }

  #claimScheduled(options: ClaimDueOptions, limit: number): RunClaim[] {
    const rows = this.#sql(
      `SELECT * FROM scheduled_tasks t WHERE status = 'active' AND next_run_ms <= ?
         AND NOT EXISTS (SELECT 1 FROM task_runs r WHERE r.task_id = t.id AND r.status = 'running')
       ORDER BY next_run_ms LIMIT ?`,
    ).all(options.nowMs, limit) as TaskRow[];
    const claims: RunClaim[] = [];
    for (const row of rows) {
      const claim = this.#claimTask(taskFromRow(row), options);
      if (claim !== undefined) claims.push(claim);
    }
    return claims;
  }

  #claimTask(task: ScheduledTask, options: ClaimDueOptions): RunClaim | undefined {
    const plan = this.#rateLimit(planDueTask(task, options), options);
    for (const log of plan.logs)
      this.#insertRun(task.id, log.scheduledMs, log.status, options.nowMs, log.error);
    const { runMs, nextRunMs } = plan;
    this.#sql(
      `UPDATE scheduled_tasks SET next_run_ms = ?,
         status = CASE WHEN ? THEN 'completed' ELSE status END
       WHERE id = ?`,
    ).run(nextRunMs ?? null, plan.completed ? 1 : 0, task.id);
    if (runMs === undefined) return undefined;
    const runId = this.#insertClaim(task.id, runMs, options);
    return runId === undefined
      ? undefined
      : { run: this.#run(runId), task: { ...task, nextRunMs } };
  }

  /** The runs-per-minute limit of recurring tasks (see `rateLimitedPlan`), from the task's recent runs. */
  #rateLimit(plan: TaskPlan, options: ClaimDueOptions): TaskPlan {
    const limit = options.maxRunsPerTaskPerMinute;
    if (!rateLimitApplies(plan, limit) || plan.runMs === undefined || plan.schedule === undefined)
      return plan;
    const oldest = this.#sql(
      `SELECT scheduled_ms FROM task_runs WHERE task_id = ? AND scheduled_ms > ?
         AND status NOT IN ('missed', 'skipped')
       ORDER BY scheduled_ms DESC LIMIT 1 OFFSET ?`,
    ).get(plan.task.id, plan.runMs - MINUTE_MS, Math.max(0, Math.floor(limit) - 1)) as
      | { scheduled_ms: number }
      | undefined;
    return oldest === undefined
      ? plan
      : rateLimitedPlan(plan, plan.schedule, oldest.scheduled_ms, limit);
  }

  #insertRun(
    taskId: string,
    scheduledMs: number,
    status: 'missed' | 'failed' | 'skipped',
    nowMs: number,
    error: string,
  ): void {
    this.#sql(
      `INSERT OR IGNORE INTO task_runs (task_id, scheduled_ms, status, finished_ms, error) VALUES (?, ?, ?, ?, ?)`,
    ).run(taskId, scheduledMs, status, nowMs, error);
  }

  #insertClaim(taskId: string, scheduledMs: number, lease: LeaseOptions): number | undefined {
    const info = this.#sql(
      `INSERT OR IGNORE INTO task_runs (task_id, scheduled_ms, status, attempt, lease_owner, lease_expires_ms, started_ms)
       VALUES (?, ?, 'running', 1, ?, ?, ?)`,
    ).run(taskId, scheduledMs, lease.owner, lease.nowMs + lease.leaseMs, lease.nowMs);
    return info.changes === 1 ? Number(info.lastInsertRowid) : undefined;
  }

  #run(id: number): TaskRun {
    return runFromRow(this.#sql('SELECT * FROM task_runs WHERE id = ?').get(id) as RunRow);
  }

  /** Claims an extra occurrence of a task now (`runNow`); refused while the task has a running occurrence. */
  claimManual(taskId: string, lease: LeaseOptions): RunClaim {
    return this.#immediate(() => {
      const task = this.getTask(taskId);
      if (task === undefined)
        throw new SchedulerError('task_not_found', `Task not found: ${taskId}`);
      if (task.status === 'cancelled')
        throw new SchedulerError(
          'invalid_transition',
          `Task ${taskId} is cancelled; it cannot run`,
        );
      if (
        this.#sql("SELECT 1 FROM task_runs WHERE task_id = ? AND status = 'running'").get(
          taskId,
        ) !== undefined
      )
        throw new SchedulerError(
          'task_running',
          `Task ${taskId} is already running; try again when it ends`,
        );
      const runId = this.#insertClaim(taskId, lease.nowMs, lease);
      if (runId === undefined)
        throw new SchedulerError(
          'task_running',
          `Task ${taskId} already has an occurrence at this instant`,
        );
      return { run: this.#run(runId), task };
    });
  }

  /** Records the outcome of a claimed occurrence; false (nothing written) when this owner no longer holds it. */
  completeRun(options: CompleteRunOptions): boolean {
    return this.#immediate(() => this.#completeOne(options));
  }

  /** `completeRun` for several occurrences in one transaction (one fsync); one result per entry. */
  completeRuns(entries: readonly CompleteRunOptions[]): boolean[] {
    return this.#immediate(() => entries.map((options) => this.#completeOne(options)));
  }

  #completeOne(options: CompleteRunOptions): boolean {
    const row = this.#sql(
      "SELECT * FROM task_runs WHERE id = ? AND status = 'running' AND lease_owner = ?",
    ).get(options.runId, options.owner) as RunRow | undefined;
    if (row === undefined) return false;
    this.#finishRun(row.id, options.nowMs, options.success, options.result, options.error);
    this.#afterRun(row.task_id, options.nowMs);
    return true;
  }

  #finishRun(runId: number, nowMs: number, success: boolean, result: string, error: string): void {
    this.#sql(
      `UPDATE task_runs SET status = ?, finished_ms = ?, success = ?, result = ?, error = ?,
         lease_owner = NULL, lease_expires_ms = NULL WHERE id = ?`,
    ).run(success ? 'succeeded' : 'failed', nowMs, success ? 1 : 0, result, error, runId);
  }

  #afterRun(taskId: string, nowMs: number): void {
    this.#sql(
      `UPDATE scheduled_tasks SET last_run_ms = ?,
         status = CASE WHEN status IN ('active', 'paused') AND next_run_ms IS NULL THEN 'completed' ELSE status END
       WHERE id = ?`,
    ).run(nowMs, taskId);
  }

  /** Extends the lease of a running occurrence held by `owner`; false when it is no longer held. */
  renewLease(runId: number, lease: LeaseOptions): boolean {
    const info = this.#sql(
      "UPDATE task_runs SET lease_expires_ms = ? WHERE id = ? AND status = 'running' AND lease_owner = ?",
    ).run(lease.nowMs + lease.leaseMs, runId, lease.owner);
    return info.changes === 1;
  }

  /** One run-log entry by its id, or undefined. */
  getRun(runId: number): TaskRun | undefined {
    const row = this.#sql('SELECT * FROM task_runs WHERE id = ?').get(runId) as RunRow | undefined;
    return row === undefined ? undefined : runFromRow(row);
  }

  /** The run log of a task, newest first. */
  runLogs(taskId: string, limit = 10): TaskRun[] {
    const rows = this.#sql(
      'SELECT * FROM task_runs WHERE task_id = ? ORDER BY scheduled_ms DESC, id DESC LIMIT ?',
    ).all(taskId, Math.max(0, Math.floor(limit))) as RunRow[];
    return rows.map(runFromRow);
  }

  /** Every run of every task, oldest occurrence first (for checks and tests). */
  allRuns(): TaskRun[] {
    return (
      this.#sql('SELECT * FROM task_runs ORDER BY task_id, scheduled_ms').all() as RunRow[]
    ).map(runFromRow);
  }

  /** The earliest instant at which `claimDue` may find work: a due task or an expiring lease. */
  nextWakeMs(): number | undefined {
    const row = this.#sql(
      `SELECT MIN(t) AS at FROM (
         SELECT MIN(next_run_ms) AS t FROM scheduled_tasks s WHERE status = 'active' AND next_run_ms IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM task_runs r WHERE r.task_id = s.id AND r.status = 'running')
         UNION ALL SELECT MIN(lease_expires_ms) FROM task_runs WHERE status = 'running')`,
    ).get() as { at: number | null };
    return row.at ?? undefined;
  }

  /** The result of `PRAGMA integrity_check` (`'ok'` when the file is sound). */
  integrityCheck(): string {
    const rows = this.#db.pragma('integrity_check') as { integrity_check: string }[];
    return rows.map((row) => row.integrity_check).join('; ');
  }

  /** Closes the database; the store cannot be used afterwards. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
