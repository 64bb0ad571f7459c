// One scheduler process of the PostgreSQL side of bench/scheduler.bench.ts (not a bench itself).
// Usage: node --import tsx bench/postgres-scheduler-worker.ts <postgres://url> <owner> <concurrency>
// Opens the store and prints `ready`; starts firing when a line `go` arrives on stdin; prints one line per
// run, the lateness in ms after its due time (`L <ms>`); stops cleanly on SIGTERM or when stdin ends.
import { createInterface } from 'node:readline';
import { library } from './library.js';

const [url, owner, concurrencyText] = process.argv.slice(2);
if (url === undefined || owner === undefined) {
  process.exitCode = 2;
  throw new Error('usage: postgres-scheduler-worker <postgres://url> <owner> [concurrency]');
}

const nowMs = () => performance.timeOrigin + performance.now();
const store = await library.PostgresSchedulerStore.open({ url, poolSize: 4 });
const scheduler = new library.TaskScheduler({
  store,
  owner,
  concurrency: Number(concurrencyText ?? '16'),
  runTask: async (request) => {
    process.stdout.write(`L ${(nowMs() - request.scheduledForMs).toFixed(3)}\n`);
    return '';
  },
});

let stopping: Promise<void> | undefined;
const stop = () => {
  stopping ??= (async () => {
    await scheduler.stop();
    await store.close();
    process.exit(0);
  })();
  return stopping;
};
process.once('SIGTERM', () => void stop());

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() !== 'go') return;
  scheduler.start().catch((error: unknown) => {
    process.stderr.write(`the scheduler did not start: ${String(error)}\n`);
    process.exit(1);
  });
});
lines.once('close', () => void stop());
process.stdout.write('ready\n');
