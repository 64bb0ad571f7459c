import { Cron } from 'croner';
import { formatIsoInstant, parseIsoInstant } from './instant.js';
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

const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;
const INTERVAL_PATTERN = /^\d+(?:\.\d+)?$/;
const CRON_HELP =
  "a cron expression has 5 fields 'minute hour day-of-month month day-of-week', e.g. '0 9 * * 1-5'";

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

function parseCron(value: string, timezone: string): Schedule {
  const fields = value.trim().split(/\s+/);
  if (fields.length !== 5 || fields[0] === '')
    throw invalid(
      `invalid cron expression '${value}': ${CRON_HELP}; got ${fields.length} field(s)`,
    );
  let cron: Cron;
  try {
    cron = new Cron(fields.join(' '), { timezone, paused: true, mode: '5-part' });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : '';
    throw invalid(`invalid cron expression '${value}' (${reason}): ${CRON_HELP}`, error);
  }
  return { type: 'cron', value: fields.join(' '), timezone, cron };
}

function parseInterval(value: string, timezone: string): Schedule {
  const text = value.trim();
  const seconds = Number(text);
  if (!INTERVAL_PATTERN.test(text) || !(seconds >= 0.001) || seconds > MAX_INTERVAL_SECONDS) {
    throw invalid(
      `invalid interval '${value}': give a number of seconds from 0.001 to ${MAX_INTERVAL_SECONDS}, e.g. '3600'`,
    );
  }
  return { type: 'interval', value: text, timezone, intervalMs: Math.round(seconds * 1000) };
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

/** Validates a schedule type and value; throws a `SchedulerError` saying what is accepted when they are bad. */
export function parseSchedule(input: ScheduleInput): Schedule {
  const { scheduleType, scheduleValue } = input;
  if (typeof scheduleType !== 'string' || !SCHEDULE_TYPES.includes(scheduleType as ScheduleType))
    throw invalid(
      `invalid schedule type '${String(scheduleType)}': use 'cron', 'interval' or 'once'`,
    );
  if (typeof scheduleValue !== 'string' || scheduleValue.trim() === '')
    throw invalid(`schedule value must be a non-empty string for a '${scheduleType}' schedule`);
  const timezone = checkTimezone(input.timezone ?? 'UTC');
  if (scheduleType === 'cron') return parseCron(scheduleValue, timezone);
  if (scheduleType === 'interval') return parseInterval(scheduleValue, timezone);
  return parseOnce(scheduleValue, timezone);
}

/** The first due time of a new (or resumed) task at `nowMs`; a past `once` time is kept, so it runs at the next tick. */
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

/** Validates a schedule and also refuses one that would never fire (e.g. `0 0 30 2 *`). */
export function validateSchedule(input: ScheduleInput, nowMs: number): Schedule {
  const schedule = parseSchedule(input);
  if (firstRunMs(schedule, nowMs) === undefined)
    throw invalid(`cron expression '${schedule.value}' never matches a date: nothing would run`);
  return schedule;
}

/** A readable description of the next due time, for messages. */
export function describeNextRun(nextRunMs: number | undefined): string {
  return nextRunMs === undefined ? 'never' : formatIsoInstant(nextRunMs);
}
