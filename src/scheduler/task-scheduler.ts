import { hostname } from 'node:os';
import {
  type Clock,
  describeError,
  type EventBus,
  type JsonObject,
  positiveNumberOption,
  systemClock,
} from '../core/index.js';
import { formatIsoInstant } from './instant.js';
import { DEFAULT_MIN_INTERVAL_MS, firstRunMs, validateSchedule } from './schedule.js';
import { SchedulerError } from './scheduler-error.js';
import type { DeletedTask, SchedulerStore } from './scheduler-store.js';
import {
  type ClaimRound,
  type CompletionNow,
  type SchedulerStoreBackend,
  schedulerBackend,
} from './scheduler-store-backend.js';
import { splitToolList } from './store-rows.js';
import { nextStatus, type TaskAction } from './task-state.js';
import {
  occurrenceKey,
  type RunClaim,
  type ScheduledTask,
  TASK_STATUSES,
  type TaskOrigin,
  type TaskRun,
  type TaskStatus,
} from './task-types.js';
import { systemTimers, type TimerHandle, type Timers } from './timers.js';
import {
  effectiveTools,
  runRefusal,
  toolsNotAllowed,
  toolsNotAllowedError,
} from './tool-allowance.js';

/** What `runTask` receives for one occurrence. */
export interface RunTaskRequest {
  readonly task: ScheduledTask;
  readonly prompt: string;
  readonly agent: string;
  /** Tool names enabled for this run (from the task's comma-separated `tools`). */
  readonly tools: readonly string[];
  /** `taskId@scheduledForMs`: the same for every retry of one occurrence, so side effects can be deduplicated. */
  readonly occurrenceKey: string;
  readonly scheduledForMs: number;
  readonly attempt: number;
  /** Aborted when the scheduler stops or loses the occurrence's lease. */
  readonly signal: AbortSignal;
}

/** Runs one occurrence (the system runs the prompt with the task's agent and tools) and returns the answer text. */
export type RunTask = (request: RunTaskRequest) => Promise<string>;

/** Options of `TaskScheduler`. */
export interface TaskSchedulerOptions {
  /** Where tasks live: a SQLite `SchedulerStore` (wrapped) or any `SchedulerStoreBackend` (PostgreSQL). */
  readonly store: SchedulerStore | SchedulerStoreBackend;
  /** Required to `start()` or `runNow()`; creating and listing tasks works without it. */
  readonly runTask?: RunTask;
  readonly clock?: Clock;
  readonly timers?: Timers;
  readonly bus?: EventBus;
  /** Most occurrences running at once in this process (default 4). */
  readonly concurrency?: number;
  /** How long a claim holds before another process may retry it; renewed every third of it (default 60 s). */
  readonly leaseMs?: number;
  /** A late occurrence still runs once when at most this late (default 1 hour). */
  readonly catchupWindowMs?: number;
  /**
   * Longest sleep between checks, so tasks created by other processes are seen (default 60 s); a store that
   * reports changes (PostgreSQL) wakes the scheduler sooner.
   */
  readonly maxSleepMs?: number;
  /** How long `stop()` waits for running occurrences before aborting them (default 30 s). */
  readonly stopTimeoutMs?: number;
  /** Starts of one occurrence before a crashing one is given up (default 5). */
  readonly maxAttempts?: number;
  /** This process's id in leases (default host:pid:random). */
  readonly owner?: string;
  readonly generateId?: () => string;
  /**
   * Shortest interval of a task a person creates (default 1 s). Tasks created by an agent always get at least
   * the default, whatever this says.
   */
  readonly minIntervalMs?: number;
  /**
   * Most runs of one recurring task within a minute (default 60); occurrences beyond it are skipped and
   * recorded as `skipped`, not queued up.
   */
  readonly maxRunsPerTaskPerMinute?: number;
}

/** What `createTask` accepts (tools.md `schedule_task` parameters plus a time zone and metadata). */
export interface CreateTaskOptions {
  readonly prompt: unknown;
  readonly scheduleType: unknown;
  readonly scheduleValue: unknown;
  readonly agent?: string | undefined;
  /** Comma-separated names, or a list. */
  readonly tools?: string | readonly string[] | undefined;
  /** IANA time zone of a cron expression (default `UTC`). */
  readonly timezone?: string | undefined;
  readonly contextMode?: string | undefined;
  readonly metadata?: JsonObject | undefined;
  /** Who asks (default `person`: not limited). The scheduler tools pass `agent`. */
  readonly createdBy?: TaskOrigin | undefined;
  /**
   * For `createdBy: 'agent'`: the tools of the run that asks; the task may name no other tool (none when
   * left out). Ignored for a person.
   */
  readonly allowedTools?: readonly string[] | undefined;
}

interface RunningOccurrence {
  readonly promise: Promise<void>;
  readonly controller: AbortController;
}

/** A completion waiting to be written (`nowMs` absent when the store reads its own clock). */
interface PendingCompletion {
  readonly options: CompletionNow & { readonly nowMs?: number };
  readonly resolve: (recorded: boolean) => void;
}

const IDLE_RETRY_MS = 250;

/** Splits a comma-separated tool list into trimmed non-empty names. */
export function toolNames(tools: string): string[] {
  return splitToolList(tools);
}

/** Default of `maxRunsPerTaskPerMinute`. */
export const DEFAULT_MAX_RUNS_PER_TASK_PER_MINUTE = 60;

/** The task's agent: the one named; else `simple`, or `orchestrator` when tools are given (simple uses none). */
function defaultAgent(agent: string | undefined, tools: string): string {
  if (agent !== undefined && agent.trim() !== '') return agent.trim();
  return tools === '' ? 'simple' : 'orchestrator';
}

function normaliseTools(tools: string | readonly string[] | undefined): string {
  if (tools === undefined) return '';
  if (typeof tools === 'string') return toolNames(tools).join(',');
  return tools
    .map((name) => String(name).trim())
    .filter((name) => name !== '')
    .join(',');
}

/**
 * Runs durable cron / interval / once tasks: a timer set to the next due time, due occurrences claimed with a
 * lease (safe with several processes on one database), run concurrently up to a limit, never overlapping
 * themselves, and recorded exactly once in the run log.
 */
export class TaskScheduler {
  readonly store: SchedulerStoreBackend;
  /** This process's id in leases. */
  readonly owner: string;
  readonly #runTask: RunTask | undefined;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #bus: EventBus | undefined;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #catchupWindowMs: number;
  readonly #maxSleepMs: number;
  readonly #stopTimeoutMs: number;
  readonly #maxAttempts: number;
  readonly #generateId: () => string;
  readonly #minIntervalMs: number;
  readonly #maxRunsPerTaskPerMinute: number;
  readonly #running = new Map<number, RunningOccurrence>();
  #timer: TimerHandle | undefined;
  #started = false;
  #tickQueued = false;
  #tickAgain = false;
  #tickRun: Promise<void> | undefined;
  #unwatch: Promise<(() => Promise<void>) | undefined> | undefined;
  #lastError: unknown;
  #completions: PendingCompletion[] = [];
  /** The completion write under way when completions are written one batch at a time (`completeRunsNow`). */
  #flushing: Promise<void> | undefined;

  constructor(options: TaskSchedulerOptions) {
    this.store = schedulerBackend(options.store);
    this.#runTask = options.runTask;
    this.#clock = options.clock ?? systemClock;
    this.#timers = options.timers ?? systemTimers;
    this.#bus = options.bus;
    this.#concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
    this.#leaseMs = Math.max(1, options.leaseMs ?? 60_000);
    this.#catchupWindowMs = Math.max(0, options.catchupWindowMs ?? 3_600_000);
    this.#maxSleepMs = Math.max(1, options.maxSleepMs ?? 60_000);
    this.#stopTimeoutMs = Math.max(0, options.stopTimeoutMs ?? 30_000);
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
    this.#generateId =
      options.generateId ?? (() => crypto.randomUUID().replaceAll('-', '').slice(0, 16));
    this.#minIntervalMs = Math.max(
      1,
      positiveNumberOption('minIntervalMs', options.minIntervalMs, DEFAULT_MIN_INTERVAL_MS, {
        finite: false,
      }),
    );
    this.#maxRunsPerTaskPerMinute = Math.floor(
      positiveNumberOption(
        'maxRunsPerTaskPerMinute',
        options.maxRunsPerTaskPerMinute,
        DEFAULT_MAX_RUNS_PER_TASK_PER_MINUTE,
        { finite: false },
      ),
    );
  }

  /** True between `start()` and `stop()`. */
  get started(): boolean {
    return this.#started;
  }

  /** How many occurrences this process is running now. */
  get runningCount(): number {
    return this.#running.size;
  }

  /** The last error of the scheduling loop (a database failure), kept for inspection; undefined when none. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /**
   * Validates and saves a task; it is `active` with its first due time computed. A task an agent asks for
   * (`createdBy: 'agent'`) may name only `allowedTools` and gets at least the default minimum interval.
   */
  async createTask(options: CreateTaskOptions): Promise<ScheduledTask> {
    if (typeof options.prompt !== 'string' || options.prompt.trim() === '')
      throw new SchedulerError('invalid_task', 'prompt must be a non-empty string');
    const nowMs = await this.#now();
    const createdBy: TaskOrigin = options.createdBy === 'agent' ? 'agent' : 'person';
    const tools = normaliseTools(options.tools);
    const allowedTools = createdBy === 'agent' ? [...(options.allowedTools ?? [])] : undefined;
    const refused = toolsNotAllowed(
      effectiveTools(toolNames(tools), options.agent?.trim()),
      allowedTools,
    );
    if (refused.length > 0) throw toolsNotAllowedError(refused, allowedTools ?? []);
    const schedule = validateSchedule(options, nowMs, {
      minIntervalMs:
        createdBy === 'agent'
          ? Math.max(this.#minIntervalMs, DEFAULT_MIN_INTERVAL_MS)
          : this.#minIntervalMs,
      catchupWindowMs: this.#catchupWindowMs,
    });
    const task: ScheduledTask = {
      id: this.#generateId(),
      prompt: options.prompt,
      scheduleType: schedule.type,
      scheduleValue: schedule.value,
      timezone: schedule.timezone,
      contextMode: options.contextMode ?? 'isolated',
      status: 'active',
      nextRunMs: firstRunMs(schedule, nowMs),
      lastRunMs: undefined,
      agent: defaultAgent(options.agent, tools),
      tools,
      metadata: options.metadata ?? {},
      createdMs: nowMs,
      createdBy,
      allowedTools,
    };
    await this.store.insertTask(task);
    this.#wake();
    return task;
  }

  /**
   * Deletes a task and its run history for good; refused (`task_running`) while an occurrence of it is
   * running. Unknown ids throw `task_not_found`.
   */
  async deleteTask(taskId: string): Promise<DeletedTask> {
    const deleted = await this.store.deleteTask(taskId, await this.#now());
    this.#wake();
    return deleted;
  }

  /** The task with this id; rejects with a `SchedulerError` (`task_not_found`) for an unknown id. */
  async getTask(taskId: string): Promise<ScheduledTask> {
    const task = await this.store.getTask(taskId);
    if (task === undefined) throw new SchedulerError('task_not_found', `Task not found: ${taskId}`);
    return task;
  }

  /** Every task in creation order, optionally only those with one status. */
  async listTasks(
    options: { readonly status?: string | undefined } = {},
  ): Promise<ScheduledTask[]> {
    const { status } = options;
    if (status !== undefined && !TASK_STATUSES.includes(status as TaskStatus))
      throw new SchedulerError(
        'invalid_task',
        `unknown status '${status}': use ${TASK_STATUSES.join(', ')}`,
      );
    return this.store.listTasks(status as TaskStatus | undefined);
  }

  /** Pauses an active task (its next due time is kept). */
  pauseTask(taskId: string): Promise<ScheduledTask> {
    return this.#transition(taskId, 'pause');
  }

  /** Resumes a paused task, computing its next due time from now. */
  resumeTask(taskId: string): Promise<ScheduledTask> {
    return this.#transition(taskId, 'resume');
  }

  /** Cancels a task for good (status `cancelled`, no next run); a running occurrence finishes. */
  cancelTask(taskId: string): Promise<ScheduledTask> {
    return this.#transition(taskId, 'cancel');
  }

  async #transition(taskId: string, action: TaskAction): Promise<ScheduledTask> {
    const nowMs = await this.#now();
    const updated = await this.store.updateTask(taskId, (task) => {
      const status = nextStatus(task, action);
      if (action === 'cancel') return { status, nextRunMs: undefined };
      if (action === 'pause') return { status };
      if (task.scheduleType === 'once' && task.nextRunMs === undefined)
        return { status: 'completed' };
      return { status, nextRunMs: firstRunMs(validateSchedule(task, nowMs), nowMs) };
    });
    this.#wake();
    return updated;
  }

  /** The run log of a task, newest first (missed occurrences included). */
  async logs(taskId: string, limit = 10): Promise<TaskRun[]> {
    await this.getTask(taskId);
    return this.store.runLogs(taskId, limit);
  }

  /**
   * Runs a task once now, outside its schedule, and returns the recorded run. Aborting `signal` cancels the
   * run, which is then recorded as failed with the cancellation as its error.
   */
  async runNow(taskId: string, options: { readonly signal?: AbortSignal } = {}): Promise<TaskRun> {
    this.#requireRunner();
    const claim = await this.store.claimManual(taskId, {
      nowMs: await this.#now(),
      owner: this.owner,
      leaseMs: this.#leaseMs,
    });
    await this.#launch(claim, options.signal);
    const run = await this.store.getRun(claim.run.id);
    if (run === undefined)
      throw new SchedulerError('task_not_found', `Run ${claim.run.id} of task ${taskId} vanished`);
    return run;
  }

  #requireRunner(): RunTask {
    if (this.#runTask === undefined)
      throw new SchedulerError(
        'scheduler_unavailable',
        'no runTask was given: this scheduler cannot run tasks',
      );
    return this.#runTask;
  }

  /** The reference time: the store's shared clock when it has one (PostgreSQL), else this scheduler's clock. */
  #now(): Promise<number> {
    return this.store.currentTimeMs === undefined
      ? Promise.resolve(this.#clock.nowMs())
      : this.store.currentTimeMs();
  }

  /**
   * Starts firing due tasks (a no-op when already started); with a store that reports changes, tasks created
   * or changed by other processes wake it at once. Throws at once without a `runTask`; the promise resolves
   * when the first check has launched what was due and change reports are subscribed (awaiting it is optional).
   */
  async start(): Promise<void> {
    this.#requireRunner();
    if (this.#started) return;
    this.#started = true;
    await Promise.all([this.#watch(), this.#tick()]);
  }

  async #watch(): Promise<void> {
    const watch = this.store.watchChanges?.bind(this.store);
    if (watch === undefined) return;
    this.#unwatch = watch(() => this.#wake()).catch((error: unknown) => {
      this.#lastError = error; // polling every maxSleepMs still finds the work
      return undefined;
    });
    await this.#unwatch;
  }

  async #stopWatching(): Promise<void> {
    const unwatch = await this.#unwatch;
    this.#unwatch = undefined;
    await unwatch?.().catch((error: unknown) => {
      this.#lastError = error;
    });
  }

  /**
   * Stops firing new occurrences and waits for running ones, at most `stopTimeoutMs`; then aborts them (their
   * leases expire and another process retries them).
   */
  async stop(): Promise<void> {
    this.#started = false;
    this.#clearTimer();
    await this.#tickRun; // a claim under way launches what it claimed before stop looks at what runs
    this.#clearTimer();
    await this.#stopWatching();
    const pending = [...this.#running.values()];
    if (pending.length === 0) return;
    let timeout: TimerHandle | undefined;
    const expired = new Promise<void>((resolve) => {
      timeout = this.#timers.setTimeout(resolve, this.#stopTimeoutMs);
    });
    await Promise.race([Promise.all(pending.map((entry) => entry.promise)), expired]);
    this.#timers.clearTimeout(timeout);
    for (const entry of this.#running.values())
      entry.controller.abort(new Error('scheduler stopped'));
  }

  /** Resolves when no occurrence is running in this process and no check for due work is under way. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.#tickRun !== undefined) await this.#tickRun;
      else if (this.#running.size > 0)
        await Promise.all([...this.#running.values()].map((entry) => entry.promise));
      else if (this.#tickQueued) await new Promise<void>((resolve) => queueMicrotask(resolve));
      else return;
    }
  }

  /** Checks for due work now (normally the timer does this); resolves when the check has launched what it claimed. */
  tick(): Promise<void> {
    return this.#tick();
  }

  /** Ticks once after the current burst of work (completions, creations) instead of once per item. */
  #wake(): void {
    if (!this.#started || this.#tickQueued) return;
    this.#tickQueued = true;
    queueMicrotask(() => {
      this.#tickQueued = false;
      void this.#tick();
    });
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** One check at a time: a check asked for while one runs makes that one go round again. */
  #tick(): Promise<void> {
    if (!this.#started) return Promise.resolve();
    this.#tickAgain = true;
    this.#tickRun ??= this.#tickLoop();
    return this.#tickRun;
  }

  async #tickLoop(): Promise<void> {
    try {
      while (this.#tickAgain && this.#started) {
        this.#tickAgain = false;
        await this.#tickOnce();
      }
    } finally {
      this.#tickRun = undefined;
    }
  }

  async #tickOnce(): Promise<void> {
    this.#clearTimer();
    const free = this.#concurrency - this.#running.size;
    if (free <= 0) return; // a finishing run ticks again
    let delayMs: number;
    try {
      delayMs =
        this.store.claimDueNow === undefined
          ? await this.#claimThenLook(free)
          : await this.#claimRound(free);
    } catch (error) {
      this.#lastError = error;
      delayMs = IDLE_RETRY_MS;
    }
    if (this.#started && this.#running.size < this.#concurrency) this.#arm(delayMs);
  }

  #claimOptions(free: number) {
    return {
      owner: this.owner,
      leaseMs: this.#leaseMs,
      limit: free,
      catchupWindowMs: this.#catchupWindowMs,
      maxAttempts: this.#maxAttempts,
      maxRunsPerTaskPerMinute: this.#maxRunsPerTaskPerMinute,
    };
  }

  /** Claims at this scheduler's reference time, launches the claims, then asks when to look again. */
  async #claimThenLook(free: number): Promise<number> {
    const claimedAtMs = await this.#now();
    const claims = await this.store.claimDue({ ...this.#claimOptions(free), nowMs: claimedAtMs });
    for (const claim of claims) void this.#launch(claim);
    return this.#delayToNextWake(claims.length, claimedAtMs);
  }

  /**
   * Claims at the store's clock in one transaction that also says when to look again (`claimDueNow`), and
   * launches the claims; no separate clock read or wake-up query.
   */
  async #claimRound(free: number): Promise<number> {
    const startedMs = this.#clock.monotonicMs();
    const round: ClaimRound | undefined = await this.store.claimDueNow?.(this.#claimOptions(free));
    if (round === undefined) return IDLE_RETRY_MS;
    for (const claim of round.claims) void this.#launch(claim);
    const { nextWakeMs, nowMs } = round;
    if (nextWakeMs === undefined) return this.#maxSleepMs;
    if (nextWakeMs <= nowMs) return round.claims.length > 0 ? 0 : IDLE_RETRY_MS;
    // The store read its clock during the call: counting the whole call wakes a little early, never late.
    const elapsedMs = this.#clock.monotonicMs() - startedMs;
    return Math.min(this.#maxSleepMs, Math.max(0, Math.ceil(nextWakeMs - nowMs - elapsedMs)));
  }

  /**
   * Milliseconds until the next check: 0 when work came due after the claim was made (or more may be waiting);
   * a short back-off when work due at claim time could not be claimed (held elsewhere), never a busy loop.
   */
  async #delayToNextWake(claimed: number, claimedAtMs: number): Promise<number> {
    const wakeMs = await this.store.nextWakeMs();
    if (wakeMs === undefined) return this.#maxSleepMs;
    if (wakeMs <= claimedAtMs) return claimed > 0 ? 0 : IDLE_RETRY_MS;
    return Math.min(this.#maxSleepMs, Math.max(0, Math.ceil(wakeMs - (await this.#now()))));
  }

  #arm(delayMs: number): void {
    this.#clearTimer();
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      void this.#tick();
    }, delayMs);
  }

  #launch(claim: RunClaim, signal?: AbortSignal): Promise<void> {
    const controller = new AbortController();
    const cancel = () => controller.abort(signal?.reason);
    if (signal?.aborted) cancel();
    else signal?.addEventListener('abort', cancel, { once: true });
    const promise = this.#execute(claim, controller).finally(() => {
      signal?.removeEventListener('abort', cancel);
      this.#running.delete(claim.run.id);
      this.#wake();
    });
    this.#running.set(claim.run.id, { promise, controller });
    return promise;
  }

  async #execute(claim: RunClaim, controller: AbortController): Promise<void> {
    const { run, task } = claim;
    this.#bus?.publish('scheduler_task_start', {
      task_id: task.id,
      prompt: task.prompt,
      scheduled_for: formatIsoInstant(run.scheduledForMs),
      attempt: run.attempt,
      occurrence_key: occurrenceKey(run),
    });
    const stopRenewing = this.#keepLease(run.id, controller);
    const outcome = await this.#invoke(claim, controller.signal);
    stopRenewing();
    const recorded = await this.#complete({
      runId: run.id,
      owner: this.owner,
      // A store that completes at its own clock reads it in the completing statement.
      ...(this.store.completeRunsNow === undefined
        ? { nowMs: await this.#now().catch(() => this.#clock.nowMs()) }
        : {}),
      ...outcome,
    });
    this.#bus?.publish('scheduler_task_end', {
      task_id: task.id,
      ...outcome,
      scheduled_for: formatIsoInstant(run.scheduledForMs),
      attempt: run.attempt,
      occurrence_key: occurrenceKey(run),
      recorded,
    });
  }

  /**
   * Queues a completion; the ones finishing together are written in one transaction (one fsync). With a store
   * that completes at its own clock, one write is under way at a time and the completions finishing meanwhile
   * are written together after it.
   */
  #complete(options: CompletionNow & { readonly nowMs?: number }): Promise<boolean> {
    return new Promise((resolve) => {
      this.#completions.push({ options, resolve });
      if (this.#completions.length === 1 && this.#flushing === undefined)
        queueMicrotask(() => void this.#flushCompletions());
    });
  }

  async #flushCompletions(): Promise<void> {
    const batch = this.#completions.splice(0);
    if (batch.length === 0) return;
    if (this.store.completeRunsNow === undefined) return this.#writeCompletions(batch);
    this.#flushing = this.#writeCompletions(batch);
    await this.#flushing;
    this.#flushing = undefined;
    if (this.#completions.length > 0) await this.#flushCompletions();
  }

  async #writeCompletions(batch: readonly PendingCompletion[]): Promise<void> {
    let recorded: boolean[];
    try {
      const entries = batch.map((entry) => entry.options);
      recorded =
        this.store.completeRunsNow === undefined
          ? await this.store.completeRuns(
              entries.map((entry) => ({ ...entry, nowMs: entry.nowMs ?? this.#clock.nowMs() })),
            )
          : await this.store.completeRunsNow(entries);
    } catch (error) {
      this.#lastError = error; // the leases expire and the occurrences are retried
      recorded = batch.map(() => false);
    }
    batch.forEach((entry, index) => {
      entry.resolve(recorded[index] ?? false);
    });
  }

  async #invoke(
    claim: RunClaim,
    signal: AbortSignal,
  ): Promise<{ success: boolean; result: string; error: string }> {
    const { run, task } = claim;
    const tools = toolNames(task.tools);
    const refusal = runRefusal(task, tools);
    if (refusal !== undefined) return { success: false, result: '', error: refusal };
    if (signal.aborted) return { success: false, result: '', error: describeError(signal.reason) };
    try {
      const result: unknown = await this.#requireRunner()({
        task,
        prompt: task.prompt,
        agent: task.agent,
        tools,
        occurrenceKey: occurrenceKey(run),
        scheduledForMs: run.scheduledForMs,
        attempt: run.attempt,
        signal,
      });
      if (typeof result !== 'string')
        return {
          success: false,
          result: '',
          error: `runTask returned ${typeof result}, expected the answer text`,
        };
      return { success: true, result, error: '' };
    } catch (error) {
      return { success: false, result: '', error: describeError(error) };
    }
  }

  #keepLease(runId: number, controller: AbortController): () => void {
    let handle: TimerHandle | undefined;
    let stopped = false;
    const periodMs = Math.max(1, Math.floor(this.#leaseMs / 3));
    const renew = async () => {
      if (stopped) return;
      let held = false;
      try {
        held = await this.store.renewLease(runId, {
          nowMs: await this.#now(),
          owner: this.owner,
          leaseMs: this.#leaseMs,
        });
      } catch (error) {
        this.#lastError = error;
        held = true; // a busy or unreachable database is not a lost lease; try again next time
      }
      if (stopped) return;
      if (!held)
        controller.abort(
          new Error('lease lost: another scheduler process took over this occurrence'),
        );
      else handle = this.#timers.setTimeout(() => void renew(), periodMs);
    };
    handle = this.#timers.setTimeout(() => void renew(), periodMs);
    return () => {
      stopped = true;
      this.#timers.clearTimeout(handle);
    };
  }
}
