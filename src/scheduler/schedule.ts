import { createRequire } from 'node:module';
import type { Cron } from 'croner';
import { formatIsoInstant, formatIsoSeconds, parseIsoInstant } from './instant.js';
import { SchedulerError } from './scheduler-error.js';

/** How a task repeats: a 5-field cron expression, a fixed interval in seconds, or one instant. */
export type ScheduleType = 'cron' | 'interval' | 'once';

/** The accepted schedule types, in the order tools.md lists them. */
export const SCHEDULE_TYPES: readonly ScheduleType[] = ['cron', 'interval', 'once'];

/** A validated schedule; build it with `parseSchedule`. */
export type Schedule =
  | {
      readonly type: 'cron';
      readonly value: string;
      readonly timezone: string;
      readonly cron: Cron;
    }
  | {
      readonly type: 'interval';
      readonly value: string;
      readonly timezone: string;
      readonly intervalMs: number;
    }
  | {
      readonly type: 'once';
      readonly value: string;
      readonly timezone: string;
      readonly atMs: number;
    };

/** What `parseSchedule` reads. */
export interface ScheduleInput {
  readonly scheduleType: unknown;
  readonly scheduleValue: unknown;
  /** IANA time zone for cron expressions (default `UTC`). */
  readonly timezone?: string | undefined;
}

/** Limits a new task's schedule must keep; a stored task is read without them. */
export interface ScheduleLimits {
  /** Shortest interval (default 1 ms, what stored tasks were allowed). */
  readonly minIntervalMs?: number | undefined;
  /** A `once` time may be at most this far in the past (default: any past time is accepted). */
  readonly catchupWindowMs?: number | undefined;
}

/** The shortest interval of a new task unless a person configures another (agents never get less). */
export const DEFAULT_MIN_INTERVAL_MS = 1_000;

const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;
const INTERVAL_PATTERN = /^\d+(?:\.\d+)?$/;
/** The cron nicknames croner understands, as the 5-field expressions they stand for. */
const CRON_NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const CRON_HELP =
  "a cron expression has 5 fields 'minute hour day-of-month month day-of-week', e.g. '0 9 * * 1-5', " +
  'or is one of @hourly, @daily (@midnight), @weekly, @monthly, @yearly (@annually)';

function invalid(message: string, cause?: unknown): SchedulerError {
  return new SchedulerError('invalid_schedule', message, cause);
}

function checkTimezone(timezone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone;
  } catch (error) {
    throw invalid(
      `unknown time zone '${timezone}': use an IANA name such as 'UTC' or 'Europe/Berlin'`,
      error,
    );
  }
}

let cronClass: typeof Cron | undefined;

/** croner's `Cron`, loaded with the first cron schedule: importing the package should not pay for it (~40 KB). */
function cronClassOnce(): typeof Cron {
  cronClass ??= (createRequire(import.meta.url)('croner') as typeof import('croner')).Cron;
  return cronClass;
}

function parseNickname(value: string, timezone: string): Schedule {
  const nickname = value.trim().toLowerCase();
  const expression = CRON_NICKNAMES[nickname];
  if (expression === undefined)
    throw invalid(`invalid cron expression '${value}': unknown nickname; ${CRON_HELP}`);
  const cron = new (cronClassOnce())(expression, { timezone, paused: true, mode: '5-part' });
  return { type: 'cron', value: nickname, timezone, cron };
}

function parseCron(value: string, timezone: string): Schedule {
  if (value.trim().startsWith('@')) return parseNickname(value, timezone);
  const fields = value.trim().split(/\s+/);
  if (fields.length !== 5 || fields[0] === '')
    throw invalid(
      `invalid cron expression '${value}': ${CRON_HELP}; got ${fields.length} field(s)`,
    );
  let cron: Cron;
  try {
    cron = new (cronClassOnce())(fields.join(' '), { timezone, paused: true, mode: '5-part' });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : '';
    throw invalid(`invalid cron expression '${value}' (${reason}): ${CRON_HELP}`, error);
  }
  return { type: 'cron', value: fields.join(' '), timezone, cron };
}

function parseInterval(value: string, timezone: string, minIntervalMs: number): Schedule {
  const text = value.trim();
  const seconds = Number(text);
  const intervalMs = Math.round(seconds * 1000);
  const accepted = `give a number of seconds from ${minIntervalMs / 1000} to ${MAX_INTERVAL_SECONDS}, e.g. '3600'`;
  if (!INTERVAL_PATTERN.test(text) || !(intervalMs >= 1) || seconds > MAX_INTERVAL_SECONDS)
    throw invalid(`invalid interval '${value}': ${accepted}`);
  if (intervalMs < minIntervalMs)
    throw invalid(
      `invalid interval '${value}' (shorter than the minimum of ${minIntervalMs / 1000} s): ${accepted}`,
    );
  return { type: 'interval', value: text, timezone, intervalMs };
}

function parseOnce(value: string, timezone: string): Schedule {
  const atMs = parseIsoInstant(value);
  if (atMs === undefined) {
    throw invalid(
      `invalid date-time '${value}': give an ISO 8601 date-time such as '2026-03-01T09:00:00Z' (no offset means UTC)`,
    );
  }
  return { type: 'once', value: value.trim(), timezone, atMs };
}

/**
 * Validates a schedule type and value; throws a `SchedulerError` saying what is accepted when they are bad.
 * `limits.minIntervalMs` is the shortest interval accepted (default 1 ms, so stored tasks stay readable).
 */
export function parseSchedule(input: ScheduleInput, limits: ScheduleLimits = {}): Schedule {
  const { scheduleType, scheduleValue } = input;
  if (typeof scheduleType !== 'string' || !SCHEDULE_TYPES.includes(scheduleType as ScheduleType))
    throw invalid(
      `invalid schedule type '${String(scheduleType)}': use 'cron', 'interval' or 'once'`,
    );
  if (typeof scheduleValue !== 'string' || scheduleValue.trim() === '')
    throw invalid(`schedule value must be a non-empty string for a '${scheduleType}' schedule`);
  const timezone = checkTimezone(input.timezone ?? 'UTC');
  if (scheduleType === 'cron') return parseCron(scheduleValue, timezone);
  if (scheduleType === 'interval')
    return parseInterval(scheduleValue, timezone, Math.max(1, limits.minIntervalMs ?? 1));
  return parseOnce(scheduleValue, timezone);
}

/** The first due time of a new (or resumed) task at `nowMs`; a past `once` time is kept (the misfire policy decides). */
export function firstRunMs(schedule: Schedule, nowMs: number): number | undefined {
  if (schedule.type === 'once') return schedule.atMs;
  if (schedule.type === 'interval') return nowMs + schedule.intervalMs;
  return schedule.cron.nextRun(new Date(nowMs))?.getTime();
}

/** The occurrence after `previousMs` (strictly later); undefined when there is none (`once`, impossible cron date). */
export function occurrenceAfterMs(schedule: Schedule, previousMs: number): number | undefined {
  if (schedule.type === 'once') return undefined;
  if (schedule.type === 'interval') return previousMs + schedule.intervalMs;
  return schedule.cron.nextRun(new Date(previousMs))?.getTime();
}

/** `5 s`, `30 min`, `1 h`: a duration in the largest whole unit. */
function formatDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

/** Refuses a `once` time further in the past than the catch-up window: it would only be recorded as missed. */
function checkOnceTime(schedule: Schedule, nowMs: number, catchupWindowMs: number): void {
  if (schedule.type !== 'once' || nowMs - schedule.atMs <= catchupWindowMs) return;
  const example = formatIsoSeconds(nowMs + 86_400_000).replace('+00:00', 'Z');
  throw invalid(
    `once time '${schedule.value}' (${formatIsoSeconds(schedule.atMs)}) is in the past (now ${formatIsoSeconds(nowMs)}): ` +
      `give a future ISO 8601 date-time such as '${example}', or one at most ${formatDuration(catchupWindowMs)} ago (the catch-up window)`,
  );
}

/**
 * Validates a new task's schedule: `parseSchedule` with `limits`, a `once` time no further in the past than
 * `limits.catchupWindowMs`, and a cron expression that fires at all (not e.g. `0 0 30 2 *`).
 */
export function validateSchedule(
  input: ScheduleInput,
  nowMs: number,
  limits: ScheduleLimits = {},
): Schedule {
  const schedule = parseSchedule(input, limits);
  if (limits.catchupWindowMs !== undefined)
    checkOnceTime(schedule, nowMs, Math.max(0, limits.catchupWindowMs));
  if (firstRunMs(schedule, nowMs) === undefined)
    throw invalid(`cron expression '${schedule.value}' never matches a date: nothing would run`);
  return schedule;
}

/** A readable description of the next due time, for messages. */
export function describeNextRun(nextRunMs: number | undefined): string {
  return nextRunMs === undefined ? 'never' : formatIsoInstant(nextRunMs);
}
