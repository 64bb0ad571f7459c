// A scheduler process for the crash test (run with `node --import tsx`; not a test file itself).
// Usage: crash-worker.case.test.ts <dbPath> <effectsFile> <owner> <leaseMs>
// Every run appends "<occurrenceKey> <attempt> <owner>" to the effects file (the side effect), then takes a few ms.
import { appendFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { SchedulerStore } from './scheduler-store.js';
import { TaskScheduler } from './task-scheduler.js';

const [dbPath, effectsFile, owner, leaseText] = process.argv.slice(2);
if (dbPath === undefined || effectsFile === undefined || owner === undefined) {
  process.exitCode = 2;
  throw new Error('usage: crash-worker <dbPath> <effectsFile> <owner> <leaseMs>');
}

const store = new SchedulerStore({ dbPath });
const scheduler = new TaskScheduler({
  store,
  owner,
  concurrency: 1,
  leaseMs: Number(leaseText ?? '2000'),
  maxAttempts: 1_000,
  maxSleepMs: 200,
  maxRunsPerTaskPerMinute: 1_000_000, // the crash runs' interval tasks come due several times a second
  runTask: async (request) => {
    appendFileSync(effectsFile, `${request.occurrenceKey} ${request.attempt} ${owner}\n`);
    await delay(Math.floor(Math.random() * 8));
    return 'ok';
  },
});
scheduler.start();
process.stdout.write('ready\n');
