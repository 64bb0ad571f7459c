import { occurrenceAfterMs, type Schedule } from './schedule.js';

/** What to do with a task whose due time has come: which occurrence runs, which are missed, what is next. */
export interface OccurrencePlan {
  /** The occurrence to run now (its scheduled time is the idempotency key), if any. */
  readonly runMs: number | undefined;
  /** Occurrences that passed while nothing ran, recorded as missed (at most `maxRecordedMissed`). */
  readonly missedMs: readonly number[];
  /** Missed occurrences beyond `maxRecordedMissed`, counted but not recorded one by one. */
  readonly unrecordedMissed: number;
  /** The next due time after this plan, or undefined when the task has no further occurrence. */
  readonly nextRunMs: number | undefined;
}

/** Options of `planOccurrences`. */
export interface PlanOptions {
  readonly schedule: Schedule;
  /** The task's stored due time (at or before `nowMs`). */
  readonly dueMs: number;
  readonly nowMs: number;
  /** A late occurrence still runs (once) when at most this late; older ones are only recorded as missed. */
  readonly catchupWindowMs: number;
  readonly maxRecordedMissed?: number;
}

/** Every occurrence from `dueMs` up to `nowMs` (the last one is the latest due), counting beyond `cap`. */
function dueOccurrences(options: PlanOptions, cap: number): { times: number[]; skipped: number } {
  const { schedule, dueMs, nowMs } = options;
  if (schedule.type === 'interval') {
    const count = Math.floor((nowMs - dueMs) / schedule.intervalMs) + 1;
    const first = Math.max(0, count - cap);
    const times = Array.from(
      { length: count - first },
      (_, i) => dueMs + (first + i) * schedule.intervalMs,
    );
    return { times, skipped: first };
  }
  const times = [dueMs];
  let skipped = 0;
  for (let next = occurrenceAfterMs(schedule, dueMs); next !== undefined && next <= nowMs; ) {
    times.push(next);
    if (times.length > cap) {
      times.shift();
      skipped += 1;
    }
    next = occurrenceAfterMs(schedule, next);
  }
  return { times, skipped };
}

/**
 * The misfire policy: the latest due occurrence runs if it is within the catch-up window (for a `once` task, its
 * one time), every other passed occurrence is recorded as missed, and the next due time is the first occurrence
 * after the latest one — never a burst of runs.
 */
export function planOccurrences(options: PlanOptions): OccurrencePlan {
  const { schedule, dueMs, nowMs, catchupWindowMs } = options;
  if (schedule.type === 'once') {
    const onTime = nowMs - dueMs <= catchupWindowMs;
    return {
      runMs: onTime ? dueMs : undefined,
      missedMs: onTime ? [] : [dueMs],
      unrecordedMissed: 0,
      nextRunMs: undefined,
    };
  }
  const cap = Math.max(1, (options.maxRecordedMissed ?? 1_000) + 1);
  const { times, skipped } = dueOccurrences(options, cap);
  const latest = times[times.length - 1] ?? dueMs;
  const runLatest = nowMs - latest <= catchupWindowMs;
  return {
    runMs: runLatest ? latest : undefined,
    missedMs: runLatest ? times.slice(0, -1) : times,
    unrecordedMissed: skipped,
    nextRunMs: occurrenceAfterMs(schedule, latest),
  };
}

/** Most cron occurrences `skipUntil` steps through (cron runs at most once a minute, so a few suffice). */
const MAX_SKIP_STEPS = 10_000;

/**
 * The occurrences skipped from `fromMs` (included) until `untilMs` (excluded), and the first one at or after
 * `untilMs`, which is the next due time (undefined when the schedule has no further occurrence).
 */
export function skipUntil(
  schedule: Schedule,
  fromMs: number,
  untilMs: number,
): { readonly skipped: number; readonly nextRunMs: number | undefined } {
  if (schedule.type === 'interval') {
    const skipped = Math.max(1, Math.ceil((untilMs - fromMs) / schedule.intervalMs));
    return { skipped, nextRunMs: fromMs + skipped * schedule.intervalMs };
  }
  let skipped = 1;
  let next = occurrenceAfterMs(schedule, fromMs);
  while (next !== undefined && next < untilMs && skipped < MAX_SKIP_STEPS) {
    skipped += 1;
    next = occurrenceAfterMs(schedule, next);
  }
  return { skipped, nextRunMs: next };
}
