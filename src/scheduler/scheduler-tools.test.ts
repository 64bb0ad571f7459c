import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../tools/index.js';
import { pythonJsonDumps } from './python-json.js';
import { SchedulerStore } from './scheduler-store.js';
import { at, ManualClock, ManualTimers, tempDir } from './scheduler-test-support.case.test.js';
import {
  CancelScheduledTaskTool,
  createSchedulerTools,
  ListScheduledTasksTool,
  PauseScheduledTaskTool,
  ResumeScheduledTaskTool,
  ScheduleTaskTool,
} from './scheduler-tools.js';
import { TaskScheduler } from './task-scheduler.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function scheduler(): TaskScheduler {
  const dir = tempDir();
  const store = new SchedulerStore({ dbPath: join(dir.path, 's.db') });
  cleanups.push(dir.remove, () => store.close());
  const clock = new ManualClock(at('2026-02-25T10:00:00Z'));
  return new TaskScheduler({
    store,
    clock,
    timers: new ManualTimers(clock),
    generateId: () => '3fd493c160c44c10',
    runTask: async () => 'ok',
  });
}

describe('scheduler tools', () => {
  it('schedule_task returns Python-style JSON with task_id, next_run (ISO 8601) and status', async () => {
    const tool = new ScheduleTaskTool({ scheduler: scheduler() });
    const result = await tool.execute({
      prompt: 'Summarize the daily news',
      schedule_type: 'cron',
      schedule_value: '0 8 * * *',
      agent: 'simple',
    });
    expect(result).toMatchObject({
      success: true,
      content:
        '{"task_id": "3fd493c160c44c10", "next_run": "2026-02-26T08:00:00+00:00", "status": "active"}',
    });
    expect(tool.spec).toMatchObject({ name: 'schedule_task', category: 'scheduler' });
    expect(tool.spec.parameters).toMatchObject({
      required: ['prompt', 'schedule_type', 'schedule_value'],
    });
  });

  it('schedule_task refuses missing parameters and bad schedules with clear messages', async () => {
    const tool = new ScheduleTaskTool({ scheduler: scheduler() });
    expect((await tool.execute({ prompt: 'x', schedule_type: 'once' })).content).toBe(
      'Missing required parameters: prompt, schedule_type, schedule_value.',
    );
    const bad = await tool.execute({
      prompt: 'x',
      schedule_type: 'once',
      schedule_value: 'tomorrow',
    });
    expect(bad).toMatchObject({ success: false });
    expect(bad.content).toMatch(
      /^Failed to schedule task: invalid date-time 'tomorrow': give an ISO 8601/,
    );
  });

  it('list_scheduled_tasks returns a JSON array of tasks, filtered by status', async () => {
    const sched = scheduler();
    const tools = createSchedulerTools({ scheduler: sched });
    const [schedule, list, pause] = tools;
    await schedule?.execute({
      prompt: 'café',
      schedule_type: 'interval',
      schedule_value: '3600',
      tools: 'think',
    });
    const listed = await list?.execute({});
    expect(listed?.content).toBe(
      '[{"id": "3fd493c160c44c10", "prompt": "caf\\u00e9", "schedule_type": "interval", "schedule_value": "3600", ' +
        '"context_mode": "isolated", "status": "active", "next_run": "2026-02-25T11:00:00+00:00", "last_run": null, ' +
        '"agent": "orchestrator", "tools": "think", "metadata": {}}]',
    );
    expect(JSON.parse(listed?.content ?? '')).toHaveLength(1);
    await pause?.execute({ task_id: '3fd493c160c44c10' });
    expect((await list?.execute({ status: 'active' }))?.content).toBe('[]');
    expect((await list?.execute({ status: 'bogus' }))?.content).toMatch(
      /^Failed to list tasks: unknown status 'bogus'/,
    );
  });

  it('pause, resume and cancel report success, unknown ids and forbidden changes', async () => {
    const sched = scheduler();
    sched.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '60' });
    const id = '3fd493c160c44c10';
    const pause = new PauseScheduledTaskTool({ scheduler: sched });
    const resume = new ResumeScheduledTaskTool({ scheduler: sched });
    const cancel = new CancelScheduledTaskTool({ scheduler: sched });
    expect((await pause.execute({ task_id: id })).content).toBe(`Task ${id} paused.`);
    expect((await resume.execute({ task_id: id })).content).toBe(`Task ${id} resumed.`);
    expect((await cancel.execute({ task_id: id })).content).toBe(`Task ${id} cancelled.`);
    const again = await resume.execute({ task_id: id });
    expect(again).toMatchObject({ success: false });
    expect(again.content).toMatch(/^Failed to resume task: Cannot resume task .* it is cancelled/);
    expect((await pause.execute({ task_id: 'nope' })).content).toBe('Task not found: nope');
    expect((await cancel.execute({})).content).toBe('Missing required parameter: task_id.');
  });

  it('without a scheduler every tool fails saying the scheduler is unavailable', async () => {
    for (const tool of createSchedulerTools()) {
      const result = await tool.execute({
        task_id: 'x',
        prompt: 'p',
        schedule_type: 'once',
        schedule_value: 'v',
      });
      expect(result.success).toBe(false);
      expect(result.content).toMatch(/scheduler is unavailable/);
    }
    expect((await new ScheduleTaskTool().execute({})).content).toMatch(/Cannot schedule tasks\.$/);
    expect(new ListScheduledTasksTool().spec.name).toBe('list_scheduled_tasks');
  });

  it('runs through the ToolExecutor with its schema', async () => {
    const executor = new ToolExecutor(createSchedulerTools({ scheduler: scheduler() }));
    const result = await executor.execute({
      id: 'c1',
      name: 'schedule_task',
      arguments: JSON.stringify({ prompt: 'p', schedule_type: 'interval', schedule_value: '60' }),
    });
    expect(result.success).toBe(true);
    expect(JSON.parse(result.content)).toMatchObject({
      task_id: '3fd493c160c44c10',
      status: 'active',
    });
  });
});

describe('pythonJsonDumps', () => {
  it('matches json.dumps defaults', () => {
    expect(pythonJsonDumps({ a: [1, 'é', null, true], b: { c: 1.5 } })).toBe(
      '{"a": [1, "\\u00e9", null, true], "b": {"c": 1.5}}',
    );
  });
});
