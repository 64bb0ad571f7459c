import { homedir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { expandHome, SchedulerStore } from './scheduler-store.js';
import { tempDir } from './scheduler-test-support.case.test.js';
import { SCHEMA_SQL } from './store-rows.js';
import { SCHEDULER_SCHEMA_VERSION } from './store-schema.js';
import type { ScheduledTask } from './task-types.js';

const dirs: { remove: () => void }[] = [];
const stores: SchedulerStore[] = [];

function openStore(): { store: SchedulerStore; dbPath: string } {
  const dir = tempDir();
  dirs.push(dir);
  const dbPath = join(dir.path, 'nested', 'scheduler.db');
  const store = new SchedulerStore({ dbPath });
  stores.push(store);
  return { store, dbPath };
}

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) dir.remove();
});

const task = (
  id: string,
  nextRunMs: number | undefined,
  extra: Partial<ScheduledTask> = {},
): ScheduledTask => ({
  id,
  prompt: `prompt ${id}`,
  scheduleType: 'interval',
  scheduleValue: '60',
  timezone: 'UTC',
  contextMode: 'isolated',
  status: 'active',
  nextRunMs,
  lastRunMs: undefined,
  agent: 'simple',
  tools: 'calculator,think',
  metadata: { source: 'test' },
  createdMs: 0,
  createdBy: 'person',
  allowedTools: undefined,
  ...extra,
});

const claimOptions = (nowMs: number, owner = 'a') => ({
  nowMs,
  owner,
  leaseMs: 1_000,
  limit: 10,
  catchupWindowMs: 3_600_000,
  maxAttempts: 3,
});

describe('SchedulerStore', () => {
  it('expands a leading ~ to the home directory', () => {
    expect(expandHome('~/.openjarvis/scheduler.db')).toBe(
      join(homedir(), '.openjarvis/scheduler.db'),
    );
    expect(expandHome('~')).toBe(homedir());
    expect(expandHome('/tmp/~x')).toBe('/tmp/~x');
  });

  it('opens in WAL mode with synchronous=FULL and a busy timeout, creating parent folders', () => {
    const { store, dbPath } = openStore();
    store.insertTask(task('t1', 5));
    const raw = new Database(dbPath, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
    expect(store.integrityCheck()).toBe('ok');
  });

  it('round-trips tasks in creation order and filters by status', () => {
    const { store } = openStore();
    store.insertTask(task('b', 5));
    store.insertTask(task('a', undefined, { status: 'paused' }));
    expect(store.getTask('b')).toEqual(task('b', 5));
    expect(store.listTasks().map((t) => t.id)).toEqual(['b', 'a']);
    expect(store.listTasks('paused').map((t) => t.id)).toEqual(['a']);
    expect(store.getTask('zzz')).toBeUndefined();
  });

  it('claims a due occurrence once, advances next_run, and completes it once', () => {
    const { store } = openStore();
    store.insertTask(task('t1', 60_000));
    expect(store.claimDue(claimOptions(59_999))).toEqual([]);
    const [claim] = store.claimDue(claimOptions(60_000));
    expect(claim?.run).toMatchObject({
      taskId: 't1',
      scheduledForMs: 60_000,
      status: 'running',
      attempt: 1,
    });
    expect(store.getTask('t1')?.nextRunMs).toBe(120_000);
    expect(store.claimDue(claimOptions(60_001, 'b'))).toEqual([]); // held by a
    const runId = claim?.run.id ?? -1;
    const done = { runId, nowMs: 60_010, success: true, result: 'ok', error: '' };
    expect(store.completeRun({ ...done, owner: 'b' })).toBe(false);
    expect(store.completeRun({ ...done, owner: 'a' })).toBe(true);
    expect(store.completeRun({ ...done, owner: 'a' })).toBe(false);
    expect(store.runLogs('t1')).toMatchObject([
      { status: 'succeeded', success: true, result: 'ok' },
    ]);
    expect(store.getTask('t1')?.lastRunMs).toBe(60_010);
  });

  it('retries an occurrence whose lease expired with the same key, then gives up after maxAttempts', () => {
    const { store } = openStore();
    store.insertTask(
      task('t1', 0, { scheduleType: 'once', scheduleValue: '1970-01-01T00:00:00Z' }),
    );
    const first = store.claimDue(claimOptions(0, 'a'))[0]?.run;
    expect(store.claimDue(claimOptions(999, 'b'))).toEqual([]);
    const second = store.claimDue(claimOptions(1_000, 'b'))[0]?.run;
    expect(second).toMatchObject({ id: first?.id, scheduledForMs: 0, attempt: 2, leaseOwner: 'b' });
    expect(
      store.completeRun({
        runId: first?.id ?? -1,
        owner: 'a',
        nowMs: 1_001,
        success: true,
        result: '',
        error: '',
      }),
    ).toBe(false);
    expect(store.claimDue(claimOptions(2_000, 'c'))[0]?.run.attempt).toBe(3);
    expect(store.claimDue(claimOptions(3_000, 'a'))).toEqual([]);
    expect(store.runLogs('t1')).toMatchObject([
      { status: 'failed', error: expect.stringMatching(/gave up after 3/) },
    ]);
    expect(store.getTask('t1')?.status).toBe('completed');
  });

  it('renews a lease only for its holder', () => {
    const { store } = openStore();
    store.insertTask(task('t1', 0));
    const run = store.claimDue(claimOptions(0))[0]?.run;
    expect(store.renewLease(run?.id ?? -1, { nowMs: 900, owner: 'b', leaseMs: 1_000 })).toBe(false);
    expect(store.renewLease(run?.id ?? -1, { nowMs: 900, owner: 'a', leaseMs: 1_000 })).toBe(true);
    expect(store.claimDue(claimOptions(1_500, 'b'))).toEqual([]);
    expect(store.nextWakeMs()).toBe(1_900);
  });

  it('keeps one row per task and scheduled time', () => {
    const { store, dbPath } = openStore();
    store.insertTask(task('t1', 0));
    store.claimDue(claimOptions(0));
    const raw = new Database(dbPath);
    try {
      expect(() =>
        raw
          .prepare(
            "INSERT INTO task_runs (task_id, scheduled_ms, status) VALUES ('t1', 0, 'succeeded')",
          )
          .run(),
      ).toThrow(/UNIQUE/);
    } finally {
      raw.close();
    }
  });

  it('records missed occurrences after downtime and runs one catch-up', () => {
    const { store } = openStore();
    store.insertTask(task('t1', 60_000));
    const claims = store.claimDue(claimOptions(60_000 * 5 + 30_000));
    expect(claims.map((claim) => claim.run.scheduledForMs)).toEqual([300_000]);
    expect(store.runLogs('t1').map((run) => [run.scheduledForMs, run.status])).toEqual([
      [300_000, 'running'],
      [240_000, 'missed'],
      [180_000, 'missed'],
      [120_000, 'missed'],
      [60_000, 'missed'],
    ]);
    expect(store.getTask('t1')?.nextRunMs).toBe(360_000);
  });
});

describe('SchedulerStore schema versions', () => {
  it('upgrades a version-1 database in place: its tasks become person tasks and keep running', () => {
    const dir = tempDir();
    dirs.push(dir);
    const dbPath = join(dir.path, 'scheduler.db');
    const old = new Database(dbPath);
    old.exec(SCHEMA_SQL); // the tables as the previous version wrote them (user_version 0)
    old
      .prepare(
        `INSERT INTO scheduled_tasks (id, prompt, schedule_type, schedule_value, next_run_ms, tools, created_ms)
         VALUES ('old', 'legacy', 'interval', '60', 60000, 'web_search', 0)`,
      )
      .run();
    old.close();
    const store = new SchedulerStore({ dbPath });
    stores.push(store);
    expect(store.getTask('old')).toMatchObject({
      prompt: 'legacy',
      tools: 'web_search',
      createdBy: 'person',
      allowedTools: undefined,
    });
    expect(store.claimDue(claimOptions(60_000)).map((claim) => claim.task.id)).toEqual(['old']);
    store.insertTask(
      task('new', 5, { createdBy: 'agent', allowedTools: ['think'], tools: 'think' }),
    );
    expect(store.getTask('new')).toMatchObject({ createdBy: 'agent', allowedTools: ['think'] });
    const raw = new Database(dbPath, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEDULER_SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('keeps an empty allowance apart from no limit', () => {
    const { store } = openStore();
    store.insertTask(task('none', 5, { createdBy: 'agent', allowedTools: [], tools: '' }));
    expect(store.getTask('none')).toMatchObject({ createdBy: 'agent', allowedTools: [] });
  });

  it('refuses a database written by a newer version, leaving it as it is', () => {
    const { store, dbPath } = openStore();
    store.close();
    const raw = new Database(dbPath);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => new SchedulerStore({ dbPath })).toThrow(
      `cannot use ${dbPath} as the scheduler database: it has schema version 99, and this version of OpenJarvis reads up to ${SCHEDULER_SCHEMA_VERSION}; upgrade OpenJarvis or choose another db_path; the file was left as it is`,
    );
  });

  it('deletes a task and its runs in one transaction', () => {
    const { store } = openStore();
    store.insertTask(task('t1', 0));
    store.insertTask(task('t2', 0));
    const [first, second] = store.claimDue(claimOptions(0));
    for (const claim of [first, second])
      store.completeRun({
        runId: claim?.run.id ?? -1,
        owner: 'a',
        nowMs: 1,
        success: true,
        result: '',
        error: '',
      });
    expect(store.deleteTask('t1', 2)).toMatchObject({ task: { id: 't1' }, runsDeleted: 1 });
    expect(store.listTasks().map((t) => t.id)).toEqual(['t2']);
    expect(store.allRuns().map((run) => run.taskId)).toEqual(['t2']);
  });
});
