// Scheduler benchmark: firing precision (lateness of each run after its due time, p50/p95) and throughput (due
// tasks per second with a no-op runner), each next to a bare setTimeout baseline measured in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SchedulerStore, TaskScheduler } from '../src/scheduler/index.js';
import { library } from './library.js';

/** The parts of the library this benchmark uses. */
export interface SchedulerLibrary {
  readonly SchedulerStore: typeof SchedulerStore;
  readonly TaskScheduler: typeof TaskScheduler;
}

/** Options of `schedulerBench`. */
export interface SchedulerBenchOptions {
  /** Fewer occurrences per case. */
  readonly quick?: boolean;
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
  readonly maxMs: number;
  readonly samples: number;
}

interface RateRow {
  readonly name: string;
  readonly perSecond: number;
}

const GOAL_P95_MS = 20;
const SPACING_MS = 10;
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
    maxMs: Math.max(...lateness),
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
    concurrency: 64,
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
): string {
  const p95 = lateness.find((row) => row.name.startsWith('TaskScheduler'))?.p95Ms ?? Number.NaN;
  return [
    '## Scheduler firing precision (lateness after the due time)',
    ...pad([
      ['case', 'p50', 'p95', 'max', 'runs'],
      ...lateness.map((row) => [
        row.name,
        formatMs(row.p50Ms),
        formatMs(row.p95Ms),
        formatMs(row.maxMs),
        String(row.samples),
      ]),
    ]),
    '',
    '## Scheduler throughput (due tasks per second, no-op runner)',
    ...pad([['case', 'per second'], ...rates.map((row) => [row.name, row.perSecond.toFixed(0)])]),
    `goal: p95 lateness under ${GOAL_P95_MS} ms: ${p95 < GOAL_P95_MS ? 'met' : 'NOT met'} (${formatMs(p95)})`,
  ].join('\n');
}

/** Prepares the scheduler benchmark in a temporary directory. */
export function schedulerBench(options: SchedulerBenchOptions = {}): SchedulerBench {
  const lib = resolveLibrary(options.implementation);
  const directory = mkdtempSync(join(tmpdir(), 'jarvis-scheduler-bench-'));
  const occurrences = options.quick === true ? 100 : 400;
  const run = async () => {
    const baseline = await setTimeoutLateness(dueTimes(occurrences, SPACING_MS, 300));
    const fired = await schedulerLateness(lib, join(directory, 'precision.db'), occurrences);
    const timeoutRate = await setTimeoutRate(occurrences * 5);
    const rate = await schedulerRate(lib, join(directory, 'throughput.db'), occurrences * 5);
    return formatSchedulerReport(
      [
        latenessRow('bare setTimeout (baseline)', baseline),
        latenessRow('TaskScheduler, once tasks 10 ms apart', fired),
      ],
      [
        { name: 'bare setTimeout(0) (baseline)', perSecond: timeoutRate },
        { name: 'TaskScheduler, all due, concurrency 64 (WAL, synchronous=FULL)', perSecond: rate },
      ],
    );
  };
  return { run, close: async () => rmSync(directory, { recursive: true, force: true }) };
}
