import {
  type ClaimDueOptions,
  type CompleteRunOptions,
  type DeletedTask,
  type LeaseOptions,
  SchedulerStore,
  type TaskChange,
} from './scheduler-store.js';
import type { RunClaim, ScheduledTask, TaskRun, TaskStatus } from './task-types.js';

/** What `claimDueNow` needs: `ClaimDueOptions` without the time, which the store reads from its own clock. */
export type ClaimDueNowOptions = Omit<ClaimDueOptions, 'nowMs'>;

/** What `claimDueNow` returns: the claims, the store's time they were made at, and when to look again. */
export interface ClaimRound {
  readonly claims: RunClaim[];
  /** The store clock's time of the claim (the `nowMs` the claims were made with). */
  readonly nowMs: number;
  /**
   * The earliest instant at which `claimDue` may find work after this claim (a due task, an expiring lease);
   * at or before `nowMs` when due work is left (held by another process, or beyond `limit`); undefined when none.
   */
  readonly nextWakeMs: number | undefined;
}

/** A `completeRunsNow` entry: `CompleteRunOptions` without the time (the store's clock gives the finish time). */
export type CompletionNow = Omit<CompleteRunOptions, 'nowMs'>;

/**
 * Where the scheduler keeps its tasks and run log, asynchronously (SQLite through `SqliteSchedulerBackend`,
 * PostgreSQL through `PostgresSchedulerStore`): the same semantics on every backend (one run row per task and
 * scheduled time holding the occurrence's lease; see `SchedulerStore` for each method's contract).
 */
export interface SchedulerStoreBackend {
  /** Where the data lives, for messages (a file path, or a PostgreSQL address without its password). */
  readonly location: string;
  /** Saves a new task. */
  insertTask(task: ScheduledTask): Promise<void>;
  /** Removes a task and its run log; refused (`task_running`) while an occurrence holds a live lease. */
  deleteTask(id: string, nowMs: number): Promise<DeletedTask>;
  /** The task with this id, or undefined. */
  getTask(id: string): Promise<ScheduledTask | undefined>;
  /** Every task in creation order, optionally only those with one status. */
  listTasks(status?: TaskStatus): Promise<ScheduledTask[]>;
  /** Reads a task and applies `change(task)` atomically; `change` may throw to refuse. */
  updateTask(id: string, change: (task: ScheduledTask) => TaskChange): Promise<ScheduledTask>;
  /** Claims due occurrences (expired leases first, then due tasks under the misfire policy). */
  claimDue(options: ClaimDueOptions): Promise<RunClaim[]>;
  /** Claims an extra occurrence of a task now; refused while the task has a running occurrence. */
  claimManual(taskId: string, lease: LeaseOptions): Promise<RunClaim>;
  /** Records the outcome of a claimed occurrence; false when this owner no longer holds it. */
  completeRun(options: CompleteRunOptions): Promise<boolean>;
  /** `completeRun` for several occurrences in one transaction; one result per entry. */
  completeRuns(entries: readonly CompleteRunOptions[]): Promise<boolean[]>;
  /** Extends the lease of a running occurrence held by `owner`; false when it is no longer held. */
  renewLease(runId: number, lease: LeaseOptions): Promise<boolean>;
  /** One run-log entry by its id, or undefined. */
  getRun(runId: number): Promise<TaskRun | undefined>;
  /** The run log of a task, newest first. */
  runLogs(taskId: string, limit?: number): Promise<TaskRun[]>;
  /** Every run of every task, oldest occurrence first (for checks and tests). */
  allRuns(): Promise<TaskRun[]>;
  /** The earliest instant at which `claimDue` may find work: a due task or an expiring lease. */
  nextWakeMs(): Promise<number | undefined>;
  /**
   * The reference clock every worker of this store shares (PostgreSQL: the database's clock); when absent the
   * scheduler uses its own clock.
   */
  currentTimeMs?(): Promise<number>;
  /**
   * `claimDue` at the store's clock, read by the claiming statements themselves, with the next wake-up
   * computed alongside: one transaction instead of a clock read, a claim and a `nextWakeMs` (PostgreSQL).
   */
  claimDueNow?(options: ClaimDueNowOptions): Promise<ClaimRound>;
  /** `completeRuns` finishing at the store's clock, read by the completing statement itself (PostgreSQL). */
  completeRunsNow?(entries: readonly CompletionNow[]): Promise<boolean[]>;
  /**
   * Calls `onChange` soon after any process creates or changes a task (PostgreSQL: LISTEN/NOTIFY), so idle
   * workers need not poll; resolves to the function that stops watching. Absent when the backend cannot tell.
   */
  watchChanges?(onChange: () => void): Promise<() => Promise<void>>;
  /** Closes the store; it cannot be used afterwards. */
  close(): Promise<void>;
}

/**
 * The synchronous SQLite `SchedulerStore` behind the asynchronous interface: each call runs synchronously and
 * its result (or error) is returned as a settled promise.
 */
export class SqliteSchedulerBackend implements SchedulerStoreBackend {
  readonly location: string;

  constructor(readonly sqlite: SchedulerStore) {
    this.location = sqlite.dbPath;
  }

  async insertTask(task: ScheduledTask): Promise<void> {
    this.sqlite.insertTask(task);
  }

  async deleteTask(id: string, nowMs: number): Promise<DeletedTask> {
    return this.sqlite.deleteTask(id, nowMs);
  }

  async getTask(id: string): Promise<ScheduledTask | undefined> {
    return this.sqlite.getTask(id);
  }

  async listTasks(status?: TaskStatus): Promise<ScheduledTask[]> {
    return this.sqlite.listTasks(status);
  }

  async updateTask(
    id: string,
    change: (task: ScheduledTask) => TaskChange,
  ): Promise<ScheduledTask> {
    return this.sqlite.updateTask(id, change);
  }

  async claimDue(options: ClaimDueOptions): Promise<RunClaim[]> {
    return this.sqlite.claimDue(options);
  }

  async claimManual(taskId: string, lease: LeaseOptions): Promise<RunClaim> {
    return this.sqlite.claimManual(taskId, lease);
  }

  async completeRun(options: CompleteRunOptions): Promise<boolean> {
    return this.sqlite.completeRun(options);
  }

  async completeRuns(entries: readonly CompleteRunOptions[]): Promise<boolean[]> {
    return this.sqlite.completeRuns(entries);
  }

  async renewLease(runId: number, lease: LeaseOptions): Promise<boolean> {
    return this.sqlite.renewLease(runId, lease);
  }

  async getRun(runId: number): Promise<TaskRun | undefined> {
    return this.sqlite.getRun(runId);
  }

  async runLogs(taskId: string, limit?: number): Promise<TaskRun[]> {
    return this.sqlite.runLogs(taskId, limit);
  }

  async allRuns(): Promise<TaskRun[]> {
    return this.sqlite.allRuns();
  }

  async nextWakeMs(): Promise<number | undefined> {
    return this.sqlite.nextWakeMs();
  }

  async close(): Promise<void> {
    this.sqlite.close();
  }
}

/** The asynchronous store for either kind: a SQLite `SchedulerStore` is wrapped, a backend passes through. */
export function schedulerBackend(
  store: SchedulerStore | SchedulerStoreBackend,
): SchedulerStoreBackend {
  return store instanceof SchedulerStore ? new SqliteSchedulerBackend(store) : store;
}
