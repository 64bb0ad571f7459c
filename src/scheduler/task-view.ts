import type { JsonObject } from '../core/index.js';
import { formatIsoInstant } from './instant.js';
import type { ScheduledTask, TaskRun } from './task-types.js';

const isoOrNull = (epochMs: number | undefined): string | null =>
  epochMs === undefined ? null : formatIsoInstant(epochMs);

/**
 * The snake_case view of a task (the original's `to_dict()` keys in order, instants as ISO 8601), plus
 * `timezone` when a cron task uses one other than UTC, `created_by` (`person` or `agent`), and for a task
 * created by an agent the comma-separated `allowed_tools` it may use.
 */
export function taskToDict(task: ScheduledTask): JsonObject {
  return {
    id: task.id,
    prompt: task.prompt,
    schedule_type: task.scheduleType,
    schedule_value: task.scheduleValue,
    context_mode: task.contextMode,
    status: task.status,
    next_run: isoOrNull(task.nextRunMs),
    last_run: isoOrNull(task.lastRunMs),
    agent: task.agent,
    tools: task.tools,
    metadata: task.metadata,
    ...(task.timezone === 'UTC' ? {} : { timezone: task.timezone }),
    created_by: task.createdBy,
    ...(task.allowedTools === undefined ? {} : { allowed_tools: task.allowedTools.join(',') }),
  };
}

/** The snake_case view of a run-log entry. */
export function runToDict(run: TaskRun): JsonObject {
  return {
    id: run.id,
    task_id: run.taskId,
    scheduled_for: formatIsoInstant(run.scheduledForMs),
    status: run.status,
    attempt: run.attempt,
    started_at: isoOrNull(run.startedMs),
    finished_at: isoOrNull(run.finishedMs),
    success: run.success,
    result: run.result,
    error: run.error,
  };
}
