// Scheduler benchmark: firing precision (lateness of each run after its due time, p50/p95/p99) and throughput
// (due tasks per second with a no-op runner), each next to a bare setTimeout baseline measured in the same run;
// one worker on SQLite next to 4 worker processes sharing one PostgreSQL database (issue 19), same workload.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  PostgresSchedulerStore,
  SchedulerStore,
  TaskScheduler,
} from '../src/scheduler/index.js';
import { isSkipped, startPostgres } from '../test/support/postgres-server.js';
import { library } from './library.js';
import { postgresLateness, postgresRate } from './scheduler-postgres.js';

/** The parts of the library this benchmark uses. */
export interface SchedulerLibrary {
  readonly SchedulerStore: typeof SchedulerStore;
  readonly TaskScheduler: typeof TaskScheduler;
  /** The PostgreSQL side runs when present (and PostgreSQL is installed). */
  readonly PostgresSchedulerStore?: typeof PostgresSchedulerStore;
}

/** Options of `schedulerBench`. */
export interface SchedulerBenchOptions {
  /** Fewer occurrences per case. */
  readonly quick?: boolean;
  /** Leave out the PostgreSQL side. */
  readonly skipPostgres?: boolean;
  /** The implementation to measure; the built package (`dist/`) by default. */
  readonly implementation?: SchedulerLibrary;
}

/** The prepared benchmark: `run()` measures and returns the report text, `close()` removes its files. */
export interface SchedulerBench {
  readonly run: () => Promise<string>;
  readonly close: () => Promise<void>;
}

interface LatenessRow {
  readonly name: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly samples: number;
}

interface RateRow {
  readonly name: string;
  readonly perSecond: number;
}

const GOAL_P95_MS = 20;
const SPACING_MS = 10;
const PG_WORKERS = 4;
/** Runs at once: the SQLite worker's, and the PostgreSQL workers' together. */
const CONCURRENCY = 64;
const nowMs = () => performance.timeOrigin + performance.now();

/** The nearest-rank percentile (`p` from 0 to 100). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

function latenessRow(name: string, lateness: readonly number[]): LatenessRow {
  return {
    name,
    p50Ms: percentile(lateness, 50),
    p95Ms: percentile(lateness, 95),
    p99Ms: percentile(lateness, 99),
    maxMs: lateness.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY),
    samples: lateness.length,
  };
}

function resolveLibrary(override: SchedulerLibrary | undefined): SchedulerLibrary {
  const candidate = override ?? (library as unknown as Partial<SchedulerLibrary>);
  if (candidate.SchedulerStore === undefined || candidate.TaskScheduler === undefined)
    throw new Error(
      'the built package does not export SchedulerStore/TaskScheduler: export them from src/index.ts and build, or pass `implementation`',
    );
  return candidate as SchedulerLibrary;
}

/** Due times `count` occurrences apart by `spacingMs`, starting `leadMs` from now. */
function dueTimes(count: number, spacingMs: number, leadMs: number): number[] {
  const start = nowMs() + leadMs;
  return Array.from({ length: count }, (_, i) => start + i * spacingMs);
}

async function setTimeoutLateness(due: readonly number[]): Promise<number[]> {
  const lateness: number[] = [];
  await Promise.all(
    due.map(
      (atMs) =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            lateness.push(nowMs() - atMs);
            resolve();
          }, atMs - nowMs());
        }),
    ),
  );
  return lateness;
}

async function withScheduler<T>(
  lib: SchedulerLibrary,
  dbPath: string,
  runTask: (scheduledForMs: number) => void,
  body: (scheduler: TaskScheduler) => Promise<T>,
): Promise<T> {
  const store = new lib.SchedulerStore({ dbPath });
  const scheduler = new lib.TaskScheduler({
    store,
    concurrency: CONCURRENCY,
    runTask: async (request) => {
      runTask(request.scheduledForMs);
      return '';
    },
  });
  try {
    return await body(scheduler);
  } finally {
    await scheduler.stop();
    store.close();
  }
}

/** Milliseconds one `createTask` takes here (a durable insert), measured on throwaway tasks. */
async function createCostMs(scheduler: TaskScheduler): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 10; i += 1) {
    const task = await scheduler.createTask({
      prompt: 'probe',
      scheduleType: 'interval',
      scheduleValue: '86400',
    });
    await scheduler.cancelTask(task.id);
  }
  return (performance.now() - started) / 20;
}

async function schedulerLateness(
  lib: SchedulerLibrary,
  dbPath: string,
  count: number,
  background: number,
): Promise<number[]> {
  const lateness: number[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const record = (scheduledForMs: number) => {
    lateness.push(nowMs() - scheduledForMs);
    if (lateness.length === count) finish();
  };
  await withScheduler(lib, dbPath, record, async (scheduler) => {
    const laterMs = nowMs() + 86_400_000; // the rest of a big schedule, due in a day
    for (let i = 0; i < background; i += 1)
      await scheduler.createTask({
        prompt: 'p',
        scheduleType: 'once',
        scheduleValue: new Date(laterMs + i).toISOString(),
      });
    // The first due time leaves room to create every task (each is a durable insert) before it comes.
    const costMs = await createCostMs(scheduler);
    const due = dueTimes(count, SPACING_MS, 300 + count * costMs * 2);
    for (const atMs of due)
      await scheduler.createTask({
        prompt: 'p',
        scheduleType: 'once',
        scheduleValue: new Date(atMs).toISOString(),
      });
    await scheduler.start();
    await done;
    await scheduler.idle();
  });
  return lateness;
}

async function schedulerRate(
  lib: SchedulerLibrary,
  dbPath: string,
  count: number,
): Promise<number> {
  let seen = 0;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return withScheduler(
    lib,
    dbPath,
    () => {
      seen += 1;
      if (seen === count) finish();
    },
    async (scheduler) => {
      // due now: a once time beyond the catch-up window in the past is refused
      const dueNow = new Date(nowMs()).toISOString();
      for (let i = 0; i < count; i += 1)
        await scheduler.createTask({ prompt: 'p', scheduleType: 'once', scheduleValue: dueNow });
      const started = performance.now();
      await scheduler.start();
      await done;
      await scheduler.idle();
      return (count * 1000) / (performance.now() - started);
    },
  );
}

async function setTimeoutRate(count: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, () => new Promise((resolve) => setTimeout(resolve, 0))),
  );
  return (count * 1000) / (performance.now() - started);
}

const formatMs = (ms: number) => `${ms.toFixed(2)} ms`;

function pad(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  '));
}

/** Renders the report: lateness percentiles, then throughput, each with its setTimeout baseline. */
export function formatSchedulerReport(
  lateness: readonly LatenessRow[],
  rates: readonly RateRow[],
  notes: readonly string[] = [],
): string {
  const goals = lateness
    .filter((row) => row.name.startsWith('TaskScheduler'))
    .map((row) => {
      const met = row.p95Ms < GOAL_P95_MS ? 'met' : 'NOT met';
      return `${row.name.split(',')[1]?.trim() ?? row.name}: ${met} (${formatMs(row.p95Ms)})`;
    });
  return [
    '## Scheduler firing precision (lateness after the due time)',
    ...pad([
      ['case', 'p50', 'p95', 'p99', 'max', 'runs'],
      ...lateness.map((row) => [
        row.name,
        formatMs(row.p50Ms),
        formatMs(row.p95Ms),
        formatMs(row.p99Ms),
        formatMs(row.maxMs),
        String(row.samples),
      ]),
    ]),
    '',
    '## Scheduler throughput (due tasks per second, no-op runner)',
    ...pad([['case', 'per second'], ...rates.map((row) => [row.name, row.perSecond.toFixed(0)])]),
    ...notes,
    `goal: p95 lateness under ${GOAL_P95_MS} ms: ${goals.join('; ')}`,
  ].join('\n');
}

/**
 * Workload sizes: the lateness case fires `occurrences` once tasks `SPACING_MS` apart among `stored` tasks in
 * all (the rest due in a day); the throughput case has `saturation` tasks due at once.
 */
function sizes(quick: boolean) {
  return quick
    ? { stored: 2_000, occurrences: 200, saturation: 600 }
    : { stored: 10_000, occurrences: 1_000, saturation: 3_000 };
}

interface Measured {
  readonly lateness: LatenessRow[];
  readonly rates: RateRow[];
  readonly notes: string[];
}

/** The PostgreSQL side: the same workloads, fired by `PG_WORKERS` processes on one fresh database each. */
async function measurePostgres(
  lib: SchedulerLibrary,
  quick: boolean,
  measured: Measured,
): Promise<void> {
  const { PostgresSchedulerStore } = lib;
  if (PostgresSchedulerStore === undefined) {
    measured.notes.push(
      'PostgreSQL side skipped: the library does not export PostgresSchedulerStore',
    );
    return;
  }
  const server = await startPostgres();
  if (isSkipped(server)) {
    measured.notes.push(`PostgreSQL side ${server.skipped}`);
    return;
  }
  try {
    const { stored, occurrences, saturation } = sizes(quick);
    const base = {
      lib: { PostgresSchedulerStore, TaskScheduler: lib.TaskScheduler },
      workers: PG_WORKERS,
      concurrency: CONCURRENCY / PG_WORKERS,
    };
    const fired = await postgresLateness({
      ...base,
      url: await server.createDatabase(),
      count: occurrences,
      spacingMs: SPACING_MS,
      background: stored - occurrences,
    });
    const name = `TaskScheduler, PostgreSQL, ${PG_WORKERS} worker processes, once tasks ${SPACING_MS} ms apart`;
    measured.lateness.push(latenessRow(name, fired.lateness));
    const rate = await postgresRate({
      ...base,
      url: await server.createDatabase(),
      count: saturation,
    });
    measured.rates.push({
      name: `TaskScheduler, PostgreSQL, all due, ${PG_WORKERS} processes x concurrency ${base.concurrency} (fsync on)`,
      perSecond: rate,
    });
    measured.notes.push(
      `PostgreSQL workers started ${fired.marginMs.toFixed(0)} ms before the first due time (negative: late start, counts as lateness)`,
    );
  } finally {
    await server.stop();
  }
}

/** Prepares the scheduler benchmark in a temporary directory. */
export function schedulerBench(options: SchedulerBenchOptions = {}): SchedulerBench {
  const lib = resolveLibrary(options.implementation);
  const directory = mkdtempSync(join(tmpdir(), 'jarvis-scheduler-bench-'));
  const quick = options.quick === true;
  const { stored, occurrences, saturation } = sizes(quick);
  const run = async () => {
    const baseline = await setTimeoutLateness(dueTimes(occurrences, SPACING_MS, 300));
    const fired = await schedulerLateness(
      lib,
      join(directory, 'precision.db'),
      occurrences,
      stored - occurrences,
    );
    const timeoutRate = await setTimeoutRate(saturation);
    const rate = await schedulerRate(lib, join(directory, 'throughput.db'), saturation);
    const measured: Measured = {
      lateness: [
        latenessRow('bare setTimeout (baseline)', baseline),
        latenessRow(`TaskScheduler, SQLite, 1 worker, once tasks ${SPACING_MS} ms apart`, fired),
      ],
      rates: [
        { name: 'bare setTimeout(0) (baseline)', perSecond: timeoutRate },
        {
          name: `TaskScheduler, SQLite, all due, 1 process x concurrency ${CONCURRENCY} (WAL, synchronous=FULL)`,
          perSecond: rate,
        },
      ],
      notes: [
        `lateness cases: ${stored.toLocaleString('en-US')} tasks stored, ${occurrences} of them fire during the run`,
      ],
    };
    if (options.skipPostgres !== true) await measurePostgres(lib, quick, measured);
    return formatSchedulerReport(measured.lateness, measured.rates, measured.notes);
  };
  return { run, close: async () => rmSync(directory, { recursive: true, force: true }) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bench = schedulerBench({ quick: process.argv.includes('--quick') });
  try {
    console.log(await bench.run());
  } finally {
    await bench.close();
  }
}
