import type { JsonObject } from '../core/index.js';
import type { ScheduleType } from './schedule.js';

/** Where a task is in its life: `active` tasks run when due, `paused` ones wait, the other two are final. */
export type TaskStatus = 'active' | 'paused' | 'completed' | 'cancelled';

/** The accepted task statuses. */
export const TASK_STATUSES: readonly TaskStatus[] = ['active', 'paused', 'completed', 'cancelled'];

/** Who created a task: a person (CLI, SDK, not limited) or an agent through the `schedule_task` tool. */
export type TaskOrigin = 'person' | 'agent';

/** The accepted task origins. */
export const TASK_ORIGINS: readonly TaskOrigin[] = ['person', 'agent'];

/** A stored task (tools.md fields; instants in milliseconds since the epoch). */
export interface ScheduledTask {
  readonly id: string;
  readonly prompt: string;
  readonly scheduleType: ScheduleType;
  readonly scheduleValue: string;
  /** IANA time zone of a cron expression (`UTC` by default). */
  readonly timezone: string;
  readonly contextMode: string;
  readonly status: TaskStatus;
  readonly nextRunMs: number | undefined;
  readonly lastRunMs: number | undefined;
  readonly agent: string;
  /** Comma-separated tool names for the agent (`''` for none). */
  readonly tools: string;
  readonly metadata: JsonObject;
  readonly createdMs: number;
  /** Who created the task (tasks stored before origins were recorded count as `person`). */
  readonly createdBy: TaskOrigin;
  /**
   * The most tools the task may use: for a task created by an agent, the tools of the run that created it;
   * undefined (not limited) for a task created by a person.
   */
  readonly allowedTools: readonly string[] | undefined;
}

/**
 * The state of one occurrence in the run log: `missed` when it came due while nothing could run it (beyond the
 * catch-up window, or superseded), `skipped` when the task reached its runs-per-minute limit.
 */
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'missed' | 'skipped';

/** One occurrence of a task: at most one row per task and scheduled time, so it completes at most once. */
export interface TaskRun {
  readonly id: number;
  readonly taskId: string;
  /** The occurrence's scheduled time: with the task id, its idempotency key. */
  readonly scheduledForMs: number;
  readonly status: RunStatus;
  /** How many times the occurrence was started (more than 1 after a crashed run was retried). */
  readonly attempt: number;
  readonly startedMs: number | undefined;
  readonly finishedMs: number | undefined;
  readonly success: boolean;
  readonly result: string;
  readonly error: string;
  readonly leaseOwner: string | undefined;
  readonly leaseExpiresMs: number | undefined;
}

/** An occurrence claimed by one scheduler process: it holds the lease and must complete or renew it. */
export interface RunClaim {
  readonly run: TaskRun;
  readonly task: ScheduledTask;
}

/** The idempotency key of an occurrence, handed to the run: `taskId@scheduledForMs`. */
export function occurrenceKey(run: Pick<TaskRun, 'taskId' | 'scheduledForMs'>): string {
  return `${run.taskId}@${run.scheduledForMs}`;
}
