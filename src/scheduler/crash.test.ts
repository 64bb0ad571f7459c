import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../core/index.js';
import { checkCrashRun, drain, killAllWorkers, killAtRandom } from './crash-harness.case.test.js';
import { SchedulerStore } from './scheduler-store.js';
import { tempDir } from './scheduler-test-support.case.test.js';
import { TaskScheduler } from './task-scheduler.js';

// Two scheduler processes share one database and are killed with SIGKILL at random moments while occurrences
// come due; afterwards no occurrence is lost, none is completed twice, and the database is intact.
// This test runs real processes, so it waits on real time (about 10 s); the long run lives in bench/.

const LEASE_MS = 2_000;
const ONCE_TASKS = 250;
const ONCE_SPACING_MS = 24;
const INTERVAL_TASKS = 3;
const INTERVAL_SECONDS = '0.3';

const cleanups: (() => void)[] = [];

afterEach(async () => {
  await killAllWorkers();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** Creates the once tasks (from 1.5 s from now, spaced out) and the interval tasks; returns the latter. */
function createTasks(store: SchedulerStore) {
  const setup = new TaskScheduler({ store, minIntervalMs: 100 }); // a person may allow short intervals
  const startMs = systemClock.nowMs() + 1_500;
  for (let i = 0; i < ONCE_TASKS; i += 1) {
    const when = new Date(startMs + i * ONCE_SPACING_MS).toISOString();
    setup.createTask({ prompt: `once ${i}`, scheduleType: 'once', scheduleValue: when });
  }
  const intervals = Array.from({ length: INTERVAL_TASKS }, (_, i) =>
    setup.createTask({
      prompt: `interval ${i}`,
      scheduleType: 'interval',
      scheduleValue: INTERVAL_SECONDS,
    }),
  );
  return { setup, intervals, endMs: startMs + ONCE_TASKS * ONCE_SPACING_MS + 1_000 };
}

describe('scheduler crash safety', () => {
  it('two processes killed with SIGKILL at random: no occurrence lost, none completed twice', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const dbPath = join(dir.path, 'scheduler.db');
    const effects = join(dir.path, 'effects.log');
    const store = new SchedulerStore({ dbPath });
    cleanups.push(() => store.close());
    const { setup, intervals, endMs } = createTasks(store);
    const kills = await killAtRandom({
      dbPath,
      effects,
      leaseMs: LEASE_MS,
      untilMs: endMs,
      seed: 7,
      minKillsPerSlot: 3,
    });
    for (const task of intervals) setup.pauseTask(task.id);
    await drain(store, effects, LEASE_MS);

    const check = checkCrashRun(
      store,
      effects,
      intervals.map((task) => ({ id: task.id, intervalMs: 300 })),
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
