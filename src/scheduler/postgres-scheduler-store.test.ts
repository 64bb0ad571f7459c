import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it, type TestContext } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { openPostgres, type PostgresDatabase } from '../storage/index.js';
import { killAllWorkers, spawnWorker } from './crash-harness.case.test.js';
import { PostgresSchedulerStore } from './postgres-scheduler-store.js';
import {
  contractTask,
  describeSchedulerStoreContract,
} from './scheduler-store-contract.case.test.js';
import { tempDir } from './scheduler-test-support.case.test.js';
import { type RunTaskRequest, TaskScheduler } from './task-scheduler.js';
import { systemTimers } from './timers.js';

// One server and one database for the file; every test starts from empty tables (TRUNCATE), because creating
// a database takes a second on a loaded machine.
const postgres = usePostgres();
let shared: { url: string; admin: PostgresDatabase } | undefined;
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllWorkers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await shared?.admin.close();
});

/** A store on the file's database with empty scheduler tables. */
async function freshStore(ctx: TestContext): Promise<PostgresSchedulerStore> {
  if (shared === undefined) {
    const url = await postgres.server(ctx).createDatabase();
    shared = { url, admin: await openPostgres({ url, poolSize: 1 }) };
  }
  const store = await PostgresSchedulerStore.open({ url: shared.url, poolSize: 3 });
  await shared.admin.query('TRUNCATE scheduler_tasks, scheduler_runs RESTART IDENTITY');
  return store;
}

describeSchedulerStoreContract('PostgreSQL', freshStore);

/** A scheduler on `store` whose own clock is `skewMs` off; it records each run with the database time. */
function worker(store: PostgresSchedulerStore, skewMs: number, fired: Fired[]) {
  const scheduler = new TaskScheduler({
    store,
    owner: `skew${skewMs}`,
    clock: { nowMs: () => Date.now() + skewMs, monotonicMs: () => performance.now() },
    timers: systemTimers,
    maxSleepMs: 60_000,
    runTask: async (request: RunTaskRequest) => {
      fired.push({ request, atMs: await store.currentTimeMs() });
      return 'ok';
    },
  });
  cleanups.push(() => scheduler.stop());
  return scheduler;
}

interface Fired {
  readonly request: RunTaskRequest;
  readonly atMs: number;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const endMs = performance.now() + timeoutMs;
  while (!condition() && performance.now() < endMs) await delay(10);
}

describe('PostgresSchedulerStore', () => {
  it('claims a batch at the database clock in one round and says when to look again', async (ctx) => {
    const store = await freshStore(ctx);
    cleanups.push(() => store.close());
    const dbNowMs = await store.currentTimeMs();
    for (const id of ['a', 'b', 'c']) await store.insertTask(contractTask(id, dbNowMs - 1_000));
    await store.insertTask(contractTask('later', dbNowMs + 600_000));
    const options = {
      owner: 'a',
      leaseMs: 30_000,
      limit: 2,
      catchupWindowMs: 3_600_000,
      maxAttempts: 3,
    };
    const first = await store.claimDueNow(options);
    expect(first.claims.map((claim) => claim.task.id)).toEqual(['a', 'b']);
    expect(first.nowMs).toBeGreaterThanOrEqual(dbNowMs);
    expect(first.nextWakeMs).toBe(first.nowMs); // c is still due
    expect(first.claims[0]?.run.leaseExpiresMs).toBe(first.nowMs + 30_000);
    const second = await store.claimDueNow(options);
    expect(second.claims.map((claim) => claim.task.id)).toEqual(['c']);
    // a and b are running: the next thing to look at is their leases' end (c runs again in a minute)
    expect(second.nextWakeMs).toBe(first.nowMs + 30_000);
    const runs = [...first.claims, ...second.claims].map((claim) => claim.run.id);
    const outcome = { owner: 'a', success: true, result: 'ok', error: '' };
    const recorded = await store.completeRunsNow([
      ...runs.map((runId) => ({ ...outcome, runId })),
      { ...outcome, runId: runs[0] ?? 0, owner: 'someone else' },
    ]);
    expect(recorded).toEqual([true, true, true, false]);
    const done = await store.getRun(runs[0] ?? 0);
    expect(done?.status).toBe('succeeded');
    expect(done?.finishedMs).toBeGreaterThanOrEqual(first.nowMs);
    expect((await store.getTask('a'))?.lastRunMs).toBe(done?.finishedMs);
    expect(await store.completeRunsNow([{ ...outcome, runId: runs[1] ?? 0 }])).toEqual([false]);
    const idle = await store.claimDueNow(options);
    expect(idle.claims).toEqual([]);
    expect(idle.nextWakeMs).toBe(first.claims[0]?.task.nextRunMs);
  });

  it('fires by the database clock: workers whose clocks are 5 minutes off fire on time', async (ctx) => {
    const store = await freshStore(ctx);
    cleanups.push(() => store.close());
    const fired: Fired[] = [];
    const ahead = worker(store, 5 * 60_000, fired);
    const behind = worker(store, -5 * 60_000, fired);
    const dbNowMs = await store.currentTimeMs();
    const dueMs = [dbNowMs + 400, dbNowMs + 700];
    for (const atMs of dueMs)
      await ahead.createTask({
        prompt: 'p',
        scheduleType: 'once',
        scheduleValue: new Date(atMs).toISOString(),
      });
    expect((await store.listTasks()).map((task) => task.createdMs)).toEqual([
      expect.closeTo(dbNowMs, -3),
      expect.closeTo(dbNowMs, -3),
    ]);
    await Promise.all([ahead.start(), behind.start()]);
    await until(() => fired.length === 2, 5_000);
    expect(fired.map((f) => f.request.scheduledForMs).sort((a, b) => a - b)).toEqual(dueMs);
    for (const { request, atMs } of fired) {
      expect(atMs).toBeGreaterThanOrEqual(request.scheduledForMs); // never early (the ahead clock)
      expect(atMs - request.scheduledForMs).toBeLessThan(1_500); // never 5 minutes late (the behind one)
    }
  });

  it('a task created in one process fires in another at once (NOTIFY), not at its next poll', async (ctx) => {
    const store = await freshStore(ctx);
    cleanups.push(() => store.close());
    const dir = tempDir();
    cleanups.push(dir.remove);
    const effects = join(dir.path, 'effects.log');
    // the worker polls every 60 s: only the notification can wake it in time
    await spawnWorker({
      dbPath: shared?.url ?? '',
      effects,
      owner: 'idle',
      leaseMs: 5_000,
      maxSleepMs: 60_000,
    });
    const creator = new TaskScheduler({ store });
    const startedMs = performance.now();
    const task = await creator.createTask({
      prompt: 'now',
      scheduleType: 'once',
      scheduleValue: new Date(await store.currentTimeMs()).toISOString(),
    });
    const ran = () => existsSync(effects) && readFileSync(effects, 'utf8').includes(task.id);
    await until(ran, 10_000);
    const latencyMs = performance.now() - startedMs;
    expect(ran()).toBe(true);
    expect(latencyMs).toBeLessThan(3_000);
  });

  it('refuses tables of a newer version, leaving them as they are', async (ctx) => {
    const store = await freshStore(ctx);
    await store.close();
    await shared?.admin.query(
      "UPDATE jarvis_schema_versions SET version = 99 WHERE store = 'scheduler'",
    );
    try {
      await expect(PostgresSchedulerStore.open({ url: shared?.url ?? '' })).rejects.toMatchObject({
        code: 'storage_schema_incompatible',
        message: expect.stringMatching(
          /schema version 99, and this version of OpenJarvis reads up to 1/,
        ),
      });
    } finally {
      await shared?.admin.query(
        "UPDATE jarvis_schema_versions SET version = 1 WHERE store = 'scheduler'",
      );
    }
  });

  it('opens lazily: a store given a database still opening waits for it', async (ctx) => {
    await (await freshStore(ctx)).close();
    const store = new PostgresSchedulerStore({
      database: () => openPostgres({ url: shared?.url ?? '', poolSize: 1 }),
    });
    cleanups.push(() => store.close());
    expect(await store.listTasks()).toEqual([]);
    expect(store.location).toMatch(/^postgres:\/\/jarvis@127\.0\.0\.1:\d+\//);
    await store.close();
    await expect(store.listTasks()).rejects.toMatchObject({ code: 'scheduler_unavailable' });
  });
});
