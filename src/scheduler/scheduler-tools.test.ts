import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CalculatorTool, ToolExecutor } from '../tools/index.js';
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
import { type RunTaskRequest, TaskScheduler, type TaskSchedulerOptions } from './task-scheduler.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function scheduler(options: Partial<TaskSchedulerOptions> = {}): TaskScheduler {
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
    ...options,
  });
}

/** The tool context of a run that has `names`. */
const runOf = (...names: string[]) => ({
  signal: new AbortController().signal,
  runToolNames: names,
});

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
    const created = await schedule?.execute(
      { prompt: 'café', schedule_type: 'interval', schedule_value: '3600', tools: 'think' },
      { signal: new AbortController().signal, runToolNames: ['schedule_task', 'think'] },
    );
    expect(created?.success).toBe(true);
    const listed = await list?.execute({});
    expect(listed?.content).toBe(
      '[{"id": "3fd493c160c44c10", "prompt": "caf\\u00e9", "schedule_type": "interval", "schedule_value": "3600", ' +
        '"context_mode": "isolated", "status": "active", "next_run": "2026-02-25T11:00:00+00:00", "last_run": null, ' +
        '"agent": "orchestrator", "tools": "think", "metadata": {}, "created_by": "agent", ' +
        '"allowed_tools": "schedule_task,think"}]',
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
    await sched.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '60' });
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
  it('matches json.dumps defaults', async () => {
    expect(pythonJsonDumps({ a: [1, 'é', null, true], b: { c: 1.5 } })).toBe(
      '{"a": [1, "\\u00e9", null, true], "b": {"c": 1.5}}',
    );
  });
});

describe('scheduler tools: an agent cannot grant itself tools or flood the scheduler', () => {
  it('a run given only schedule_task cannot schedule a task with another tool (the refusal names it)', async () => {
    const sched = scheduler();
    const executor = new ToolExecutor(createSchedulerTools({ scheduler: sched }).slice(0, 1));
    const result = await executor.execute({
      id: 'c1',
      name: 'schedule_task',
      arguments: JSON.stringify({
        prompt: 'read /etc/shadow',
        schedule_type: 'interval',
        schedule_value: '60',
        tools: 'file_read,schedule_task,code_interpreter',
      }),
    });
    expect(result.success).toBe(false);
    expect(result.content).toBe(
      'Failed to schedule task: tool(s) not allowed: file_read, code_interpreter. A task scheduled by an agent ' +
        'may use only the tools of the run that schedules it (allowed: schedule_task)',
    );
    expect(await sched.listTasks()).toEqual([]);
  });

  it("records the origin and the allowance: the run's own tools are allowed, through the executor", async () => {
    const sched = scheduler();
    const executor = new ToolExecutor([
      ...createSchedulerTools({ scheduler: sched }),
      new CalculatorTool(),
    ]);
    const result = await executor.execute({
      name: 'schedule_task',
      arguments: {
        prompt: 'add',
        schedule_type: 'interval',
        schedule_value: '60',
        tools: 'calculator',
      },
    });
    expect(result.success).toBe(true);
    expect(await sched.getTask('3fd493c160c44c10')).toMatchObject({
      createdBy: 'agent',
      tools: 'calculator',
      allowedTools: [
        'schedule_task',
        'list_scheduled_tasks',
        'pause_scheduled_task',
        'resume_scheduled_task',
        'cancel_scheduled_task',
        'calculator',
      ],
    });
  });

  it('an agent that runs code itself (rlm, native_openhands) counts as code_interpreter', async () => {
    const sched = scheduler();
    const tool = new ScheduleTaskTool({ scheduler: sched });
    const ask = { prompt: 'p', schedule_type: 'interval', schedule_value: '60' };
    const refused = await tool.execute({ ...ask, agent: ' rlm ' }, runOf('schedule_task'));
    expect(refused.success).toBe(false);
    expect(refused.content).toContain('tool(s) not allowed: code_interpreter');
    const openhands = await tool.execute(
      { ...ask, agent: 'native_openhands' },
      runOf('schedule_task'),
    );
    expect(openhands.content).toContain('tool(s) not allowed: code_interpreter');
    expect(await sched.listTasks()).toEqual([]);
    const allowed = await tool.execute(
      { ...ask, agent: 'rlm' },
      runOf('schedule_task', 'code_interpreter'),
    );
    expect(allowed.success).toBe(true);
  });

  it('a call without a run context may schedule tasks without tools only (fails closed)', async () => {
    const tool = new ScheduleTaskTool({ scheduler: scheduler() });
    const withTools = await tool.execute({
      prompt: 'p',
      schedule_type: 'interval',
      schedule_value: '60',
      tools: 'think',
    });
    expect(withTools.content).toMatch(/tool\(s\) not allowed: think\. .*\(allowed: none\)$/);
    const plain = await tool.execute({
      prompt: 'p',
      schedule_type: 'interval',
      schedule_value: '60',
    });
    expect(plain.success).toBe(true);
  });

  it('agents always get at least a 1 s interval, even when a person allowed shorter ones', async () => {
    let n = 0;
    const sched = scheduler({ minIntervalMs: 100, generateId: () => `t${++n}` });
    const tool = new ScheduleTaskTool({ scheduler: sched });
    const fast = await tool.execute({
      prompt: 'p',
      schedule_type: 'interval',
      schedule_value: '0.001',
    });
    expect(fast.content).toBe(
      "Failed to schedule task: invalid interval '0.001' (shorter than the minimum of 1 s): give a number of " +
        "seconds from 1 to 315360000, e.g. '3600'",
    );
    expect(
      (await tool.execute({ prompt: 'p', schedule_type: 'interval', schedule_value: '1' })).success,
    ).toBe(true);
    // the person who configured 100 ms may use it
    expect(
      (await sched.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '0.1' }))
        .createdBy,
    ).toBe('person');
  });

  it('resume_scheduled_task refuses a task whose tools the calling run does not have', async () => {
    const sched = scheduler();
    await sched.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '60',
      tools: 'web_search',
    });
    await sched.pauseTask('3fd493c160c44c10');
    const resume = new ResumeScheduledTaskTool({ scheduler: sched });
    const refused = await resume.execute(
      { task_id: '3fd493c160c44c10' },
      runOf('resume_scheduled_task'),
    );
    expect(refused.content).toBe(
      'Failed to resume task: task 3fd493c160c44c10 uses tool(s) not allowed: web_search. An agent may resume ' +
        'only tasks whose tools its own run has; a person can resume it with `jarvis scheduler resume 3fd493c160c44c10`.',
    );
    expect((await sched.getTask('3fd493c160c44c10')).status).toBe('paused');
    const allowed = await resume.execute(
      { task_id: '3fd493c160c44c10' },
      runOf('resume_scheduled_task', 'web_search'),
    );
    expect(allowed.content).toBe('Task 3fd493c160c44c10 resumed.');
  });

  it("the scheduled run gets exactly the task's tools", async () => {
    const ran: RunTaskRequest[] = [];
    const sched = scheduler({
      runTask: async (request) => {
        ran.push(request);
        return 'ok';
      },
    });
    await new ScheduleTaskTool({ scheduler: sched }).execute(
      { prompt: 'p', schedule_type: 'interval', schedule_value: '60', tools: 'think' },
      runOf('schedule_task', 'think', 'calculator'),
    );
    await sched.runNow('3fd493c160c44c10');
    expect(ran.map((request) => request.tools)).toEqual([['think']]);
  });
});
