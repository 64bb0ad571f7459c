// The PostgreSQL side of bench/scheduler.bench.ts: scheduler worker processes (postgres-scheduler-worker.ts)
// sharing one database, started and stopped by their own handles, firing the same workload as the SQLite side.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { PostgresSchedulerStore, TaskScheduler } from '../src/scheduler/index.js';

/** The parts of the library the PostgreSQL side uses. */
export interface PostgresSchedulerLibrary {
  readonly PostgresSchedulerStore: typeof PostgresSchedulerStore;
  readonly TaskScheduler: typeof TaskScheduler;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER = join(HERE, 'postgres-scheduler-worker.ts');
const nowMs = () => performance.timeOrigin + performance.now();
/** Tasks created at once (the parent's pool holds this many connections). */
const CREATE_PARALLEL = 16;

/** Worker processes waiting for `go`; every run's lateness arrives through `lateness`. */
interface Workers {
  readonly lateness: number[];
  /** Starts every worker at once. */
  go(): void;
  /** Resolves when `count` runs were reported (rejects when a worker dies first). */
  reported(count: number): Promise<void>;
  /** Ends every worker (SIGTERM, then SIGKILL after 5 s) and waits for its exit. */
  stop(): Promise<void>;
}

function spawnOne(
  url: string,
  owner: string,
  concurrency: number,
  onLateness: (ms: number) => void,
  onExit: (error: Error) => void,
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, url, owner, String(concurrency)],
    { cwd: resolve(HERE, '..'), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const ready = new Promise<void>((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line === 'ready') done();
      else if (line.startsWith('L ')) onLateness(Number(line.slice(2)));
    });
    child.once('exit', (code, signal) => {
      const error = new Error(`worker ${owner} ended (${code ?? signal})`);
      fail(error);
      onExit(error);
    });
  });
  return { child, ready };
}

async function endChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Starts `count` worker processes on `url` and resolves once every one has opened the store. */
export async function startWorkers(
  url: string,
  count: number,
  concurrency: number,
): Promise<Workers> {
  const lateness: number[] = [];
  let waiter: { count: number; done: () => void } | undefined;
  let died: ((error: Error) => void) | undefined;
  let stopping = false;
  const record = (ms: number) => {
    lateness.push(ms);
    if (waiter !== undefined && lateness.length >= waiter.count) waiter.done();
  };
  const started = Array.from({ length: count }, (_, i) =>
    spawnOne(url, `bench-${i}`, concurrency, record, (error) => {
      if (!stopping) died?.(error);
    }),
  );
  const children = started.map((one) => one.child);
  const stop = async () => {
    stopping = true;
    for (const child of children) await endChild(child);
  };
  try {
    await Promise.all(started.map((one) => one.ready));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    lateness,
    go: () => {
      for (const child of children) child.stdin?.write('go\n');
    },
    reported: (wanted) =>
      new Promise<void>((done, fail) => {
        died = fail;
        waiter = { count: wanted, done };
        if (lateness.length >= wanted) done();
      }),
    stop,
  };
}

/** Creates `dueMs.length` once tasks, `CREATE_PARALLEL` at a time. */
async function createOnceTasks(scheduler: TaskScheduler, dueMs: readonly number[]): Promise<void> {
  for (let start = 0; start < dueMs.length; start += CREATE_PARALLEL) {
    await Promise.all(
      dueMs.slice(start, start + CREATE_PARALLEL).map((atMs) =>
        scheduler.createTask({
          prompt: 'p',
          scheduleType: 'once',
          scheduleValue: new Date(atMs).toISOString(),
        }),
      ),
    );
  }
}

/** Milliseconds one task creation takes here, `CREATE_PARALLEL` at a time (throwaway tasks, deleted after). */
async function createCostMs(scheduler: TaskScheduler): Promise<number> {
  const far = Array.from({ length: CREATE_PARALLEL * 4 }, () => nowMs() + 86_400_000);
  const started = performance.now();
  await createOnceTasks(scheduler, far);
  const costMs = (performance.now() - started) / far.length;
  const tasks = (await scheduler.listTasks()).slice(-far.length);
  await Promise.all(tasks.map((task) => scheduler.deleteTask(task.id)));
  return costMs;
}

/** Waits until `count` runs are recorded as succeeded in the database. */
async function recorded(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM scheduler_runs WHERE status = 'succeeded'",
      );
      if ((rows[0]?.n ?? 0) >= count) return;
      await delay(20);
    }
  } finally {
    await client.end();
  }
}

/** Options of the PostgreSQL cases. */
export interface PostgresCaseOptions {
  readonly lib: PostgresSchedulerLibrary;
  /** A fresh, empty database. */
  readonly url: string;
  readonly workers: number;
  /** Runs at once in each worker. */
  readonly concurrency: number;
  readonly count: number;
}

async function withSetup<T>(
  options: PostgresCaseOptions,
  body: (scheduler: TaskScheduler, workers: Workers) => Promise<T>,
): Promise<T> {
  const store = await options.lib.PostgresSchedulerStore.open({
    url: options.url,
    poolSize: CREATE_PARALLEL,
  });
  try {
    const scheduler = new options.lib.TaskScheduler({ store });
    const workers = await startWorkers(options.url, options.workers, options.concurrency);
    try {
      return await body(scheduler, workers);
    } finally {
      await workers.stop();
    }
  } finally {
    await store.close();
  }
}

/** What the lateness case measured: each run's lateness, and how long before the first due time the workers started. */
export interface PostgresLateness {
  readonly lateness: readonly number[];
  readonly marginMs: number;
}

/**
 * Once tasks `spacingMs` apart, fired by the worker processes among `background` more tasks due in a day (a
 * big schedule): the lateness of each run.
 */
export function postgresLateness(
  options: PostgresCaseOptions & { readonly spacingMs: number; readonly background: number },
): Promise<PostgresLateness> {
  return withSetup(options, async (scheduler, workers) => {
    const laterMs = nowMs() + 86_400_000;
    await createOnceTasks(
      scheduler,
      Array.from({ length: options.background }, (_, i) => laterMs + i),
    );
    const costMs = await createCostMs(scheduler);
    const firstMs = (await scheduler.store.currentTimeMs?.()) ?? nowMs();
    const leadMs = 1_000 + options.count * costMs * 1.5;
    const due = Array.from(
      { length: options.count },
      (_, i) => firstMs + leadMs + i * options.spacingMs,
    );
    await createOnceTasks(scheduler, due);
    const marginMs = (due[0] ?? 0) - nowMs();
    workers.go();
    await workers.reported(options.count);
    return { lateness: [...workers.lateness], marginMs };
  });
}

/** Every task due at once: occurrences per second until all are recorded, from the moment the workers start. */
export function postgresRate(options: PostgresCaseOptions): Promise<number> {
  return withSetup(options, async (scheduler, workers) => {
    const dueMs = (await scheduler.store.currentTimeMs?.()) ?? nowMs();
    await createOnceTasks(
      scheduler,
      Array.from({ length: options.count }, () => dueMs),
    );
    const started = performance.now();
    workers.go();
    await workers.reported(options.count);
    await recorded(options.url, options.count);
    return (options.count * 1000) / (performance.now() - started);
  });
}
