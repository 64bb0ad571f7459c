// A scheduler process for the crash tests (bundled and run with `node` by crash-harness; not a test file itself).
// Usage: crash-worker.case.test.ts <dbPath | postgres://url> <effectsFile> <owner> <leaseMs> [maxSleepMs] [clockSkewMs]
// Every run appends "<occurrenceKey> <attempt> <owner>" to the effects file (the side effect), then takes a few ms.
import { appendFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { systemClock } from '../core/index.js';
import { PostgresSchedulerStore } from './postgres-scheduler-store.js';
import { SchedulerStore } from './scheduler-store.js';
import type { SchedulerStoreBackend } from './scheduler-store-backend.js';
import { TaskScheduler } from './task-scheduler.js';

const [dbPath, effectsFile, owner, leaseText, sleepText, skewText] = process.argv.slice(2);
if (dbPath === undefined || effectsFile === undefined || owner === undefined) {
  process.exitCode = 2;
  throw new Error(
    'usage: crash-worker <dbPath> <effectsFile> <owner> <leaseMs> [maxSleepMs] [clockSkewMs]',
  );
}

const skewMs = Number(skewText ?? '0');
const store: SchedulerStore | SchedulerStoreBackend = dbPath.startsWith('postgres')
  ? await PostgresSchedulerStore.open({ url: dbPath, poolSize: 2 })
  : new SchedulerStore({ dbPath });
const scheduler = new TaskScheduler({
  store,
  owner,
  concurrency: 1,
  clock: {
    nowMs: () => systemClock.nowMs() + skewMs,
    monotonicMs: () => systemClock.monotonicMs(),
  },
  leaseMs: Number(leaseText ?? '2000'),
  maxAttempts: 1_000,
  maxSleepMs: Number(sleepText ?? '200'),
  maxRunsPerTaskPerMinute: 1_000_000, // the crash runs' interval tasks come due several times a second
  runTask: async (request) => {
    appendFileSync(effectsFile, `${request.occurrenceKey} ${request.attempt} ${owner}\n`);
    await delay(Math.floor(Math.random() * 8));
    return 'ok';
  },
});
await scheduler.start();
process.stdout.write('ready\n');
