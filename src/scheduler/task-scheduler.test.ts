import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../core/index.js';
import { SchedulerStore } from './scheduler-store.js';
import { at, ManualClock, ManualTimers, tempDir } from './scheduler-test-support.case.test.js';
import {
  type RunTask,
  type RunTaskRequest,
  TaskScheduler,
  type TaskSchedulerOptions,
} from './task-scheduler.js';

const START = at('2026-11-29T12:00:00Z');
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Deferred {
  readonly request: RunTaskRequest;
  readonly resolve: (text: string) => void;
  readonly reject: (error: Error) => void;
}

/** A runTask whose calls stay pending until the test settles them. */
function controlledRunner(): { runTask: RunTask; calls: Deferred[] } {
  const calls: Deferred[] = [];
  const runTask: RunTask = (request) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ request, resolve, reject });
    });
  return { runTask, calls };
}

function setup(
  options: Partial<TaskSchedulerOptions> & { dbPath?: string; clock?: ManualClock } = {},
) {
  let dbPath = options.dbPath;
  if (dbPath === undefined) {
    const dir = tempDir();
    cleanups.push(dir.remove);
    dbPath = join(dir.path, 'scheduler.db');
  }
  const clock = options.clock ?? new ManualClock(START);
  const timers = new ManualTimers(clock);
  const store = new SchedulerStore({ dbPath });
  const bus = new EventBus({ recordHistory: true });
  const ran: RunTaskRequest[] = [];
  const runTask: RunTask =
    options.runTask ??
    (async (request) => {
      ran.push(request);
      return `answer to ${request.prompt}`;
    });
  let n = 0;
  const scheduler = new TaskScheduler({
    clock,
    timers,
    bus,
    generateId: () => `task${++n}`,
    ...options,
    store,
    runTask,
  });
  cleanups.push(() => store.close());
  cleanups.push(async () => {
    if (scheduler.started) {
      const stopping = scheduler.stop();
      await timers.advance(60_000);
      await stopping;
    }
  });
  return { scheduler, store, clock, timers, bus, ran, dbPath };
}

describe('TaskScheduler tasks and state machine', () => {
  it('creates an active task with its first run and the tools.md fields', async () => {
    const { scheduler } = setup();
    const task = await scheduler.createTask({
      prompt: 'Summarize the news',
      scheduleType: 'cron',
      scheduleValue: '0 8 * * *',
      tools: ' calculator, think ,',
    });
    expect(task).toMatchObject({
      id: 'task1',
      status: 'active',
      agent: 'orchestrator',
      tools: 'calculator,think',
      nextRunMs: at('2026-11-30T08:00:00Z'),
    });
    expect(await scheduler.getTask('task1')).toEqual(task);
    const plain = await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '5',
    });
    expect(plain.agent).toBe('simple');
    const named = await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '5',
      agent: ' native_react ',
      tools: 'think',
    });
    expect(named.agent).toBe('native_react');
  });

  it('refuses bad input with clear errors and unknown ids with "Task not found"', async () => {
    const { scheduler } = setup();
    await expect(
      scheduler.createTask({ prompt: '', scheduleType: 'interval', scheduleValue: '5' }),
    ).rejects.toThrow(/prompt/);
    await expect(
      scheduler.createTask({ prompt: 'x', scheduleType: 'interval', scheduleValue: '-5' }),
    ).rejects.toThrow(/seconds/);
    await expect(scheduler.pauseTask('nope')).rejects.toThrow('Task not found: nope');
    await expect(scheduler.logs('nope')).rejects.toThrow('Task not found: nope');
    await expect(scheduler.listTasks({ status: 'weird' })).rejects.toThrow(
      /active, paused, completed, cancelled/,
    );
  });

  it('pauses, resumes (next run from now) and cancels; final statuses cannot be resumed', async () => {
    const { scheduler, clock } = setup();
    const task = await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '60',
    });
    expect(await scheduler.pauseTask(task.id)).toMatchObject({
      status: 'paused',
      nextRunMs: START + 60_000,
    });
    await expect(scheduler.pauseTask(task.id)).rejects.toThrow(
      /Cannot pause task task1: it is paused/,
    );
    clock.currentMs += 3_600_000;
    expect(await scheduler.resumeTask(task.id)).toMatchObject({
      status: 'active',
      nextRunMs: clock.currentMs + 60_000,
    });
    await expect(scheduler.resumeTask(task.id)).rejects.toThrow(/only paused tasks can be resumed/);
    expect(await scheduler.cancelTask(task.id)).toMatchObject({
      status: 'cancelled',
      nextRunMs: undefined,
    });
    await expect(scheduler.resumeTask(task.id)).rejects.toThrow(
      /it is cancelled \(a final status\)/,
    );
    await expect(scheduler.cancelTask(task.id)).rejects.toThrow(/Cannot cancel/);
    expect((await scheduler.listTasks({ status: 'cancelled' })).map((t) => t.id)).toEqual([
      'task1',
    ]);
  });
});

describe('TaskScheduler firing', () => {
  it('sets its timer to the next due time and runs the task then (no fixed poll)', async () => {
    const { scheduler, timers, ran, bus } = setup({ maxSleepMs: 24 * 3_600_000 });
    await scheduler.createTask({
      prompt: 'hello',
      scheduleType: 'interval',
      scheduleValue: '90',
      tools: 'think',
    });
    await scheduler.start();
    expect(timers.pendingAt).toEqual([START + 90_000]);
    await timers.advance(89_999);
    expect(ran).toHaveLength(0);
    await timers.advance(1);
    await scheduler.idle();
    expect(ran.map((r) => [r.prompt, r.occurrenceKey, r.attempt, r.tools])).toEqual([
      ['hello', `task1@${START + 90_000}`, 1, ['think']],
    ]);
    expect(await scheduler.logs('task1')).toMatchObject([
      { status: 'succeeded', result: 'answer to hello' },
    ]);
    expect(
      bus.history.map((event) => [event.type, (event.data as Record<string, unknown>).task_id]),
    ).toEqual([
      ['scheduler_task_start', 'task1'],
      ['scheduler_task_end', 'task1'],
    ]);
    expect(bus.history[1]?.data).toMatchObject({
      success: true,
      result: 'answer to hello',
      error: '',
      scheduled_for: '2026-11-29T12:01:30+00:00',
      recorded: true,
    });
    // Start and end name the occurrence with one key, so a subscriber can pair them.
    const keys = bus.history.map((event) => (event.data as Record<string, unknown>).occurrence_key);
    expect(keys).toEqual([`task1@${START + 90_000}`, `task1@${START + 90_000}`]);
    expect(timers.pendingAt).toEqual([START + 180_000]);
  });

  it('runs a once task up to the catch-up window in the past at the next tick and completes it', async () => {
    const { scheduler, ran } = setup();
    await scheduler.createTask({
      prompt: 'late',
      scheduleType: 'once',
      scheduleValue: '2026-11-29T11:00:00', // exactly the catch-up window (1 h) ago
    });
    await scheduler.start();
    await scheduler.idle();
    expect(ran).toHaveLength(1);
    expect(await scheduler.getTask('task1')).toMatchObject({
      status: 'completed',
      nextRunMs: undefined,
      lastRunMs: START,
    });
    await expect(scheduler.resumeTask('task1')).rejects.toThrow(/completed \(a final status\)/);
  });

  it('runs due tasks concurrently up to the limit', async () => {
    const { runTask, calls } = controlledRunner();
    const { scheduler, timers } = setup({ runTask, concurrency: 2 });
    for (const name of ['a', 'b', 'c'])
      await scheduler.createTask({ prompt: name, scheduleType: 'interval', scheduleValue: '10' });
    await scheduler.start();
    await timers.advance(10_000);
    expect(calls.map((c) => c.request.prompt)).toEqual(['a', 'b']);
    calls[0]?.resolve('done');
    await timers.advance(0);
    expect(calls.map((c) => c.request.prompt)).toEqual(['a', 'b', 'c']);
    expect(scheduler.runningCount).toBe(2);
    calls[1]?.resolve('done');
    calls[2]?.resolve('done');
    await scheduler.idle();
  });

  it('never overlaps a task with its own previous run; the occurrences passed meanwhile are missed', async () => {
    const held = controlledRunner();
    let fastRuns = 0;
    const runTask: RunTask = (request) => {
      if (request.prompt === 'slow') return held.runTask(request);
      fastRuns += 1; // a busy neighbour keeps the scheduler ticking every second
      return Promise.resolve('fast');
    };
    const { scheduler, timers, store } = setup({ runTask, leaseMs: 600_000 });
    const slow = await scheduler.createTask({
      prompt: 'slow',
      scheduleType: 'interval',
      scheduleValue: '1',
    });
    await scheduler.createTask({ prompt: 'fast', scheduleType: 'interval', scheduleValue: '1' });
    await scheduler.start();
    await timers.advance(5_500);
    expect(fastRuns).toBe(5);
    expect(held.calls).toHaveLength(1);
    held.calls[0]?.resolve('done');
    await timers.advance(0);
    expect(held.calls).toHaveLength(2); // one catch-up of the latest occurrence, not a burst
    expect(held.calls[1]?.request.scheduledForMs).toBe(START + 5_000);
    const slowRuns = store.allRuns().filter((run) => run.taskId === slow.id);
    expect(slowRuns.map((run) => run.status)).toEqual([
      'succeeded',
      'missed',
      'missed',
      'missed',
      'running',
    ]);
    held.calls[1]?.resolve('done');
    await scheduler.idle();
  });

  it('after downtime runs one catch-up within the window and records the rest as missed', async () => {
    const { scheduler, clock, ran } = setup();
    await scheduler.createTask({
      prompt: 'hourly',
      scheduleType: 'cron',
      scheduleValue: '0 * * * *',
    });
    clock.currentMs = at('2026-11-29T17:10:00Z'); // down from 12:00 to 17:10
    await scheduler.start();
    await scheduler.idle();
    expect(ran.map((r) => new Date(r.scheduledForMs).toISOString())).toEqual([
      '2026-11-29T17:00:00.000Z',
    ]);
    expect((await scheduler.logs('task1')).map((run) => run.status)).toEqual([
      'succeeded',
      'missed',
      'missed',
      'missed',
      'missed',
    ]);
    expect((await scheduler.getTask('task1')).nextRunMs).toBe(at('2026-11-29T18:00:00Z'));
  });

  it('records a failing run with its error and keeps the schedule going', async () => {
    const { scheduler, timers, bus } = setup({
      runTask: async () => {
        throw new Error('engine down');
      },
    });
    await scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '5' });
    await scheduler.start();
    await timers.advance(5_000);
    await scheduler.idle();
    expect(await scheduler.logs('task1')).toMatchObject([
      { status: 'failed', success: false, error: 'engine down' },
    ]);
    expect(bus.history.at(-1)?.data).toMatchObject({ success: false, error: 'engine down' });
    expect(await scheduler.getTask('task1')).toMatchObject({
      status: 'active',
      nextRunMs: START + 10_000,
    });
  });

  it('runNow runs an extra occurrence now and refuses while the task runs', async () => {
    const { runTask, calls } = controlledRunner();
    const { scheduler } = setup({ runTask });
    await scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '3600' });
    const running = scheduler.runNow('task1');
    await expect(scheduler.runNow('task1')).rejects.toThrow(/already running/);
    calls[0]?.resolve('now!');
    await expect(running).resolves.toMatchObject({
      status: 'succeeded',
      result: 'now!',
      scheduledForMs: START,
    });
    expect((await scheduler.getTask('task1')).nextRunMs).toBe(START + 3_600_000);
    await expect(scheduler.runNow('missing')).rejects.toThrow('Task not found: missing');
  });

  it('runNow passes its signal to the run; a cancelled run is recorded as failed with the reason', async () => {
    const { scheduler } = setup({
      runTask: (request) =>
        new Promise((_resolve, reject) => {
          request.signal.addEventListener('abort', () => reject(request.signal.reason), {
            once: true,
          });
        }),
    });
    await scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '3600' });
    const controller = new AbortController();
    const running = scheduler.runNow('task1', { signal: controller.signal });
    controller.abort(new Error('Interrupted (SIGINT)'));
    await expect(running).resolves.toMatchObject({
      status: 'failed',
      success: false,
      error: 'Interrupted (SIGINT)',
    });
  });

  it('stop waits for running occurrences, bounded, then aborts them', async () => {
    const { runTask, calls } = controlledRunner();
    const { scheduler, timers } = setup({ runTask, stopTimeoutMs: 5_000 });
    await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-11-29T12:00:00Z', // due now
    });
    await scheduler.start();
    await timers.advance(0);
    const stopped = scheduler.stop();
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    await timers.advance(4_999);
    expect(done).toBe(false);
    await timers.advance(1);
    expect(done).toBe(true);
    expect(calls[0]?.request.signal.aborted).toBe(true);
    calls[0]?.resolve('late');
    await scheduler.idle();
  });

  it('start and runNow need a runTask', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const store = new SchedulerStore({ dbPath: join(dir.path, 's.db') });
    cleanups.push(() => store.close());
    const scheduler = new TaskScheduler({ store });
    await expect(scheduler.start()).rejects.toThrow(/no runTask/);
    await expect(scheduler.runNow('x')).rejects.toThrow(/no runTask/);
  });
});

describe('TaskScheduler with several processes on one database', () => {
  it('completes each occurrence exactly once across two schedulers', async () => {
    const first = setup({ owner: 'A' });
    const clock = first.clock;
    const second = setup({ owner: 'B', dbPath: first.dbPath, clock });
    await first.scheduler.createTask({
      prompt: 'shared',
      scheduleType: 'interval',
      scheduleValue: '10',
    });
    await first.scheduler.start();
    await second.scheduler.start();
    for (let i = 0; i < 20; i += 1) {
      await first.timers.advance(5_000);
      await second.timers.advance(0);
      await Promise.all([first.scheduler.idle(), second.scheduler.idle()]);
    }
    const runs = first.store.allRuns();
    expect(runs.map((run) => run.scheduledForMs)).toEqual(
      Array.from({ length: 10 }, (_, i) => START + (i + 1) * 10_000),
    );
    expect(runs.every((run) => run.status === 'succeeded')).toBe(true);
    expect(first.ran.length + second.ran.length).toBe(10);
  });

  it('retries a crashed run after its lease expires, with the same occurrence key', async () => {
    const { runTask, calls } = controlledRunner();
    const crashed = setup({ owner: 'A', runTask, leaseMs: 30_000 });
    const survivor = setup({
      owner: 'B',
      dbPath: crashed.dbPath,
      clock: crashed.clock,
      leaseMs: 30_000,
    });
    await crashed.scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-11-29T12:00:00Z', // due now
    });
    await crashed.scheduler.start();
    await crashed.timers.advance(0);
    expect(calls).toHaveLength(1); // A claimed it and then "crashed": its timers never fire again
    await survivor.scheduler.start();
    await survivor.timers.advance(29_999);
    expect(survivor.ran).toHaveLength(0);
    await survivor.timers.advance(1);
    await survivor.scheduler.idle();
    expect(survivor.ran.map((r) => [r.occurrenceKey, r.attempt])).toEqual([
      [calls[0]?.request.occurrenceKey, 2],
    ]);
    calls[0]?.resolve('too late');
    await crashed.scheduler.idle();
    expect(survivor.store.runLogs('task1')).toMatchObject([
      { status: 'succeeded', attempt: 2, result: 'answer to p' },
    ]);
    expect(crashed.bus.history.at(-1)?.data).toMatchObject({ recorded: false });
  });

  it('renews the lease of a long run so no other process takes it over', async () => {
    const { runTask, calls } = controlledRunner();
    const slow = setup({ owner: 'A', runTask, leaseMs: 30_000 });
    const other = setup({ owner: 'B', dbPath: slow.dbPath, clock: slow.clock, leaseMs: 30_000 });
    await slow.scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-11-29T12:00:00Z', // due now
    });
    await slow.scheduler.start();
    await other.scheduler.start();
    for (let i = 0; i < 12; i += 1) {
      await slow.timers.advance(10_000);
      await other.timers.advance(0);
    }
    expect(other.ran).toHaveLength(0);
    calls[0]?.resolve('finally');
    await slow.scheduler.idle();
    expect(slow.store.runLogs('task1')).toMatchObject([{ status: 'succeeded', attempt: 1 }]);
  });
});

describe('TaskScheduler hardening: origins, limits, past once times, delete', () => {
  it('a task an agent asks for may name only the tools of its run; a person is not limited', async () => {
    const { scheduler } = setup();
    const ask = (tools: string) =>
      scheduler.createTask({
        prompt: 'p',
        scheduleType: 'interval',
        scheduleValue: '60',
        tools,
        createdBy: 'agent',
        allowedTools: ['schedule_task', 'think'],
      });
    await expect(ask('think,web_search,file_read')).rejects.toThrow(
      expect.objectContaining({
        code: 'tools_not_allowed',
        message: expect.stringMatching(/^tool\(s\) not allowed: web_search, file_read\. /),
      }),
    );
    expect(await ask('think')).toMatchObject({
      createdBy: 'agent',
      allowedTools: ['schedule_task', 'think'],
    });
    expect(
      await scheduler.createTask({
        prompt: 'p',
        scheduleType: 'interval',
        scheduleValue: '60',
        tools: 'web_search',
      }),
    ).toMatchObject({ createdBy: 'person', allowedTools: undefined, tools: 'web_search' });
  });

  it('refuses at run time a task whose stored tool list is wider than its recorded allowance', async () => {
    const { scheduler, dbPath, ran } = setup();
    const task = await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '60',
      tools: 'think',
      createdBy: 'agent',
      allowedTools: ['think'],
    });
    const raw = new Database(dbPath);
    raw
      .prepare("UPDATE scheduled_tasks SET tools = 'think,code_interpreter' WHERE id = ?")
      .run(task.id);
    raw.close();
    const run = await scheduler.runNow(task.id);
    expect(ran).toEqual([]);
    expect(run).toMatchObject({
      status: 'failed',
      error: `refused to run: task ${task.id} was created by an agent allowed only the tools think, but its tool list also names code_interpreter`,
    });
  });

  it('intervals are at least 1 s by default; a person may configure another minimum', async () => {
    const { scheduler } = setup();
    await expect(
      scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '0.001' }),
    ).rejects.toThrow(
      "invalid interval '0.001' (shorter than the minimum of 1 s): give a number of seconds from 1 to 315360000, e.g. '3600'",
    );
    const relaxed = setup({ minIntervalMs: 250 }).scheduler;
    expect(
      (await relaxed.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '0.25' }))
        .scheduleValue,
    ).toBe('0.25');
    expect(() => setup({ minIntervalMs: 0 })).toThrow(/minIntervalMs must be a positive number/);
  });

  it('runs a task at most 60 times a minute; later occurrences are skipped and recorded, not queued', async () => {
    const { scheduler, store, timers, ran } = setup();
    // a 1 ms interval stored before the minimum existed (what a model once created)
    store.insertTask({
      ...(await scheduler.createTask({
        prompt: 'seed',
        scheduleType: 'interval',
        scheduleValue: '60',
      })),
      id: 'flood',
      scheduleValue: '0.001',
      nextRunMs: START + 1,
    });
    await scheduler.cancelTask('task1');
    await scheduler.start();
    await timers.advance(3_000);
    expect(ran).toHaveLength(60);
    const skipped = store.allRuns().filter((run) => run.status === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ taskId: 'flood', scheduledForMs: START + 61 });
    expect(skipped[0]?.error).toBe(
      'skipped: the task already ran 60 time(s) within a minute (limit: 60 runs per task per minute); ' +
        '59939 more occurrence(s) until 2026-11-29T12:01:00+00:00 are skipped too',
    );
    expect((await scheduler.getTask('flood')).nextRunMs).toBe(START + 60_001);
    await timers.advance(60_000);
    expect(ran).toHaveLength(120); // the next minute runs again, no backlog
    expect(store.allRuns().filter((run) => run.status === 'skipped')).toHaveLength(2);
  });

  it('a 1 s interval (the minimum) is never skipped by the default limit', async () => {
    const { scheduler, store, timers, ran } = setup({ maxSleepMs: 3_600_000 });
    await scheduler.createTask({ prompt: 'tick', scheduleType: 'interval', scheduleValue: '1' });
    await scheduler.start();
    await timers.advance(90_000); // past the first full minute, where the limit would start to bite
    expect(ran).toHaveLength(90);
    expect(store.allRuns().every((run) => run.status === 'succeeded')).toBe(true);
  });

  it('the runs-per-minute limit is configurable', async () => {
    const { scheduler, store, timers, ran } = setup({ maxRunsPerTaskPerMinute: 2 });
    await scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '10' });
    await scheduler.start();
    await timers.advance(60_000);
    expect(ran.map((request) => request.scheduledForMs - START)).toEqual([10_000, 20_000]);
    expect(store.allRuns().map((run) => [run.scheduledForMs - START, run.status])).toEqual([
      [10_000, 'succeeded'],
      [20_000, 'succeeded'],
      [30_000, 'skipped'],
    ]);
    expect((await scheduler.getTask('task1')).nextRunMs).toBe(START + 70_000);
  });

  it('refuses a once time further in the past than the catch-up window, saying what is accepted', async () => {
    const { scheduler } = setup();
    await expect(
      scheduler.createTask({
        prompt: 'p',
        scheduleType: 'once',
        scheduleValue: '2026-11-29T10:59:59Z',
      }),
    ).rejects.toThrow(
      "once time '2026-11-29T10:59:59Z' (2026-11-29T10:59:59+00:00) is in the past (now 2026-11-29T12:00:00+00:00): " +
        "give a future ISO 8601 date-time such as '2026-11-30T12:00:00Z', or one at most 1 h ago (the catch-up window)",
    );
    const tight = setup({ catchupWindowMs: 0 }).scheduler;
    await expect(
      tight.createTask({
        prompt: 'p',
        scheduleType: 'once',
        scheduleValue: '2026-11-29T11:59:59Z',
      }),
    ).rejects.toThrow(/or one at most 0 s ago/);
    expect(
      (
        await tight.createTask({
          prompt: 'p',
          scheduleType: 'once',
          scheduleValue: '2026-11-29T12:00:00Z',
        })
      ).status,
    ).toBe('active');
  });

  it('a once task that came due beyond the catch-up window while nothing ran is recorded as missed', async () => {
    const { scheduler, clock, ran } = setup();
    await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-11-29T13:00:00Z',
    });
    clock.currentMs = at('2026-11-29T14:00:01Z'); // down until 1 h 1 s after it was due
    await scheduler.start();
    await scheduler.idle();
    expect(ran).toEqual([]);
    expect(await scheduler.logs('task1')).toMatchObject([
      { status: 'missed', scheduledForMs: at('2026-11-29T13:00:00Z') },
    ]);
    expect(await scheduler.getTask('task1')).toMatchObject({
      status: 'completed',
      nextRunMs: undefined,
    });
  });

  it('deletes a task with its run history; refuses while it runs; unknown ids are not found', async () => {
    const { runTask, calls } = controlledRunner();
    const { scheduler, store } = setup({ runTask });
    const task = await scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '60',
    });
    const running = scheduler.runNow(task.id);
    await expect(scheduler.deleteTask(task.id)).rejects.toThrow(
      expect.objectContaining({
        code: 'task_running',
        message: `Task ${task.id} is running now since 2026-11-29T12:00:00+00:00; it was not deleted. Wait for the run to end (or stop the scheduler running it), then delete it again; \`cancel\` stops further runs meanwhile`,
      }),
    );
    calls[0]?.resolve('done');
    await running;
    expect(await scheduler.deleteTask(task.id)).toMatchObject({
      task: { id: task.id },
      runsDeleted: 1,
    });
    expect(store.getTask(task.id)).toBeUndefined();
    expect(store.allRuns()).toEqual([]);
    await expect(scheduler.deleteTask(task.id)).rejects.toThrow(
      expect.objectContaining({ code: 'task_not_found' }),
    );
  });

  it('deletes a task whose running occurrence was left by a dead process (its lease expired)', async () => {
    const { runTask } = controlledRunner();
    const crashed = setup({ runTask, leaseMs: 30_000, owner: 'dead' });
    const task = await crashed.scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '60',
    });
    void crashed.scheduler.runNow(task.id); // never settles: the process "died"
    const other = setup({ dbPath: crashed.dbPath, clock: crashed.clock });
    crashed.clock.currentMs += 30_000;
    expect((await other.scheduler.deleteTask(task.id)).runsDeleted).toBe(1);
  });
});
