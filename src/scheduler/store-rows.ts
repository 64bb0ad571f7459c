import { isPlainObject, type JsonObject } from '../core/index.js';
import type { ScheduleType } from './schedule.js';
import type { RunStatus, ScheduledTask, TaskOrigin, TaskRun, TaskStatus } from './task-types.js';

/** The tables of the scheduler database as schema version 1 made them (`store-schema.ts` upgrades them). */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS scheduled_tasks (
  id TEXT PRIMARY KEY,
  prompt TEXT NOT NULL,
  schedule_type TEXT NOT NULL,
  schedule_value TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  context_mode TEXT NOT NULL DEFAULT 'isolated',
  status TEXT NOT NULL DEFAULT 'active',
  next_run_ms INTEGER,
  last_run_ms INTEGER,
  agent TEXT NOT NULL DEFAULT 'simple',
  tools TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS scheduled_tasks_due ON scheduled_tasks (status, next_run_ms);
CREATE TABLE IF NOT EXISTS task_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL,
  scheduled_ms INTEGER NOT NULL,
  status TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_ms INTEGER,
  started_ms INTEGER,
  finished_ms INTEGER,
  success INTEGER NOT NULL DEFAULT 0,
  result TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '',
  UNIQUE (task_id, scheduled_ms)
);
CREATE INDEX IF NOT EXISTS task_runs_running ON task_runs (status, lease_expires_ms);
`;

/** A row of `scheduled_tasks` as SQLite returns it. */
export interface TaskRow {
  readonly id: string;
  readonly prompt: string;
  readonly schedule_type: string;
  readonly schedule_value: string;
  readonly timezone: string;
  readonly context_mode: string;
  readonly status: string;
  readonly next_run_ms: number | null;
  readonly last_run_ms: number | null;
  readonly agent: string;
  readonly tools: string;
  readonly metadata: string;
  readonly created_ms: number;
  readonly created_by: string;
  /** Comma-separated tool names; NULL when the task's tools are not limited (created by a person). */
  readonly allowed_tools: string | null;
}

/** A row of `task_runs` as SQLite returns it. */
export interface RunRow {
  readonly id: number;
  readonly task_id: string;
  readonly scheduled_ms: number;
  readonly status: string;
  readonly attempt: number;
  readonly lease_owner: string | null;
  readonly lease_expires_ms: number | null;
  readonly started_ms: number | null;
  readonly finished_ms: number | null;
  readonly success: number;
  readonly result: string;
  readonly error: string;
}

function parseMetadata(text: string): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** Splits a stored comma-separated tool list into trimmed non-empty names. */
export function splitToolList(tools: string): string[] {
  return tools
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The `allowed_tools` column value of a task: NULL when not limited. */
export function allowedToolsColumn(allowedTools: readonly string[] | undefined): string | null {
  return allowedTools === undefined ? null : allowedTools.join(',');
}

/** Anything but a recorded `agent` is a person: rows from before origins were recorded keep working. */
const originOf = (value: string): TaskOrigin => (value === 'agent' ? 'agent' : 'person');

/**
 * A task's column values in the order both stores insert them: id, prompt, schedule_type, schedule_value,
 * timezone, context_mode, status, next_run_ms, last_run_ms, agent, tools, metadata, created_ms, created_by,
 * allowed_tools.
 */
export function taskColumns(task: ScheduledTask): unknown[] {
  return [
    task.id,
    task.prompt,
    task.scheduleType,
    task.scheduleValue,
    task.timezone,
    task.contextMode,
    task.status,
    task.nextRunMs ?? null,
    task.lastRunMs ?? null,
    task.agent,
    task.tools,
    JSON.stringify(task.metadata),
    task.createdMs,
    task.createdBy,
    allowedToolsColumn(task.allowedTools),
  ];
}

/** Converts a task row to a `ScheduledTask`. */
export function taskFromRow(row: TaskRow): ScheduledTask {
  return {
    id: row.id,
    prompt: row.prompt,
    scheduleType: row.schedule_type as ScheduleType,
    scheduleValue: row.schedule_value,
    timezone: row.timezone,
    contextMode: row.context_mode,
    status: row.status as TaskStatus,
    nextRunMs: orUndefined(row.next_run_ms),
    lastRunMs: orUndefined(row.last_run_ms),
    agent: row.agent,
    tools: row.tools,
    metadata: parseMetadata(row.metadata),
    createdMs: row.created_ms,
    createdBy: originOf(row.created_by),
    allowedTools: row.allowed_tools === null ? undefined : splitToolList(row.allowed_tools),
  };
}

/** Converts a run row to a `TaskRun`. */
export function runFromRow(row: RunRow): TaskRun {
  return {
    id: row.id,
    taskId: row.task_id,
    scheduledForMs: row.scheduled_ms,
    status: row.status as RunStatus,
    attempt: row.attempt,
    startedMs: orUndefined(row.started_ms),
    finishedMs: orUndefined(row.finished_ms),
    success: row.success === 1,
    result: row.result,
    error: row.error,
    leaseOwner: orUndefined(row.lease_owner),
    leaseExpiresMs: orUndefined(row.lease_expires_ms),
  };
}
