import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../core/index.js';
import { SchedulerStore } from './scheduler-store.js';
import { ManualClock, ManualTimers, tempDir } from './scheduler-test-support.case.test.js';
import { TaskScheduler } from './task-scheduler.js';
import { occurrenceKey, type TaskRun } from './task-types.js';

// Two scheduler processes share one database and are killed with SIGKILL at random moments while occurrences
// come due; afterwards no occurrence is lost, none is completed twice, and the database is intact.
// This test runs real processes, so it waits on real time (about 10 s); the long run lives in bench/.

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'crash-worker.case.test.ts');
const LEASE_MS = 2_000;
const ONCE_TASKS = 250;
const ONCE_SPACING_MS = 24;
const INTERVAL_TASKS = 3;
const INTERVAL_SECONDS = '0.3';

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const child of children) await killAndWait(child);
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** Starts a scheduler process and resolves once it is running (it prints `ready`). */
async function spawnWorker(dbPath: string, effects: string, owner: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, dbPath, effects, owner, String(LEASE_MS)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.stderr?.resume();
  await new Promise<void>((resolve) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', () => resolve());
  });
  child.stdout?.resume();
  return child;
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** A small seeded generator, so a failing run can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * One worker slot: start a process, let it run for a random while, SIGKILL it, again until `untilMs` and at
 * least three times (on a loaded machine a worker's start-up alone can take most of the window).
 */
async function killLoop(options: {
  readonly dbPath: string;
  readonly effects: string;
  readonly name: string;
  readonly untilMs: number;
  readonly next: () => number;
}): Promise<number> {
  let kills = 0;
  while (kills < 3 || systemClock.nowMs() < options.untilMs) {
    const worker = await spawnWorker(options.dbPath, options.effects, `${options.name}${kills}`);
    await delay(50 + Math.floor(options.next() * 700));
    await killAndWait(worker);
    kills += 1;
  }
  return kills;
}

async function killAtRandom(
  dbPath: string,
  effects: string,
  untilMs: number,
  seed: number,
): Promise<number> {
  const next = random(seed);
  const counts = await Promise.all(
    ['A', 'B'].map((name) => killLoop({ dbPath, effects, name, untilMs, next })),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Finishes what the killed processes left: expired leases are retried and the remaining once tasks run. */
async function drain(store: SchedulerStore, effects: string): Promise<void> {
  const clock = new ManualClock(systemClock.nowMs() + 10 * LEASE_MS);
  const { appendFileSync } = await import('node:fs');
  const scheduler = new TaskScheduler({
    store,
    clock,
    timers: new ManualTimers(clock),
    owner: 'drain',
    concurrency: 64,
    maxAttempts: 1_000,
    runTask: async (request) => {
      appendFileSync(effects, `${request.occurrenceKey} ${request.attempt} drain\n`);
      return 'ok';
    },
  });
  scheduler.start();
  for (
    let round = 0;
    round < 20 && store.allRuns().some((run) => run.status === 'running');
    round += 1
  ) {
    scheduler.tick();
    await scheduler.idle();
  }
  await scheduler.stop();
}

function effectCounts(effects: string): Map<string, number> {
  const counts = new Map<string, number>();
  const text = existsSync(effects) ? readFileSync(effects, 'utf8') : '';
  for (const line of text.split('\n').filter(Boolean)) {
    const key = line.split(' ')[0] ?? '';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function checkIntervalRuns(runs: readonly TaskRun[], intervalMs: number): void {
  const times = runs.map((run) => run.scheduledForMs).sort((a, b) => a - b);
  const first = times[0] ?? 0;
  expect(times).toEqual(times.map((_, i) => first + i * intervalMs)); // no gap: nothing lost
  for (const run of runs) expect(['succeeded', 'missed']).toContain(run.status);
}

describe('scheduler crash safety', () => {
  it('two processes killed with SIGKILL at random: no occurrence lost, none completed twice', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const dbPath = join(dir.path, 'scheduler.db');
    const effects = join(dir.path, 'effects.log');
    const store = new SchedulerStore({ dbPath });
    cleanups.push(() => store.close());
    const setupScheduler = new TaskScheduler({ store });
    const startMs = systemClock.nowMs() + 1_500;
    for (let i = 0; i < ONCE_TASKS; i += 1) {
      const when = new Date(startMs + i * ONCE_SPACING_MS).toISOString();
      setupScheduler.createTask({ prompt: `once ${i}`, scheduleType: 'once', scheduleValue: when });
    }
    const intervals = Array.from({ length: INTERVAL_TASKS }, (_, i) =>
      setupScheduler.createTask({
        prompt: `interval ${i}`,
        scheduleType: 'interval',
        scheduleValue: INTERVAL_SECONDS,
      }),
    );
    const kills = await killAtRandom(
      dbPath,
      effects,
      startMs + ONCE_TASKS * ONCE_SPACING_MS + 1_000,
      7,
    );
    for (const task of intervals) setupScheduler.pauseTask(task.id);
    await drain(store, effects);

    expect(store.integrityCheck()).toBe('ok');
    const runs = store.allRuns();
    expect(runs.filter((run) => run.status === 'running' || run.status === 'failed')).toEqual([]);
    const onceTasks = store.listTasks().filter((task) => task.scheduleType === 'once');
    expect(onceTasks.every((task) => task.status === 'completed')).toBe(true);
    const onceRuns = runs.filter((run) => onceTasks.some((task) => task.id === run.taskId));
    expect(onceRuns).toHaveLength(ONCE_TASKS); // one completion record per occurrence (the key is unique)
    for (const task of intervals)
      checkIntervalRuns(
        runs.filter((run) => run.taskId === task.id),
        300,
      );

    const counts = effectCounts(effects);
    const succeeded = runs.filter((run) => run.status === 'succeeded');
    for (const run of succeeded) expect(counts.get(occurrenceKey(run)) ?? 0).toBeGreaterThan(0);
    const keys = new Set(runs.map(occurrenceKey));
    for (const key of counts.keys()) expect(keys.has(key)).toBe(true);
    const reExecutions = [...counts.values()].reduce((sum, count) => sum + count - 1, 0);
    expect(kills).toBeGreaterThan(5);
    expect(reExecutions).toBeLessThanOrEqual(kills);
    const workerRuns = readFileSync(effects, 'utf8')
      .split('\n')
      .filter((line) => !line.endsWith(' drain'));
    expect(workerRuns.length).toBeGreaterThan(ONCE_TASKS / 2); // the workers did most of the work
  }, 60_000);
});
