import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { systemClock } from '../core/index.js';
import {
  checkCrashRun,
  createCrashTasks,
  drain,
  killAllWorkers,
  killAtRandom,
} from './crash-harness.case.test.js';
import { PostgresSchedulerStore } from './postgres-scheduler-store.js';
import { tempDir } from './scheduler-test-support.case.test.js';

// crash.test.ts on PostgreSQL: four scheduler processes share one database and are killed with SIGKILL at
// random moments while occurrences come due, and the PostgreSQL server is restarted in the middle (every
// connection cut); afterwards no occurrence is lost and none is completed twice. Real processes and a real
// server, so it waits on real time.

const postgres = usePostgres();
const LEASE_MS = 2_000;
const ONCE_TASKS = 120;
const INTERVAL_MS = 300;
const WORKERS = 4;
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllWorkers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const lineCount = (path: string): number => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe('scheduler crash safety on PostgreSQL', () => {
  it('four processes killed with SIGKILL and a server restart: no occurrence lost, none completed twice', async (ctx) => {
    const server = postgres.server(ctx);
    const url = await server.createDatabase();
    const dir = tempDir();
    cleanups.push(dir.remove);
    const effects = join(dir.path, 'effects.log');
    const store = await PostgresSchedulerStore.open({ url, poolSize: 2 });
    cleanups.push(() => store.close());
    const { setup, intervals, endMs } = await createCrashTasks(store, {
      onceTasks: ONCE_TASKS,
      onceSpacingMs: 25,
      leadMs: 1_500,
      intervalTasks: 3,
      intervalMs: INTERVAL_MS,
    });
    const restartAtMs = (systemClock.nowMs() + endMs) / 2;
    const restart = (async () => {
      await delay(Math.max(0, restartAtMs - systemClock.nowMs()));
      await server.restart();
      return lineCount(effects); // side effects before the server came back
    })();
    const kills = await killAtRandom({
      dbPath: url,
      effects,
      leaseMs: LEASE_MS,
      untilMs: endMs,
      seed: 11,
      slots: WORKERS,
      minLifeMs: 300,
      maxLifeMs: 1_500,
      minKillsPerSlot: 2,
    });
    const linesAtRestart = await restart;
    const workerLines = lineCount(effects);
    for (const task of intervals) await setup.pauseTask(task.id);
    await drain(store, effects, LEASE_MS);

    const check = await checkCrashRun(
      store,
      effects,
      intervals.map((task) => ({ id: task.id, intervalMs: INTERVAL_MS })),
    );
    expect(check).toMatchObject({ lost: 0, duplicated: 0, offSchedule: 0 });
    expect(check.occurrences).toBeGreaterThanOrEqual(ONCE_TASKS);
    expect(kills).toBeGreaterThanOrEqual(WORKERS * 2);
    // A kill re-runs at most the occurrence the worker was running; the restart may cut the commit of one
    // completion per worker (the occurrence then runs again), never more.
    expect(check.reExecutions).toBeLessThanOrEqual(kills + WORKERS);
    // The workers reconnected after the restart and kept working (not the final drain alone).
    expect(workerLines).toBeGreaterThan(linesAtRestart);
    // Real work by the workers, not the final drain alone (a loose bound: a loaded machine runs fewer).
    expect(check.workerExecutions).toBeGreaterThan(ONCE_TASKS / 8);
  }, 90_000);
});
