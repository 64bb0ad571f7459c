import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkCrashRun,
  createCrashTasks,
  drain,
  killAllWorkers,
  killAtRandom,
} from './crash-harness.case.test.js';
import { SchedulerStore } from './scheduler-store.js';
import { tempDir } from './scheduler-test-support.case.test.js';

// Two scheduler processes share one database and are killed with SIGKILL at random moments while occurrences
// come due; afterwards no occurrence is lost, none is completed twice, and the database is intact.
// This test runs real processes, so it waits on real time (about 10 s); the long run lives in bench/.
// postgres-crash.test.ts runs the same on PostgreSQL with four workers and a server restart.

const LEASE_MS = 2_000;
const ONCE_TASKS = 250;
const INTERVAL_MS = 300;

const cleanups: (() => void)[] = [];

afterEach(async () => {
  await killAllWorkers();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe('scheduler crash safety', () => {
  it('two processes killed with SIGKILL at random: no occurrence lost, none completed twice', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const dbPath = join(dir.path, 'scheduler.db');
    const effects = join(dir.path, 'effects.log');
    const store = new SchedulerStore({ dbPath });
    cleanups.push(() => store.close());
    const { setup, intervals, endMs } = await createCrashTasks(store, {
      onceTasks: ONCE_TASKS,
      onceSpacingMs: 24,
      leadMs: 1_500,
      intervalTasks: 3,
      intervalMs: INTERVAL_MS,
    });
    const kills = await killAtRandom({
      dbPath,
      effects,
      leaseMs: LEASE_MS,
      untilMs: endMs,
      seed: 7,
      minKillsPerSlot: 3,
    });
    for (const task of intervals) await setup.pauseTask(task.id);
    await drain(store, effects, LEASE_MS);

    const check = await checkCrashRun(
      store,
      effects,
      intervals.map((task) => ({ id: task.id, intervalMs: INTERVAL_MS })),
    );
    expect(check).toMatchObject({ integrity: 'ok', lost: 0, duplicated: 0, offSchedule: 0 });
    expect(check.occurrences).toBeGreaterThanOrEqual(ONCE_TASKS);
    expect(kills).toBeGreaterThan(5);
    expect(check.reExecutions).toBeLessThanOrEqual(kills);
    // The killed workers did a real share of the work (not the drain alone); a quarter, because on a loaded
    // machine each restart of a worker takes longer and the drain picks up more (seen: 118 of 250).
    expect(check.workerExecutions).toBeGreaterThan(ONCE_TASKS / 4);
  }, 60_000);
});
