// Scheduler crash safety, the long run (the CI tests in src/scheduler/crash.test.ts and postgres-crash.test.ts
// are the short ones): scheduler processes share one database (two on a SQLite file, then four on PostgreSQL)
// and are killed with SIGKILL at random moments for minutes while once tasks keep being created and interval
// tasks keep coming due; then no occurrence may be lost, none completed twice, and the database's own check
// (PRAGMA integrity_check; amcheck on PostgreSQL) must say ok.
// Standalone: node --import tsx bench/scheduler-crash.bench.ts [--quick] [--sqlite-only | --postgres-only]
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { systemClock } from '../src/core/index.js';
import {
  type CrashCheck,
  checkCrashRun,
  drain,
  killAllWorkers,
  killAtRandom,
} from '../src/scheduler/crash-harness.case.test.js';
import {
  PostgresSchedulerStore,
  SchedulerStore,
  type SchedulerStoreBackend,
  TaskScheduler,
} from '../src/scheduler/index.js';
import { tempDir } from '../src/scheduler/scheduler-test-support.case.test.js';
import { isSkipped, startPostgres } from '../test/support/postgres-server.js';

/** Options of `schedulerCrashBench`. */
export interface SchedulerCrashBenchOptions {
  /** About 20 s instead of about 2.5 minutes. */
  readonly quick?: boolean;
  readonly seed?: number;
  /** Which databases to run on (default both, SQLite first; PostgreSQL is reported as skipped when absent). */
  readonly backends?: readonly ('sqlite' | 'postgres')[];
}

const LEASE_MS = 2_000;
const ONCE_SPACING_MS = 25;
const ONCE_LEAD_MS = 400;
const INTERVAL_TASKS = 4;
const INTERVAL_MS = 250;

/** Creates a once task due shortly, every `ONCE_SPACING_MS`, until `untilMs`; how many it created. */
async function produceOnceTasks(scheduler: TaskScheduler, untilMs: number): Promise<number> {
  let created = 0;
  while (systemClock.nowMs() < untilMs) {
    await scheduler.createTask({
      prompt: `once ${created}`,
      scheduleType: 'once',
      scheduleValue: new Date(systemClock.nowMs() + ONCE_LEAD_MS).toISOString(),
    });
    created += 1;
    await delay(ONCE_SPACING_MS);
  }
  return created;
}

interface CrashRun {
  /** What the workers shared, for the title: `2 processes on one database`. */
  readonly setting: string;
  readonly check: CrashCheck;
  readonly kills: number;
  readonly onceTasks: number;
  readonly seconds: number;
}

/** One crash run's database and workers. */
interface CrashSetup {
  /** The store the bench creates tasks with and checks through. */
  readonly store: SchedulerStore | SchedulerStoreBackend;
  /** What the workers open: the SQLite file or the `postgres://` URL. */
  readonly dbPath: string;
  readonly setting: string;
  readonly slots: number;
  readonly minLifeMs?: number;
  readonly maxLifeMs?: number;
  /** The database's own consistency check, run after the workers are gone. */
  readonly integrity?: () => Promise<string>;
}

async function crashRun(setup: CrashSetup, effects: string, durationMs: number, seed: number) {
  const { store, dbPath } = setup;
  try {
    // a person may allow intervals below the default 1 s minimum (the crash run needs a busy schedule)
    const creator = new TaskScheduler({ store, minIntervalMs: INTERVAL_MS });
    const intervals = await Promise.all(
      Array.from({ length: INTERVAL_TASKS }, (_, i) =>
        creator.createTask({
          prompt: `interval ${i}`,
          scheduleType: 'interval',
          scheduleValue: String(INTERVAL_MS / 1000),
        }),
      ),
    );
    const started = performance.now();
    const untilMs = systemClock.nowMs() + durationMs;
    const [kills, onceTasks] = await Promise.all([
      killAtRandom({
        dbPath,
        effects,
        leaseMs: LEASE_MS,
        untilMs,
        seed,
        slots: setup.slots,
        ...(setup.minLifeMs === undefined ? {} : { minLifeMs: setup.minLifeMs }),
        ...(setup.maxLifeMs === undefined ? {} : { maxLifeMs: setup.maxLifeMs }),
      }),
      produceOnceTasks(creator, untilMs),
    ]);
    const seconds = (performance.now() - started) / 1000;
    for (const task of intervals) await creator.pauseTask(task.id);
    await drain(store, effects, LEASE_MS);
    const checked = await checkCrashRun(
      store,
      effects,
      intervals.map((task) => ({ id: task.id, intervalMs: INTERVAL_MS })),
    );
    const check =
      setup.integrity === undefined ? checked : { ...checked, integrity: await setup.integrity() };
    return { setting: setup.setting, check, kills, onceTasks, seconds } satisfies CrashRun;
  } finally {
    await killAllWorkers();
    await store.close();
  }
}

/** Renders the run as a bench table (`## title`, header, rule, rows, goal) like bench/harness.ts. */
export function formatCrashReport(run: CrashRun): string {
  const { check } = run;
  const rows: [string, string, string][] = [
    ['occurrences recorded', String(check.occurrences), ''],
    ['  once tasks created', String(run.onceTasks), ''],
    ['  succeeded / missed', `${check.succeeded} / ${check.missed}`, ''],
    ['  run by the workers', String(check.workerExecutions), '(the rest by the final drain)'],
    ['kills (SIGKILL)', String(run.kills), ''],
    ['re-executed after a kill', String(check.reExecutions), `<= ${run.kills} (one per kill)`],
    ['lost', String(check.lost), '0'],
    ['duplicated', String(check.duplicated), '0'],
    ['off schedule', String(check.offSchedule), '0'],
    ['integrity check', check.integrity, 'ok'],
  ];
  const header: [string, string, string] = ['measure', 'value', 'expected'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const met = crashGoalMet(run);
  return [
    `## Scheduler crash safety (${run.setting}, SIGKILL at random for ${run.seconds.toFixed(0)} s)`,
    line(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map(line),
    `goal: no occurrence lost, none completed twice, integrity ok: ${met ? 'met' : 'NOT met'}`,
  ].join('\n');
}

function crashGoalMet(run: CrashRun): boolean {
  const { check } = run;
  return (
    check.lost === 0 &&
    check.duplicated === 0 &&
    check.offSchedule === 0 &&
    check.integrity === 'ok' &&
    check.reExecutions <= run.kills
  );
}

/**
 * PostgreSQL's own check of the scheduler tables after the run (the counterpart of PRAGMA integrity_check):
 * amcheck's `verify_heapam` on both tables and `bt_index_check` on every index of theirs.
 */
async function amcheck(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS amcheck');
    const { rows: heap } = await client.query(
      `SELECT t.relname, v.* FROM (VALUES ('scheduler_tasks'), ('scheduler_runs')) AS t(relname),
         LATERAL verify_heapam(t.relname::regclass) AS v`,
    );
    const { rows: indexes } = await client.query<{ name: string }>(
      `SELECT c.relname AS name, bt_index_check(c.oid, true) FROM pg_index i
         JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
       WHERE am.amname = 'btree' AND i.indrelid IN ('scheduler_tasks'::regclass, 'scheduler_runs'::regclass)`,
    );
    if (heap.length > 0)
      return `amcheck: ${heap.length} heap problem(s): ${JSON.stringify(heap[0])}`;
    return indexes.length > 0 ? 'ok' : 'amcheck found no index to check';
  } catch (error) {
    return `amcheck failed: ${(error as Error).message}`;
  } finally {
    await client.end();
  }
}

/** The run on PostgreSQL: four worker processes on one fresh database of a throwaway server. */
async function postgresCrashRun(effects: string, durationMs: number, seed: number) {
  const server = await startPostgres();
  if (isSkipped(server)) return `PostgreSQL crash bench ${server.skipped}`;
  try {
    const url = await server.createDatabase();
    const store = await PostgresSchedulerStore.open({ url, poolSize: 2 });
    const setup: CrashSetup = {
      store,
      dbPath: url,
      setting: '4 processes on one PostgreSQL database',
      slots: 4,
      // a PostgreSQL worker takes longer to start (a pool, the schema check) than a SQLite one: longer
      // lives, so that the workers (not the final drain) run most occurrences
      minLifeMs: 1_000,
      maxLifeMs: 4_000,
      integrity: () => amcheck(url),
    };
    return formatCrashReport(await crashRun(setup, effects, durationMs, seed));
  } finally {
    await server.stop();
  }
}

/**
 * Runs the long crash test on each backend (about 2.5 minutes each; `quick`: about 20 s each) and returns
 * their report tables.
 */
export async function schedulerCrashBench(
  options: SchedulerCrashBenchOptions = {},
): Promise<string> {
  const directory = tempDir('jarvis-scheduler-crash-bench-');
  const durationMs = options.quick === true ? 15_000 : 140_000;
  const seed = options.seed ?? 11;
  const backends = options.backends ?? ['sqlite', 'postgres'];
  const reports: string[] = [];
  try {
    if (backends.includes('sqlite')) {
      const dbPath = join(directory.path, 'scheduler.db');
      const store = new SchedulerStore({ dbPath });
      const setting = '2 processes on one SQLite database';
      const setup: CrashSetup = { store, dbPath, setting, slots: 2 };
      const effects = join(directory.path, 'effects.log');
      reports.push(formatCrashReport(await crashRun(setup, effects, durationMs, seed)));
    }
    if (backends.includes('postgres'))
      reports.push(
        await postgresCrashRun(join(directory.path, 'pg-effects.log'), durationMs, seed),
      );
    return reports.join('\n\n');
  } finally {
    directory.remove();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const only = process.argv.includes('--sqlite-only')
    ? (['sqlite'] as const)
    : process.argv.includes('--postgres-only')
      ? (['postgres'] as const)
      : undefined;
  console.log(
    await schedulerCrashBench({
      quick: process.argv.includes('--quick'),
      ...(only === undefined ? {} : { backends: only }),
    }),
  );
}
