// Scheduler crash safety, the long run (the CI test in src/scheduler/crash.test.ts is the short one): two
// scheduler processes share one database and are killed with SIGKILL at random moments for minutes while once
// tasks keep being created and interval tasks keep coming due; then no occurrence may be lost, none completed
// twice, and PRAGMA integrity_check must say ok.
// Standalone: node --import tsx bench/scheduler-crash.bench.ts [--quick]
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../src/core/index.js';
import {
  type CrashCheck,
  checkCrashRun,
  drain,
  killAllWorkers,
  killAtRandom,
} from '../src/scheduler/crash-harness.case.test.js';
import { SchedulerStore, TaskScheduler } from '../src/scheduler/index.js';
import { tempDir } from '../src/scheduler/scheduler-test-support.case.test.js';

/** Options of `schedulerCrashBench`. */
export interface SchedulerCrashBenchOptions {
  /** About 20 s instead of about 2.5 minutes. */
  readonly quick?: boolean;
  readonly seed?: number;
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
  readonly check: CrashCheck;
  readonly kills: number;
  readonly onceTasks: number;
  readonly seconds: number;
}

async function crashRun(dbPath: string, effects: string, durationMs: number, seed: number) {
  const store = new SchedulerStore({ dbPath });
  try {
    // a person may allow intervals below the default 1 s minimum (the crash run needs a busy schedule)
    const setup = new TaskScheduler({ store, minIntervalMs: INTERVAL_MS });
    const intervals = await Promise.all(
      Array.from({ length: INTERVAL_TASKS }, (_, i) =>
        setup.createTask({
          prompt: `interval ${i}`,
          scheduleType: 'interval',
          scheduleValue: String(INTERVAL_MS / 1000),
        }),
      ),
    );
    const started = performance.now();
    const untilMs = systemClock.nowMs() + durationMs;
    const [kills, onceTasks] = await Promise.all([
      killAtRandom({ dbPath, effects, leaseMs: LEASE_MS, untilMs, seed }),
      produceOnceTasks(setup, untilMs),
    ]);
    const seconds = (performance.now() - started) / 1000;
    for (const task of intervals) await setup.pauseTask(task.id);
    await drain(store, effects, LEASE_MS);
    const check = await checkCrashRun(
      store,
      effects,
      intervals.map((task) => ({ id: task.id, intervalMs: INTERVAL_MS })),
    );
    return { check, kills, onceTasks, seconds } satisfies CrashRun;
  } finally {
    await killAllWorkers();
    store.close();
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
    ['integrity_check', check.integrity, 'ok'],
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
    `## Scheduler crash safety (2 processes on one database, SIGKILL at random for ${run.seconds.toFixed(0)} s)`,
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

/** Runs the long crash test (about 2.5 minutes; `quick`: about 20 s) and returns its report table. */
export async function schedulerCrashBench(
  options: SchedulerCrashBenchOptions = {},
): Promise<string> {
  const directory = tempDir('jarvis-scheduler-crash-bench-');
  try {
    const durationMs = options.quick === true ? 15_000 : 140_000;
    const run = await crashRun(
      join(directory.path, 'scheduler.db'),
      join(directory.path, 'effects.log'),
      durationMs,
      options.seed ?? 11,
    );
    return formatCrashReport(run);
  } finally {
    directory.remove();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await schedulerCrashBench({ quick: process.argv.includes('--quick') }));
}
