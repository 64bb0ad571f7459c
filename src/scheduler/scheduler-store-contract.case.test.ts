// The scheduler store contract: what every SchedulerStoreBackend (SQLite, PostgreSQL) must do, run by each
// backend's test file. Not a test file itself (*.case.test.ts is neither run nor built).
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import type { ClaimDueOptions } from './scheduler-store.js';
import type { SchedulerStoreBackend } from './scheduler-store-backend.js';
import type { ScheduledTask } from './task-types.js';

/** Opens a fresh, empty store for one test (`context` lets a backend that cannot run here skip). */
export type OpenContractStore = (context: TestContext) => Promise<SchedulerStoreBackend>;

/** A task as the store tests write it. */
export const contractTask = (
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

/** `claimDue` options with a 1 s lease and 3 attempts. */
export const claimOptions = (nowMs: number, owner = 'a'): ClaimDueOptions => ({
  nowMs,
  owner,
  leaseMs: 1_000,
  limit: 10,
  catchupWindowMs: 3_600_000,
  maxAttempts: 3,
});

const done = (runId: number, owner: string, nowMs: number) => ({
  runId,
  owner,
  nowMs,
  success: true,
  result: 'ok',
  error: '',
});

/** Defines the contract tests for one backend. */
export function describeSchedulerStoreContract(name: string, open: OpenContractStore): void {
  const stores: SchedulerStoreBackend[] = [];
  const openStore = async (context: TestContext) => {
    const store = await open(context);
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  describe(`scheduler store contract: ${name}`, () => {
    it('round-trips tasks in creation order and filters by status', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('b', 5));
      await store.insertTask(contractTask('a', undefined, { status: 'paused' }));
      await store.insertTask(
        contractTask('c', 7, { createdBy: 'agent', allowedTools: [], tools: '' }),
      );
      expect(await store.getTask('b')).toEqual(contractTask('b', 5));
      expect((await store.listTasks()).map((t) => t.id)).toEqual(['b', 'a', 'c']);
      expect((await store.listTasks('paused')).map((t) => t.id)).toEqual(['a']);
      expect(await store.getTask('zzz')).toBeUndefined();
      expect(await store.getTask('c')).toMatchObject({ createdBy: 'agent', allowedTools: [] });
    });

    it('claims a due occurrence once, advances next_run, and completes it once', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 60_000));
      expect(await store.claimDue(claimOptions(59_999))).toEqual([]);
      const [claim] = await store.claimDue(claimOptions(60_000));
      expect(claim?.run).toMatchObject({
        taskId: 't1',
        scheduledForMs: 60_000,
        status: 'running',
        attempt: 1,
        leaseOwner: 'a',
        leaseExpiresMs: 61_000,
      });
      expect(claim?.task).toMatchObject({ id: 't1', nextRunMs: 120_000 });
      expect((await store.getTask('t1'))?.nextRunMs).toBe(120_000);
      expect(await store.claimDue(claimOptions(60_001, 'b'))).toEqual([]); // held by a
      const runId = claim?.run.id ?? -1;
      expect(await store.completeRun(done(runId, 'b', 60_010))).toBe(false);
      expect(await store.completeRun(done(runId, 'a', 60_010))).toBe(true);
      expect(await store.completeRun(done(runId, 'a', 60_010))).toBe(false);
      expect(await store.runLogs('t1')).toMatchObject([
        { status: 'succeeded', success: true, result: 'ok', finishedMs: 60_010 },
      ]);
      expect(await store.getRun(runId)).toMatchObject({ status: 'succeeded' });
      expect(await store.getRun(runId + 1_000)).toBeUndefined();
      expect((await store.getTask('t1'))?.lastRunMs).toBe(60_010);
    });

    it('retries an occurrence whose lease expired with the same key, then gives up after maxAttempts', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(
        contractTask('t1', 0, { scheduleType: 'once', scheduleValue: '1970-01-01T00:00:00Z' }),
      );
      const first = (await store.claimDue(claimOptions(0, 'a')))[0]?.run;
      expect(await store.claimDue(claimOptions(999, 'b'))).toEqual([]);
      const second = (await store.claimDue(claimOptions(1_000, 'b')))[0]?.run;
      expect(second).toMatchObject({
        id: first?.id,
        scheduledForMs: 0,
        attempt: 2,
        leaseOwner: 'b',
      });
      expect(await store.completeRun(done(first?.id ?? -1, 'a', 1_001))).toBe(false);
      expect((await store.claimDue(claimOptions(2_000, 'c')))[0]?.run.attempt).toBe(3);
      expect(await store.claimDue(claimOptions(3_000, 'a'))).toEqual([]);
      expect(await store.runLogs('t1')).toMatchObject([
        { status: 'failed', error: expect.stringMatching(/gave up after 3/) },
      ]);
      expect((await store.getTask('t1'))?.status).toBe('completed');
    });

    it('does not retry a crashed occurrence of a task cancelled meanwhile', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 0));
      await store.claimDue(claimOptions(0, 'a'));
      await store.updateTask('t1', () => ({ status: 'cancelled', nextRunMs: undefined }));
      expect(await store.claimDue(claimOptions(5_000, 'b'))).toEqual([]);
      expect(await store.runLogs('t1')).toMatchObject([
        { status: 'failed', error: expect.stringMatching(/cancelled before the retry/) },
      ]);
    });

    it('renews a lease only for its holder and wakes at the earliest due time or lease end', async (ctx) => {
      const store = await openStore(ctx);
      expect(await store.nextWakeMs()).toBeUndefined();
      await store.insertTask(contractTask('t1', 0));
      await store.insertTask(contractTask('t2', 50_000));
      const run = (await store.claimDue({ ...claimOptions(0), limit: 1 }))[0]?.run;
      const renew = (owner: string) =>
        store.renewLease(run?.id ?? -1, { nowMs: 900, owner, leaseMs: 1_000 });
      expect(await renew('b')).toBe(false);
      expect(await renew('a')).toBe(true);
      expect(await store.claimDue(claimOptions(1_500, 'b'))).toEqual([]);
      expect(await store.nextWakeMs()).toBe(1_900);
    });

    it('keeps one run per task and scheduled time; a manual run is refused while one runs', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 0));
      await store.claimDue(claimOptions(0));
      const lease = { nowMs: 0, owner: 'b', leaseMs: 1_000 };
      await expect(store.claimManual('t1', lease)).rejects.toMatchObject({
        code: 'task_running',
      });
      await expect(store.claimManual('nope', lease)).rejects.toMatchObject({
        code: 'task_not_found',
      });
      const [run] = await store.allRuns();
      await store.completeRuns([done(run?.id ?? -1, 'a', 10)]);
      await expect(store.claimManual('t1', lease)).rejects.toThrow(/already has an occurrence/);
      const manual = await store.claimManual('t1', { ...lease, nowMs: 20 });
      expect(manual.run).toMatchObject({ scheduledForMs: 20, attempt: 1, leaseOwner: 'b' });
    });

    it('records missed occurrences after downtime and runs one catch-up', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 60_000));
      const claims = await store.claimDue(claimOptions(60_000 * 5 + 30_000));
      expect(claims.map((claim) => claim.run.scheduledForMs)).toEqual([300_000]);
      expect((await store.runLogs('t1')).map((run) => [run.scheduledForMs, run.status])).toEqual([
        [300_000, 'running'],
        [240_000, 'missed'],
        [180_000, 'missed'],
        [120_000, 'missed'],
        [60_000, 'missed'],
      ]);
      expect((await store.runLogs('t1', 2)).length).toBe(2);
      expect((await store.getTask('t1'))?.nextRunMs).toBe(360_000);
    });

    it('skips occurrences beyond the runs-per-minute limit and records it', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 0, { scheduleValue: '10' }));
      const limited = (nowMs: number) => ({ ...claimOptions(nowMs), maxRunsPerTaskPerMinute: 2 });
      for (const nowMs of [0, 10_000]) {
        const [claim] = await store.claimDue(limited(nowMs));
        await store.completeRuns([done(claim?.run.id ?? -1, 'a', nowMs + 1)]);
      }
      expect(await store.claimDue(limited(20_000))).toEqual([]);
      expect((await store.allRuns()).map((run) => [run.scheduledForMs, run.status])).toEqual([
        [0, 'succeeded'],
        [10_000, 'succeeded'],
        [20_000, 'skipped'],
      ]);
      expect((await store.getTask('t1'))?.nextRunMs).toBe(60_000);
    });

    it('completes a stored task whose schedule is invalid, recording why', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('bad', 0, { scheduleType: 'cron', scheduleValue: 'x' }));
      expect(await store.claimDue(claimOptions(0))).toEqual([]);
      expect(await store.getTask('bad')).toMatchObject({
        status: 'completed',
        nextRunMs: undefined,
      });
      expect(await store.runLogs('bad')).toMatchObject([
        { status: 'failed', error: expect.stringMatching(/stored schedule is invalid/) },
      ]);
    });

    it('updates a task atomically; a refusing change writes nothing', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 5));
      expect(await store.updateTask('t1', () => ({ status: 'paused' }))).toMatchObject({
        status: 'paused',
        nextRunMs: 5,
      });
      await expect(
        store.updateTask('t1', () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await store.updateTask('t1', () => ({ nextRunMs: undefined }))).toMatchObject({
        status: 'paused',
        nextRunMs: undefined,
      });
      expect(await store.getTask('t1')).toMatchObject({ status: 'paused', nextRunMs: undefined });
      await expect(store.updateTask('nope', () => ({}))).rejects.toMatchObject({
        code: 'task_not_found',
      });
    });

    it('deletes a task and its runs in one transaction; refused while a live lease runs', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 0));
      await store.insertTask(contractTask('t2', 0));
      const [first, second] = await store.claimDue(claimOptions(0));
      await expect(store.deleteTask('t1', 1)).rejects.toMatchObject({ code: 'task_running' });
      expect(
        await store.completeRuns([
          done(first?.run.id ?? -1, 'a', 1),
          done(second?.run.id ?? -1, 'a', 1),
          done(-5, 'a', 1),
        ]),
      ).toEqual([true, true, false]);
      expect(await store.deleteTask('t1', 2)).toMatchObject({
        task: { id: 't1' },
        runsDeleted: 1,
      });
      expect((await store.listTasks()).map((t) => t.id)).toEqual(['t2']);
      expect((await store.allRuns()).map((run) => run.taskId)).toEqual(['t2']);
      await expect(store.deleteTask('t1', 3)).rejects.toMatchObject({ code: 'task_not_found' });
    });

    it('deletes a task whose occurrence was left by a dead process (lease expired)', async (ctx) => {
      const store = await openStore(ctx);
      await store.insertTask(contractTask('t1', 0));
      await store.claimDue(claimOptions(0));
      expect((await store.deleteTask('t1', 1_000)).runsDeleted).toBe(1);
      expect(await store.allRuns()).toEqual([]);
    });
  });
}
