import { describe, expect, it } from 'vitest';
import { formatIsoInstant, parseIsoInstant } from './instant.js';
import { planOccurrences, skipUntil } from './occurrence-plan.js';
import { firstRunMs, occurrenceAfterMs, parseSchedule, validateSchedule } from './schedule.js';
import { at } from './scheduler-test-support.case.test.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const cron = (value: string, timezone?: string) =>
  parseSchedule({ scheduleType: 'cron', scheduleValue: value, timezone });
const nextCron = (value: string, fromIso: string, timezone?: string) =>
  iso(firstRunMs(cron(value, timezone), at(fromIso)));

describe('cron schedules', () => {
  it('follows the tools.md example: 09:00 UTC Monday to Friday', () => {
    expect(nextCron('0 9 * * 1-5', '2026-11-28T10:00:00Z')).toBe('2026-11-30T09:00:00.000Z'); // Sat -> Mon
    expect(nextCron('0 9 * * 1-5', '2026-11-30T08:59:59Z')).toBe('2026-11-30T09:00:00.000Z');
    expect(nextCron('0 9 * * 1-5', '2026-11-30T09:00:00Z')).toBe('2026-12-01T09:00:00.000Z');
  });

  it('runs every minute for * * * * * (not tomorrow as the original fallback did)', () => {
    expect(nextCron('* * * * *', '2026-11-29T21:00:30Z')).toBe('2026-11-29T21:01:00.000Z');
  });

  it('handles month ends and leap days', () => {
    expect(nextCron('0 0 31 * *', '2026-02-01T00:00:00Z')).toBe('2026-03-31T00:00:00.000Z');
    expect(nextCron('0 0 29 2 *', '2026-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(nextCron('59 23 28-31 * *', '2026-04-30T23:59:00Z')).toBe('2026-05-28T23:59:00.000Z');
    expect(nextCron('0 12 L * *', '2027-02-01T00:00:00Z')).toBe('2027-02-28T12:00:00.000Z');
  });

  it('uses the time zone option, UTC by default', () => {
    expect(nextCron('0 9 * * *', '2026-07-01T00:00:00Z', 'Europe/Berlin')).toBe(
      '2026-07-01T07:00:00.000Z',
    );
    expect(nextCron('0 9 * * *', '2026-01-01T00:00:00Z', 'Europe/Berlin')).toBe(
      '2026-01-01T08:00:00.000Z',
    );
    expect(cron('0 9 * * *').timezone).toBe('UTC');
  });

  it('fires once across DST changes (skipped hour runs after the gap; repeated hour runs once)', () => {
    // Europe/Berlin springs forward on 2026-03-29 at 02:00 -> 03:00.
    expect(nextCron('30 2 * * *', '2026-03-29T00:00:00Z', 'Europe/Berlin')).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    // America/New_York falls back on 2026-11-01 at 02:00 -> 01:00: 01:30 happens twice, fires once.
    const schedule = cron('30 1 * * *', 'America/New_York');
    const first = firstRunMs(schedule, at('2026-11-01T00:00:00Z'));
    expect(iso(first)).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(occurrenceAfterMs(schedule, first ?? 0))).toBe('2026-11-02T06:30:00.000Z');
  });

  it.each([
    ['@hourly', '2026-03-02T11:00:00.000Z'],
    ['@daily', '2026-03-03T00:00:00.000Z'],
    ['@midnight', '2026-03-03T00:00:00.000Z'],
    ['@weekly', '2026-03-08T00:00:00.000Z'],
    ['@monthly', '2026-04-01T00:00:00.000Z'],
    ['@yearly', '2027-01-01T00:00:00.000Z'],
    ['@annually', '2027-01-01T00:00:00.000Z'],
    [' @Daily ', '2026-03-03T00:00:00.000Z'],
  ])('accepts the cron nickname %j', (value, next) => {
    const schedule = parseSchedule({ scheduleType: 'cron', scheduleValue: value });
    expect(schedule.value).toBe(value.trim().toLowerCase());
    expect(iso(firstRunMs(schedule, at('2026-03-02T10:30:00Z')))).toBe(next);
  });

  it('a nickname follows the time zone; unknown nicknames and @reboot are refused', () => {
    const berlin = parseSchedule({
      scheduleType: 'cron',
      scheduleValue: '@daily',
      timezone: 'Europe/Berlin',
    });
    expect(iso(firstRunMs(berlin, at('2026-03-02T10:30:00Z')))).toBe('2026-03-02T23:00:00.000Z');
    for (const value of ['@reboot', '@fortnightly'])
      expect(() => parseSchedule({ scheduleType: 'cron', scheduleValue: value })).toThrow(
        `invalid cron expression '${value}': unknown nickname; a cron expression has 5 fields`,
      );
  });

  it('refuses bad expressions with a message saying what is accepted', () => {
    expect(() => cron('0 9 * *')).toThrow(/5 fields .*got 4/);
    expect(() => cron('0 0 9 * * *')).toThrow(/5 fields/);
    expect(() => cron('61 9 * * *')).toThrow(/invalid cron expression '61 9 \* \* \*'.*minute/);
    expect(() => cron('0 9 * * *', 'Mars/Olympus')).toThrow(
      /unknown time zone 'Mars\/Olympus'.*IANA/,
    );
    expect(() =>
      validateSchedule(
        { scheduleType: 'cron', scheduleValue: '0 0 30 2 *' },
        at('2026-01-01T00:00:00Z'),
      ),
    ).toThrow(/never matches/);
  });
});

describe('interval and once schedules', () => {
  it('interval: a positive number of seconds, anchored to the previous occurrence (no drift)', () => {
    const schedule = parseSchedule({ scheduleType: 'interval', scheduleValue: '3600' });
    expect(firstRunMs(schedule, 1_000)).toBe(3_601_000);
    expect(occurrenceAfterMs(schedule, 3_601_000)).toBe(7_201_000);
    expect(firstRunMs(parseSchedule({ scheduleType: 'interval', scheduleValue: '0.5' }), 0)).toBe(
      500,
    );
  });

  it.each(['0', '-5', 'abc', '1e3', 'Infinity', '', '  '])('interval refuses %j', (value) => {
    expect(() => parseSchedule({ scheduleType: 'interval', scheduleValue: value })).toThrow(
      /seconds|non-empty/,
    );
  });

  it('once: ISO 8601, no offset means UTC, offsets are converted', () => {
    const once = (value: string) =>
      iso(firstRunMs(parseSchedule({ scheduleType: 'once', scheduleValue: value }), 0));
    expect(once('2026-03-01T09:00:00Z')).toBe('2026-03-01T09:00:00.000Z');
    expect(once('2026-03-01T09:00:00')).toBe('2026-03-01T09:00:00.000Z');
    expect(once('2026-03-01 09:00')).toBe('2026-03-01T09:00:00.000Z');
    expect(once('2026-03-01T10:00:00+01:00')).toBe('2026-03-01T09:00:00.000Z');
    expect(once('2026-03-01T04:00:00.250-0500')).toBe('2026-03-01T09:00:00.250Z');
    expect(once('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
  });

  it.each([
    'tomorrow',
    '2026-02-30T09:00:00Z',
    '2027-02-29',
    '2026-13-01',
    '2026-03-01T25:00:00Z',
    '2026-03-01T09:00:00+25:00',
  ])('once refuses %j', (value) => {
    expect(() => parseSchedule({ scheduleType: 'once', scheduleValue: value })).toThrow(/ISO 8601/);
  });

  it('a past once time is kept (the misfire policy decides); there is no second occurrence', () => {
    const schedule = parseSchedule({ scheduleType: 'once', scheduleValue: '2020-01-01T00:00:00Z' });
    expect(firstRunMs(schedule, at('2026-01-01T00:00:00Z'))).toBe(at('2020-01-01T00:00:00Z'));
    expect(occurrenceAfterMs(schedule, at('2020-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('refuses unknown types and non-string values', () => {
    expect(() => parseSchedule({ scheduleType: 'daily', scheduleValue: '1' })).toThrow(
      /'cron', 'interval' or 'once'/,
    );
    expect(() => parseSchedule({ scheduleType: 'interval', scheduleValue: 60 })).toThrow(
      /non-empty string/,
    );
  });
});

describe('instants', () => {
  it('formats like Python isoformat in UTC and parses back', () => {
    expect(formatIsoInstant(at('2026-11-30T08:00:00Z'))).toBe('2026-11-30T08:00:00+00:00');
    expect(formatIsoInstant(at('2026-11-30T08:00:00.123Z'))).toBe(
      '2026-11-30T08:00:00.123000+00:00',
    );
    expect(parseIsoInstant('2026-11-30T08:00:00+00:00')).toBe(at('2026-11-30T08:00:00Z'));
  });
});

describe('misfire policy', () => {
  const hourly = parseSchedule({ scheduleType: 'interval', scheduleValue: '3600' });
  const H = 3_600_000;

  it('on time: runs the due occurrence, nothing missed', () => {
    expect(
      planOccurrences({ schedule: hourly, dueMs: 10 * H, nowMs: 10 * H + 5, catchupWindowMs: H }),
    ).toEqual({
      runMs: 10 * H,
      missedMs: [],
      unrecordedMissed: 0,
      nextRunMs: 11 * H,
    });
  });

  it('after downtime: one catch-up run of the latest occurrence, the rest missed, never a burst', () => {
    const plan = planOccurrences({
      schedule: hourly,
      dueMs: 10 * H,
      nowMs: 13 * H + 60_000,
      catchupWindowMs: H,
    });
    expect(plan.runMs).toBe(13 * H);
    expect(plan.missedMs).toEqual([10 * H, 11 * H, 12 * H]);
    expect(plan.nextRunMs).toBe(14 * H);
  });

  it('outside the catch-up window: nothing runs, every passed occurrence is missed', () => {
    const daily = parseSchedule({ scheduleType: 'cron', scheduleValue: '0 9 * * *' });
    const plan = planOccurrences({
      schedule: daily,
      dueMs: at('2026-01-01T09:00:00Z'),
      nowMs: at('2026-01-03T12:00:00Z'),
      catchupWindowMs: H,
    });
    expect(plan.runMs).toBeUndefined();
    expect(plan.missedMs.map(iso)).toEqual([
      '2026-01-01T09:00:00.000Z',
      '2026-01-02T09:00:00.000Z',
      '2026-01-03T09:00:00.000Z',
    ]);
    expect(iso(plan.nextRunMs)).toBe('2026-01-04T09:00:00.000Z');
  });

  it('caps the recorded missed occurrences and counts the rest', () => {
    const everySecond = parseSchedule({ scheduleType: 'interval', scheduleValue: '1' });
    const plan = planOccurrences({
      schedule: everySecond,
      dueMs: 0,
      nowMs: 86_400_000,
      catchupWindowMs: H,
      maxRecordedMissed: 10,
    });
    expect(plan.runMs).toBe(86_400_000);
    expect(plan.missedMs).toHaveLength(10);
    expect(plan.unrecordedMissed).toBe(86_400 - 10);
    expect(plan.nextRunMs).toBe(86_401_000);
  });

  it('a once task runs when at most the catch-up window late, else it is missed', () => {
    const once = parseSchedule({ scheduleType: 'once', scheduleValue: '2020-01-01T00:00:00Z' });
    expect(planOccurrences({ schedule: once, dueMs: 0, nowMs: H, catchupWindowMs: H })).toEqual({
      runMs: 0,
      missedMs: [],
      unrecordedMissed: 0,
      nextRunMs: undefined,
    });
    expect(planOccurrences({ schedule: once, dueMs: 0, nowMs: H + 1, catchupWindowMs: H })).toEqual(
      { runMs: undefined, missedMs: [0], unrecordedMissed: 0, nextRunMs: undefined },
    );
  });

  it('skipUntil: the occurrences before the limit frees up, and the next one on the grid', () => {
    const everySecond = parseSchedule({ scheduleType: 'interval', scheduleValue: '1' });
    expect(skipUntil(everySecond, 5_000, 9_500)).toEqual({ skipped: 5, nextRunMs: 10_000 });
    expect(skipUntil(everySecond, 5_000, 5_000)).toEqual({ skipped: 1, nextRunMs: 6_000 });
    const hourly = parseSchedule({ scheduleType: 'cron', scheduleValue: '@hourly' });
    expect(skipUntil(hourly, 0, H + 1)).toEqual({ skipped: 2, nextRunMs: 2 * H });
  });
});
