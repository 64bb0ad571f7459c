import { formatIsoSeconds } from './instant.js';
import { planOccurrences, skipUntil } from './occurrence-plan.js';
import { parseSchedule, type Schedule } from './schedule.js';
import type { ScheduledTask } from './task-types.js';

/** A minute, the window of the runs-per-task-per-minute limit. */
export const MINUTE_MS = 60_000;

/** One due task's plan, the rules every scheduler store applies: what to log, its next due time, what to claim. */
export interface TaskPlan {
  readonly task: ScheduledTask;
  /** The task's parsed schedule (absent when the stored one is invalid). */
  readonly schedule?: Schedule | undefined;
  /** Run-log entries to write: missed occurrences, a skipped one (rate limit) or the failure of a bad schedule. */
  readonly logs: readonly {
    readonly scheduledMs: number;
    readonly status: 'missed' | 'failed' | 'skipped';
    readonly error: string;
  }[];
  readonly nextRunMs: number | undefined;
  /** The occurrence to claim and run now, if any. */
  readonly runMs: number | undefined;
  /** The task has no occurrence left: it becomes `completed`. */
  readonly completed: boolean;
}

/** What planning a due task needs to know. */
export interface TaskPlanOptions {
  readonly nowMs: number;
  readonly catchupWindowMs: number;
}

/**
 * The misfire policy for one due task (see `planOccurrences`): passed occurrences logged as missed (the first
 * entry also counting those beyond the recorded ones), the latest one to run when within the catch-up window;
 * a stored schedule that no longer parses fails the task once and completes it.
 */
export function planDueTask(task: ScheduledTask, options: TaskPlanOptions): TaskPlan {
  const dueMs = task.nextRunMs ?? options.nowMs;
  let schedule: Schedule;
  let plan: ReturnType<typeof planOccurrences>;
  try {
    schedule = parseSchedule({ ...task, timezone: task.timezone });
    plan = planOccurrences({
      schedule,
      dueMs,
      nowMs: options.nowMs,
      catchupWindowMs: options.catchupWindowMs,
    });
  } catch (error) {
    const why = `stored schedule is invalid: ${String(error)}`;
    const logs = [{ scheduledMs: dueMs, status: 'failed' as const, error: why }];
    return { task, logs, nextRunMs: undefined, runMs: undefined, completed: true };
  }
  const logs = plan.missedMs.map((scheduledMs, index) => {
    const extra =
      index === 0 && plan.unrecordedMissed > 0
        ? ` (${plan.unrecordedMissed} earlier occurrence(s) also missed)`
        : '';
    const why = `missed: outside the catch-up window or superseded${extra}`;
    return { scheduledMs, status: 'missed' as const, error: why };
  });
  const { runMs, nextRunMs } = plan;
  return {
    task,
    schedule,
    logs,
    nextRunMs,
    runMs,
    completed: nextRunMs === undefined && runMs === undefined,
  };
}

/**
 * Whether the runs-per-minute `limit` applies to the plan: it claims an occurrence of a recurring task (a `once`
 * task runs once whatever the limit).
 */
export function rateLimitApplies(plan: TaskPlan, limit: number | undefined): limit is number {
  return (
    limit !== undefined &&
    plan.runMs !== undefined &&
    plan.schedule !== undefined &&
    plan.schedule.type !== 'once'
  );
}

/**
 * The plan of a task whose occurrence at `runMs` is over the runs-per-minute limit (the limit-th latest run in
 * the minute before it was at `oldestMs`): it and every occurrence until the limit frees up are skipped (one
 * `skipped` entry), never queued up.
 */
export function rateLimitedPlan(
  plan: TaskPlan,
  schedule: Schedule,
  oldestMs: number,
  limit: number,
): TaskPlan {
  const runMs = plan.runMs ?? 0;
  const freeMs = oldestMs + MINUTE_MS;
  const skip = skipUntil(schedule, runMs, freeMs);
  const more =
    skip.skipped > 1
      ? `; ${skip.skipped - 1} more occurrence(s) until ${formatIsoSeconds(freeMs)} are skipped too`
      : '';
  const why = `skipped: the task already ran ${limit} time(s) within a minute (limit: ${limit} runs per task per minute)${more}`;
  return {
    task: plan.task,
    schedule,
    logs: [...plan.logs, { scheduledMs: runMs, status: 'skipped', error: why }],
    nextRunMs: skip.nextRunMs,
    runMs: undefined,
    completed: skip.nextRunMs === undefined,
  };
}
