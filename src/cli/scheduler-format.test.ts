import { describe, expect, it } from 'vitest';
import { EventBus } from '../core/index.js';
import type { ScheduledTask, TaskRun } from '../sdk/index.js';
import {
  formatInstant,
  formatRunTable,
  formatTable,
  formatTaskSummary,
  formatTaskTable,
  truncate,
} from './scheduler-format.js';
import { formatTaskEnd, reportSchedulerActivity, untilAborted } from './scheduler-start.js';

const AT = Date.parse('2026-03-01T09:00:00Z');

const task: ScheduledTask = {
  id: 'a1b2c3d4e5f60718',
  prompt: 'Summarise\nthe   news of the day for me, with the three most important stories first',
  scheduleType: 'cron',
  scheduleValue: '0 9 * * 1-5',
  timezone: 'Europe/Berlin',
  contextMode: 'isolated',
  status: 'active',
  nextRunMs: AT,
  lastRunMs: undefined,
  agent: 'orchestrator',
  tools: 'web_search',
  metadata: {},
  createdMs: AT - 1000,
};

const run: TaskRun = {
  id: 1,
  taskId: task.id,
  scheduledForMs: AT,
  status: 'failed',
  attempt: 2,
  startedMs: AT + 5,
  finishedMs: AT + 1_250,
  success: false,
  result: '',
  error: 'engine unreachable',
  leaseOwner: undefined,
  leaseExpiresMs: undefined,
};

describe('scheduler output formatting', () => {
  it('prints instants in UTC ISO 8601, milliseconds only when there are some', () => {
    expect(formatInstant(AT)).toBe('2026-03-01T09:00:00Z');
    expect(formatInstant(AT + 25)).toBe('2026-03-01T09:00:00.025Z');
    expect(formatInstant(undefined)).toBe('-');
  });

  it('truncates to one line with an ellipsis', () => {
    expect(truncate('a\n b\tc', 10)).toBe('a b c');
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('abcde', 5)).toBe('abcde');
  });

  it('aligns columns and cuts only the last one to the width (80 characters when piped)', () => {
    const table = formatTable(['A', 'LONG'], [['xyz', 'a'.repeat(200)]], 30);
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toBe('A    LONG');
    expect(lines[1]).toBe(`xyz  ${'a'.repeat(24)}…`);
    expect(lines.every((line) => line.length <= 30)).toBe(true);
    const piped = formatTable(['A', 'LONG'], [['xyz', 'a'.repeat(200)]], undefined);
    expect(piped.split('\n')[1]).toHaveLength(5 + 80);
    // however narrow the terminal, the text column keeps a readable minimum
    expect(
      formatTable(['A', 'B'], [['x'.repeat(50), 'b'.repeat(40)]], 20).split('\n')[1],
    ).toHaveLength(52 + 16);
  });

  it('lists tasks with their time zone and the prompt on one line, cut at 80 characters when piped', () => {
    const [header, row] = formatTaskTable([task], undefined).trimEnd().split('\n');
    expect(header).toMatch(/^ID {16}STATUS {2}TYPE {2}VALUE {24}NEXT RUN {14}LAST RUN {2}PROMPT$/);
    expect(row).toBe(
      'a1b2c3d4e5f60718  active  cron  0 9 * * 1-5 (Europe/Berlin)  2026-03-01T09:00:00Z  -         ' +
        'Summarise the news of the day for me, with the three most important stories fir…', // 80 characters
    );
  });

  it('shows a failed run with its error and attempt', () => {
    const [, row] = formatRunTable([run], 200).trimEnd().split('\n');
    expect(row).toBe(
      '2026-03-01T09:00:00Z  2026-03-01T09:00:00.005Z  2026-03-01T09:00:01.250Z  failed  2        engine unreachable',
    );
  });

  it('summarises a changed task', () => {
    expect(formatTaskSummary('Created', task)).toBe(
      [
        'Created task a1b2c3d4e5f60718',
        '  status:   active',
        '  schedule: cron 0 9 * * 1-5 (Europe/Berlin)',
        '  next run: 2026-03-01T09:00:00Z',
        '  agent:    orchestrator (tools: web_search)',
        '',
      ].join('\n'),
    );
    expect(formatTaskSummary('Cancelled', { ...task, nextRunMs: undefined })).toContain(
      'next run: none',
    );
  });
});

describe('scheduler activity lines', () => {
  it('reports each start and end with the duration, and stops when unsubscribed', () => {
    const bus = new EventBus({ clock: { nowMs: () => AT, monotonicMs: () => 0 } });
    const lines: string[] = [];
    const off = reportSchedulerActivity(bus, {
      write: (text) => lines.push(text),
      isTTY: false,
      columns: 80,
    });
    const occurrence = {
      task_id: 't1',
      scheduled_for: '2026-03-01T09:00:00.000000+00:00',
      attempt: 1,
    };
    bus.publish('scheduler_task_start', { ...occurrence, prompt: 'ping' });
    bus.publish('scheduler_task_end', {
      ...occurrence,
      success: true,
      result: 'pong',
      error: '',
      recorded: true,
    });
    off();
    bus.publish('scheduler_task_start', { ...occurrence, prompt: 'unseen' });
    expect(lines).toEqual([
      '2026-03-01T09:00:00Z task t1 started (scheduled 2026-03-01T09:00:00Z, attempt 1): ping\n',
      '2026-03-01T09:00:00Z task t1 succeeded in 0.00 s: pong\n',
    ]);
  });

  it('says when a run failed or was not recorded', () => {
    const event = {
      type: 'scheduler_task_end' as const,
      timestampMs: AT + 1_500,
      data: {
        task_id: 't1',
        success: false,
        result: '',
        error: 'boom\nat line 2',
        recorded: false,
      },
    };
    expect(formatTaskEnd(event, AT)).toBe(
      '2026-03-01T09:00:01.500Z task t1 failed in 1.50 s: boom at line 2 (not recorded: another scheduler process took it over)\n',
    );
  });

  it('untilAborted resolves on abort, at once when already aborted', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(controller.signal);
    controller.abort();
    await waiting;
    await untilAborted(controller.signal);
  });
});
