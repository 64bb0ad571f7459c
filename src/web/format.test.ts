import { describe, expect, it } from 'vitest';
import { formatCount, formatInstant, formatIso, formatMs, shorten } from './format.js';
import { parseRoute, routeHash } from './route.js';

describe('format', () => {
  it('writes durations, counts, instants and cut texts for people', () => {
    expect([
      formatMs(3.4),
      formatMs(999),
      formatMs(1250),
      formatMs(12_340),
      formatMs(125_000),
    ]).toEqual(['3 ms', '999 ms', '1.25 s', '12.3 s', '2 min 5 s']);
    expect([formatMs(Number.NaN), formatMs(-1)]).toEqual(['–', '–']);
    expect(formatCount(1234567)).toBe('1\u2009234\u2009567');
    expect(formatInstant(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05');
    expect(formatInstant(0)).toBe('–');
    expect(formatIso('')).toBe('–');
    expect(formatIso('next week')).toBe('next week');
    expect(formatIso('2026-01-02T03:04:05Z', false)).toBe('2026-01-02 03:04:05');
    expect(shorten('abcdef', 4)).toBe('abc…');
    expect(shorten('abc', 4)).toBe('abc');
  });
});

describe('parseRoute', () => {
  it('reads the views from the address fragment; anything unknown is the chat', () => {
    expect(parseRoute('')).toEqual({ view: 'chat' });
    expect(parseRoute('#/runs')).toEqual({ view: 'runs' });
    expect(parseRoute('#/runs/abc123')).toEqual({ view: 'run', id: 'abc123' });
    expect(parseRoute('#/runs/%3Cscript%3E')).toEqual({ view: 'runs' });
    expect(parseRoute('#/runs/%E0%A4%A')).toEqual({ view: 'runs' });
    expect(parseRoute('#/tasks')).toEqual({ view: 'tasks' });
    expect(parseRoute('#/memory')).toEqual({ view: 'memory' });
    expect(parseRoute('#/elsewhere')).toEqual({ view: 'chat' });
    expect(routeHash({ view: 'run', id: 'abc' })).toBe('#/runs/abc');
    expect(parseRoute(routeHash({ view: 'tasks' }))).toEqual({ view: 'tasks' });
  });
});
