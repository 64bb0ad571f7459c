import { describe, expect, it } from 'vitest';
import { EventBus, isTerminalSafe } from '../core/index.js';
import type { ScheduledTask, TaskRun } from '../scheduler/index.js';
import {
  formatDeleted,
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
  createdBy: 'person',
  allowedTools: undefined,
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
  it('prints every instant one way: ISO 8601 in UTC with its offset, to the second', () => {
    expect(formatInstant(AT)).toBe('2026-03-01T09:00:00+00:00');
    expect(formatInstant(AT + 999)).toBe('2026-03-01T09:00:00+00:00'); // cut, never rounded up
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
    expect(header).toMatch(/^ID {16}STATUS {2}TYPE {2}VALUE {24}NEXT RUN {19}LAST RUN {2}PROMPT$/);
    expect(row).toBe(
      'a1b2c3d4e5f60718  active  cron  0 9 * * 1-5 (Europe/Berlin)  2026-03-01T09:00:00+00:00  -         ' +
        'Summarise the news of the day for me, with the three most important stories fir…', // 80 characters
    );
  });

  it('shows a failed run with its error and attempt', () => {
    const [, row] = formatRunTable([run], 200).trimEnd().split('\n');
    expect(row).toBe(
      '2026-03-01T09:00:00+00:00  2026-03-01T09:00:00+00:00  2026-03-01T09:00:01+00:00  failed  2        engine unreachable',
    );
  });

  it('summarises a changed task', () => {
    expect(formatTaskSummary('Created', task)).toBe(
      [
        'Created task a1b2c3d4e5f60718',
        '  status:   active',
        '  schedule: cron 0 9 * * 1-5 (Europe/Berlin)',
        '  next run: 2026-03-01T09:00:00+00:00',
        '  agent:    orchestrator (tools: web_search)',
        '',
      ].join('\n'),
    );
    expect(formatTaskSummary('Cancelled', { ...task, nextRunMs: undefined })).toContain(
      'next run: none',
    );
    const byAgent = { ...task, createdBy: 'agent' as const, allowedTools: ['web_search', 'think'] };
    expect(formatTaskSummary('Paused', byAgent)).toContain(
      '  created:  by an agent (may use: web_search, think)\n',
    );
  });

  it('shows stored text that did not come from us with its escape sequences made visible', () => {
    const hostile = {
      ...task,
      prompt:
        'click \u001b]8;;https://evil.example\u0007here\u001b]8;;\u0007 \u001b[2K\u202egnp.exe',
      scheduleValue: '0 9 * * *\u001b[1A',
      agent: 'simple\u001b[31m',
    };
    const table = formatTaskTable([hostile], undefined);
    const summary = formatTaskSummary('Created', hostile);
    const logs = formatRunTable([{ ...run, error: 'boom\u001b[2J\r\nline 2' }], 200);
    for (const text of [table, summary, logs, formatDeleted(hostile, 3)]) {
      expect(isTerminalSafe(text)).toBe(true);
    }
    expect(table).toContain(
      'click ^[]8;;https://evil.example\\u{7}here^[]8;;\\u{7} ^[[2K\\u{202e}gnp.exe',
    );
    expect(table).toContain('0 9 * * *^[[1A');
    expect(summary).toContain('agent:    simple^[[31m');
    expect(logs).toContain('boom^[[2J line 2');
  });

  it('says what delete removed', () => {
    expect(formatDeleted(task, 1)).toBe(
      'Deleted task a1b2c3d4e5f60718 (active, cron 0 9 * * 1-5) and its 1 run-log entry.\n',
    );
    expect(formatDeleted(task, 0)).toContain('its 0 run-log entries.');
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
      occurrence_key: 't1@1772355600000',
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
      '2026-03-01T09:00:00+00:00 task t1 started (scheduled 2026-03-01T09:00:00+00:00, attempt 1): ping\n',
      '2026-03-01T09:00:00+00:00 task t1 succeeded in 0.00 s: pong\n',
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
        error: 'boom\nat line 2 \u001b[2K\u001b]8;;x\u0007',
        scheduled_for: '2026-03-01T09:00:00.000000+00:00',
        attempt: 1,
        occurrence_key: 't1@1772355600000',
        recorded: false,
      },
    };
    expect(formatTaskEnd(event, AT)).toBe(
      '2026-03-01T09:00:01+00:00 task t1 failed in 1.50 s: boom at line 2 ^[[2K^[]8;;x\\u{7} (not recorded: another scheduler process took it over)\n',
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
