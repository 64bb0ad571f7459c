// Shared parts of the scheduler crash runs (the CI test's shape and the long run in bench/): scheduler processes
// (crash-worker.case.test.ts) killed with SIGKILL at random, the drain that finishes what they left, and the
// checks. Not a test file itself (*.case.test.ts is neither run nor built).
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { bundledScript } from '../../test/support/bundled-script.js';
import { type Clock, systemClock } from '../core/index.js';
import { SchedulerStore } from './scheduler-store.js';
import { type SchedulerStoreBackend, schedulerBackend } from './scheduler-store-backend.js';
import { ManualClock, ManualTimers } from './scheduler-test-support.case.test.js';
import { TaskScheduler } from './task-scheduler.js';
import { occurrenceKey, type TaskRun } from './task-types.js';
import { systemTimers, type Timers } from './timers.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The scheduler process the crash runs start and kill, bundled to run with plain `node`: a run starts dozens of
 * them, and a start under `node --import tsx` cost about 0.9 s of CPU against 0.3 s for the bundle.
 */
export const CRASH_WORKER = join(HERE, 'crash-worker.case.test.ts');

const REPO_ROOT = resolve(HERE, '../..');
const workers = new Set<ChildProcess>();
/** Options of `spawnWorker`. */
export interface WorkerOptions {
  /** A SQLite file, or a `postgres://` URL. */
  readonly dbPath: string;
  readonly effects: string;
  readonly owner: string;
  readonly leaseMs: number;
  /** The worker's longest sleep between checks (default 200 ms). */
  readonly maxSleepMs?: number;
  /** Added to the worker's own clock (a machine whose clock is off; default 0). */
  readonly clockSkewMs?: number;
}

/** Starts a scheduler process on `dbPath` and resolves once it runs (it prints `ready`) or died. */
export async function spawnWorker(options: WorkerOptions): Promise<ChildProcess> {
  const { dbPath, effects, owner, leaseMs } = options;
  const extra = [String(options.maxSleepMs ?? 200), String(options.clockSkewMs ?? 0)];
  const child = spawn(
    process.execPath,
    [await bundledScript(CRASH_WORKER), dbPath, effects, owner, String(leaseMs), ...extra],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  workers.add(child);
  child.once('exit', () => workers.delete(child));
  child.stderr?.resume();
  await new Promise<void>((ready) => {
    child.stdout?.once('data', () => ready());
    child.once('exit', () => ready());
  });
  child.stdout?.resume();
  return child;
}

/** Kills a worker with SIGKILL and resolves when it is gone. */
export async function killWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGKILL');
  await exited;
}

/** Kills every worker still running (cleanup after a failure). */
export async function killAllWorkers(): Promise<void> {
  for (const child of [...workers]) await killWorker(child);
}

/** Options of `createCrashTasks`. */
export interface CrashTaskOptions {
  readonly onceTasks: number;
  readonly onceSpacingMs: number;
  /** When the first once task is due, from now on the store's clock. */
  readonly leadMs: number;
  readonly intervalTasks: number;
  readonly intervalMs: number;
}

/**
 * Creates the once tasks (from `leadMs` from now, spaced out) and the interval tasks; returns the scheduler
 * that made them (to pause the interval tasks before the drain), the interval tasks, and when the last once
 * task is due plus a second.
 */
export async function createCrashTasks(
  store: SchedulerStore | SchedulerStoreBackend,
  options: CrashTaskOptions,
) {
  // a person may allow intervals below the default 1 s minimum (the crash runs need a busy schedule)
  const setup = new TaskScheduler({ store, minIntervalMs: Math.min(100, options.intervalMs) });
  const backend = setup.store;
  const nowMs = (await backend.currentTimeMs?.()) ?? systemClock.nowMs();
  const startMs = nowMs + options.leadMs;
  await Promise.all(
    Array.from({ length: options.onceTasks }, (_, i) =>
      setup.createTask({
        prompt: `once ${i}`,
        scheduleType: 'once',
        scheduleValue: new Date(startMs + i * options.onceSpacingMs).toISOString(),
      }),
    ),
  );
  const intervals = [];
  for (let i = 0; i < options.intervalTasks; i += 1)
    intervals.push(
      await setup.createTask({
        prompt: `interval ${i}`,
        scheduleType: 'interval',
        scheduleValue: String(options.intervalMs / 1000),
      }),
    );
  const lastDueMs = startMs + options.onceTasks * options.onceSpacingMs;
  return { setup, intervals, endMs: systemClock.nowMs() + (lastDueMs - nowMs) + 1_000 };
}

/** A small seeded generator, so a failing run can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Options of `killAtRandom`. */
export interface KillAtRandomOptions {
  readonly dbPath: string;
  readonly effects: string;
  readonly leaseMs: number;
  /** Wall-clock instant after which no new worker is started. */
  readonly untilMs: number;
  readonly seed: number;
  /** Worker processes alive at once (default 2). */
  readonly slots?: number;
  /** Each worker lives a random time in [minLifeMs, maxLifeMs) before its SIGKILL (default 50 to 750). */
  readonly minLifeMs?: number;
  readonly maxLifeMs?: number;
  /**
   * Kills each slot makes even past `untilMs` (default 0): on a loaded machine a worker's start-up alone can
   * take most of a short window, and a crash test must crash.
   */
  readonly minKillsPerSlot?: number;
}

/** Keeps `slots` workers going, each killed with SIGKILL after a random while, until `untilMs`; the kill count. */
export async function killAtRandom(options: KillAtRandomOptions): Promise<number> {
  const next = seededRandom(options.seed);
  const minLifeMs = options.minLifeMs ?? 50;
  const spreadMs = (options.maxLifeMs ?? 750) - minLifeMs;
  const slot = async (name: string): Promise<number> => {
    let kills = 0;
    while (kills < (options.minKillsPerSlot ?? 0) || systemClock.nowMs() < options.untilMs) {
      const worker = await spawnWorker({ ...options, owner: `${name}${kills}` });
      await delay(minLifeMs + Math.floor(next() * spreadMs));
      await killWorker(worker);
      kills += 1;
    }
    return kills;
  };
  const names = Array.from({ length: options.slots ?? 2 }, (_, i) => String.fromCharCode(65 + i));
  const counts = await Promise.all(names.map(slot));
  return counts.reduce((sum, count) => sum + count, 0);
}

/**
 * The drain's time: a hand-moved clock past every lease, or (a store with a shared clock, PostgreSQL) the real
 * one after waiting out the leases of the killed workers.
 */
async function drainTime(
  backend: SchedulerStoreBackend,
  leaseMs: number,
): Promise<{ clock: Clock; timers: Timers }> {
  if (backend.currentTimeMs === undefined) {
    const clock = new ManualClock(systemClock.nowMs() + 10 * leaseMs);
    return { clock, timers: new ManualTimers(clock) };
  }
  await delay(leaseMs + 250);
  return { clock: systemClock, timers: systemTimers };
}

/**
 * Finishes what the killed processes left, on a clock past every lease: expired occurrences are retried and
 * due once tasks run (pause interval tasks first, or they keep coming due).
 */
export async function drain(
  store: SchedulerStore | SchedulerStoreBackend,
  effects: string,
  leaseMs: number,
): Promise<void> {
  const backend = schedulerBackend(store);
  const { clock, timers } = await drainTime(backend, leaseMs);
  const scheduler = new TaskScheduler({
    store: backend,
    clock,
    timers,
    owner: 'drain',
    concurrency: 64,
    maxAttempts: 1_000,
    maxRunsPerTaskPerMinute: 1_000_000,
    runTask: async (request) => {
      appendFileSync(effects, `${request.occurrenceKey} ${request.attempt} drain\n`);
      return 'ok';
    },
  });
  await scheduler.start();
  for (let round = 0; round < 10_000; round += 1) {
    await scheduler.idle();
    const wakeMs = await backend.nextWakeMs();
    const nowMs = (await backend.currentTimeMs?.()) ?? clock.nowMs();
    if (wakeMs === undefined || wakeMs > nowMs) break;
    await scheduler.tick();
  }
  await scheduler.stop();
}

/** How many times each occurrence key's side effect ran (one line per execution in the effects file). */
export function effectCounts(effects: string): Map<string, number> {
  const counts = new Map<string, number>();
  const text = existsSync(effects) ? readFileSync(effects, 'utf8') : '';
  for (const line of text.split('\n').filter(Boolean)) {
    const key = line.split(' ')[0] ?? '';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** What a crash run left in the database and the effects file. */
export interface CrashCheck {
  /** Occurrences in the run log (succeeded, missed, anything else). */
  readonly occurrences: number;
  readonly succeeded: number;
  /** Late occurrences recorded as missed instead of run (downtime beyond the catch-up rule). */
  readonly missed: number;
  /**
   * Occurrences that should exist but do not, or did not finish: once tasks never completed, gaps in an interval
   * task's sequence, runs left running or failed, successes whose side effect never ran, side effects of
   * occurrences the log does not know.
   */
  readonly lost: number;
  /** Occurrences recorded more than once (two rows for one task and time, or two for one once task). */
  readonly duplicated: number;
  /** Interval runs off the task's grid of due times. */
  readonly offSchedule: number;
  /** Side effects run again after a kill (allowed: at most one per kill; the occurrence key deduplicates them). */
  readonly reExecutions: number;
  /** Side effects the worker processes ran (the rest ran in the drain). */
  readonly workerExecutions: number;
  /** `PRAGMA integrity_check` (SQLite); `not applicable` for another backend. */
  readonly integrity: string;
}

function intervalCounts(runs: readonly TaskRun[], intervalMs: number) {
  const times = [...new Set(runs.map((run) => run.scheduledForMs))].sort((a, b) => a - b);
  const first = times[0];
  if (first === undefined) return { gaps: 0, offSchedule: 0 };
  const aligned = times.filter((time) => (time - first) % intervalMs === 0);
  const expected = Math.round(((times.at(-1) ?? first) - first) / intervalMs) + 1;
  return { gaps: expected - aligned.length, offSchedule: times.length - aligned.length };
}

async function lostOnceTasks(store: SchedulerStoreBackend, byTask: ReadonlyMap<string, TaskRun[]>) {
  const once = (await store.listTasks()).filter((task) => task.scheduleType === 'once');
  return {
    lost: once.filter((task) => task.status !== 'completed' || !byTask.has(task.id)).length,
    duplicated: once.filter((task) => (byTask.get(task.id)?.length ?? 0) > 1).length,
  };
}

/** Counts what a crash run lost, duplicated or broke; `intervals` are the interval tasks and their periods. */
export async function checkCrashRun(
  store: SchedulerStore | SchedulerStoreBackend,
  effects: string,
  intervals: readonly { readonly id: string; readonly intervalMs: number }[],
): Promise<CrashCheck> {
  const backend = schedulerBackend(store);
  const runs = await backend.allRuns();
  const byTask = new Map<string, TaskRun[]>();
  for (const run of runs) {
    const list = byTask.get(run.taskId);
    if (list === undefined) byTask.set(run.taskId, [run]);
    else list.push(run);
  }
  const once = await lostOnceTasks(backend, byTask);
  const grid = intervals.map((task) => intervalCounts(byTask.get(task.id) ?? [], task.intervalMs));
  const counts = effectCounts(effects);
  const keys = new Set(runs.map(occurrenceKey));
  const succeeded = runs.filter((run) => run.status === 'succeeded');
  const lost =
    once.lost +
    grid.reduce((sum, entry) => sum + entry.gaps, 0) +
    runs.filter((run) => run.status === 'running' || run.status === 'failed').length +
    succeeded.filter((run) => !counts.has(occurrenceKey(run))).length +
    [...counts.keys()].filter((key) => !keys.has(key)).length;
  const lines = existsSync(effects)
    ? readFileSync(effects, 'utf8').split('\n').filter(Boolean)
    : [];
  return {
    occurrences: runs.length,
    succeeded: succeeded.length,
    missed: runs.filter((run) => run.status === 'missed').length,
    lost,
    duplicated: runs.length - keys.size + once.duplicated,
    offSchedule: grid.reduce((sum, entry) => sum + entry.offSchedule, 0),
    reExecutions: [...counts.values()].reduce((sum, count) => sum + count - 1, 0),
    workerExecutions: lines.filter((line) => !line.endsWith(' drain')).length,
    integrity: store instanceof SchedulerStore ? store.integrityCheck() : 'not applicable',
  };
}
