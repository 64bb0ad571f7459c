import { join } from 'node:path';
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
  it('creates an active task with its first run and the tools.md fields', () => {
    const { scheduler } = setup();
    const task = scheduler.createTask({
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
    expect(scheduler.getTask('task1')).toEqual(task);
    const plain = scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '5',
    });
    expect(plain.agent).toBe('simple');
    const named = scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '5',
      agent: ' native_react ',
      tools: 'think',
    });
    expect(named.agent).toBe('native_react');
  });

  it('refuses bad input with clear errors and unknown ids with "Task not found"', () => {
    const { scheduler } = setup();
    expect(() =>
      scheduler.createTask({ prompt: '', scheduleType: 'interval', scheduleValue: '5' }),
    ).toThrow(/prompt/);
    expect(() =>
      scheduler.createTask({ prompt: 'x', scheduleType: 'interval', scheduleValue: '-5' }),
    ).toThrow(/seconds/);
    expect(() => scheduler.pauseTask('nope')).toThrow('Task not found: nope');
    expect(() => scheduler.logs('nope')).toThrow('Task not found: nope');
    expect(() => scheduler.listTasks({ status: 'weird' })).toThrow(
      /active, paused, completed, cancelled/,
    );
  });

  it('pauses, resumes (next run from now) and cancels; final statuses cannot be resumed', async () => {
    const { scheduler, clock } = setup();
    const task = scheduler.createTask({
      prompt: 'p',
      scheduleType: 'interval',
      scheduleValue: '60',
    });
    expect(scheduler.pauseTask(task.id)).toMatchObject({
      status: 'paused',
      nextRunMs: START + 60_000,
    });
    expect(() => scheduler.pauseTask(task.id)).toThrow(/Cannot pause task task1: it is paused/);
    clock.currentMs += 3_600_000;
    expect(scheduler.resumeTask(task.id)).toMatchObject({
      status: 'active',
      nextRunMs: clock.currentMs + 60_000,
    });
    expect(() => scheduler.resumeTask(task.id)).toThrow(/only paused tasks can be resumed/);
    expect(scheduler.cancelTask(task.id)).toMatchObject({
      status: 'cancelled',
      nextRunMs: undefined,
    });
    expect(() => scheduler.resumeTask(task.id)).toThrow(/it is cancelled \(a final status\)/);
    expect(() => scheduler.cancelTask(task.id)).toThrow(/Cannot cancel/);
    expect(scheduler.listTasks({ status: 'cancelled' }).map((t) => t.id)).toEqual(['task1']);
  });
});

describe('TaskScheduler firing', () => {
  it('sets its timer to the next due time and runs the task then (no fixed poll)', async () => {
    const { scheduler, timers, ran, bus } = setup({ maxSleepMs: 24 * 3_600_000 });
    scheduler.createTask({
      prompt: 'hello',
      scheduleType: 'interval',
      scheduleValue: '90',
      tools: 'think',
    });
    scheduler.start();
    expect(timers.pendingAt).toEqual([START + 90_000]);
    await timers.advance(89_999);
    expect(ran).toHaveLength(0);
    await timers.advance(1);
    await scheduler.idle();
    expect(ran.map((r) => [r.prompt, r.occurrenceKey, r.attempt, r.tools])).toEqual([
      ['hello', `task1@${START + 90_000}`, 1, ['think']],
    ]);
    expect(scheduler.logs('task1')).toMatchObject([
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
    expect(timers.pendingAt).toEqual([START + 180_000]);
  });

  it('runs a past once task at the next tick and completes it', async () => {
    const { scheduler, ran } = setup();
    scheduler.createTask({
      prompt: 'late',
      scheduleType: 'once',
      scheduleValue: '2020-01-01T00:00:00',
    });
    scheduler.start();
    await scheduler.idle();
    expect(ran).toHaveLength(1);
    expect(scheduler.getTask('task1')).toMatchObject({
      status: 'completed',
      nextRunMs: undefined,
      lastRunMs: START,
    });
    expect(() => scheduler.resumeTask('task1')).toThrow(/completed \(a final status\)/);
  });

  it('runs due tasks concurrently up to the limit', async () => {
    const { runTask, calls } = controlledRunner();
    const { scheduler, timers } = setup({ runTask, concurrency: 2 });
    for (const name of ['a', 'b', 'c'])
      scheduler.createTask({ prompt: name, scheduleType: 'interval', scheduleValue: '10' });
    scheduler.start();
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
    const slow = scheduler.createTask({
      prompt: 'slow',
      scheduleType: 'interval',
      scheduleValue: '1',
    });
    scheduler.createTask({ prompt: 'fast', scheduleType: 'interval', scheduleValue: '1' });
    scheduler.start();
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
    scheduler.createTask({ prompt: 'hourly', scheduleType: 'cron', scheduleValue: '0 * * * *' });
    clock.currentMs = at('2026-11-29T17:10:00Z'); // down from 12:00 to 17:10
    scheduler.start();
    await scheduler.idle();
    expect(ran.map((r) => new Date(r.scheduledForMs).toISOString())).toEqual([
      '2026-11-29T17:00:00.000Z',
    ]);
    expect(scheduler.logs('task1').map((run) => run.status)).toEqual([
      'succeeded',
      'missed',
      'missed',
      'missed',
      'missed',
    ]);
    expect(scheduler.getTask('task1').nextRunMs).toBe(at('2026-11-29T18:00:00Z'));
  });

  it('records a failing run with its error and keeps the schedule going', async () => {
    const { scheduler, timers, bus } = setup({
      runTask: async () => {
        throw new Error('engine down');
      },
    });
    scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '5' });
    scheduler.start();
    await timers.advance(5_000);
    await scheduler.idle();
    expect(scheduler.logs('task1')).toMatchObject([
      { status: 'failed', success: false, error: 'engine down' },
    ]);
    expect(bus.history.at(-1)?.data).toMatchObject({ success: false, error: 'engine down' });
    expect(scheduler.getTask('task1')).toMatchObject({
      status: 'active',
      nextRunMs: START + 10_000,
    });
  });

  it('runNow runs an extra occurrence now and refuses while the task runs', async () => {
    const { runTask, calls } = controlledRunner();
    const { scheduler } = setup({ runTask });
    scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '3600' });
    const running = scheduler.runNow('task1');
    await expect(scheduler.runNow('task1')).rejects.toThrow(/already running/);
    calls[0]?.resolve('now!');
    await expect(running).resolves.toMatchObject({
      status: 'succeeded',
      result: 'now!',
      scheduledForMs: START,
    });
    expect(scheduler.getTask('task1').nextRunMs).toBe(START + 3_600_000);
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
    scheduler.createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '3600' });
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
    scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-01-01T00:00:00Z',
    });
    scheduler.start();
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
    expect(() => scheduler.start()).toThrow(/no runTask/);
    await expect(scheduler.runNow('x')).rejects.toThrow(/no runTask/);
  });
});

describe('TaskScheduler with several processes on one database', () => {
  it('completes each occurrence exactly once across two schedulers', async () => {
    const first = setup({ owner: 'A' });
    const clock = first.clock;
    const second = setup({ owner: 'B', dbPath: first.dbPath, clock });
    first.scheduler.createTask({ prompt: 'shared', scheduleType: 'interval', scheduleValue: '10' });
    first.scheduler.start();
    second.scheduler.start();
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
    crashed.scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-01-01T00:00:00Z',
    });
    crashed.scheduler.start();
    await crashed.timers.advance(0);
    expect(calls).toHaveLength(1); // A claimed it and then "crashed": its timers never fire again
    survivor.scheduler.start();
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
    slow.scheduler.createTask({
      prompt: 'p',
      scheduleType: 'once',
      scheduleValue: '2026-01-01T00:00:00Z',
    });
    slow.scheduler.start();
    other.scheduler.start();
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
