import { afterAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { migrate, openPostgres, type PostgresDatabase, StorageError } from '../storage/index.js';
import { TELEMETRY_MIGRATIONS } from './postgres-telemetry-schema.js';
import {
  PostgresTelemetryStore,
  type PostgresTelemetryStoreOptions,
} from './postgres-telemetry-store.js';
import {
  finishedTrace,
  telemetryRecord,
  telemetryStoreContract,
} from './telemetry-store-contract.case.test.js';

const postgres = usePostgres();
let shared: { url: string; db: PostgresDatabase } | undefined;
const stores: PostgresTelemetryStore[] = [];

afterAll(async () => {
  for (const store of stores) await store.close().catch(() => undefined);
  await shared?.db.close();
});

type Ctx = { skip: (note?: string) => never };

/** One database for the file, its telemetry tables emptied for each test. */
async function emptyDatabase(ctx: Ctx): Promise<PostgresDatabase> {
  if (shared === undefined) {
    const url = await postgres.server(ctx).createDatabase();
    shared = { url, db: await openPostgres({ url, poolSize: 4 }) };
    await migrate(shared.db, TELEMETRY_MIGRATIONS);
  }
  await shared.db.query('TRUNCATE telemetry, trace_runs, trace_spans RESTART IDENTITY');
  return shared.db;
}

function storeOn(
  database: PostgresDatabase,
  options: Omit<PostgresTelemetryStoreOptions, 'database'> = {},
): PostgresTelemetryStore {
  const store = new PostgresTelemetryStore({ database, closeDatabase: false, ...options });
  stores.push(store);
  return store;
}

/** The real handle with every transaction counted, failing (before its statements) when `fail` says so. */
function flaky(db: PostgresDatabase, fail: () => Error | undefined = () => undefined) {
  const seen = { transactions: 0 };
  const waiters: (() => void)[] = [];
  const wrapped: PostgresDatabase = {
    location: db.location,
    query: (sql, params) => db.query(sql, params),
    listen: (channel, onNotify, options) => db.listen(channel, onNotify, options),
    notify: (channel, payload) => db.notify(channel, payload),
    now: () => db.now(),
    close: async () => {},
    transaction: async (fn) => {
      seen.transactions += 1;
      const result = await db.transaction(async (tx) => {
        const failure = fail();
        if (failure !== undefined) throw failure;
        return fn(tx);
      });
      for (const wake of waiters.splice(0)) wake();
      return result;
    },
  };
  /** Resolves after the next transaction that commits. */
  const committed = () => new Promise<void>((resolve) => waiters.push(resolve));
  return { wrapped, seen, committed };
}

const unavailable = () =>
  new StorageError({ code: 'storage_unavailable', message: 'PostgreSQL went away' });

describe('PostgresTelemetryStore: the telemetry store contract', () => {
  telemetryStoreContract(async (ctx) => {
    const db = await emptyDatabase(ctx);
    return { open: async (options = {}) => storeOn(db, options) };
  });
});

describe('PostgresTelemetryStore writes', () => {
  it('writes in batches of batchSize, in the background after flushDelayMs', async (ctx) => {
    const { wrapped, seen, committed } = flaky(await emptyDatabase(ctx));
    const store = storeOn(wrapped, { batchSize: 500, flushDelayMs: 1 });
    await store.ready(); // its migration is a transaction too
    seen.transactions = 0;
    const done = committed();
    store.record(telemetryRecord({ model: 'alone' }));
    await done; // written by the timer: nobody read or flushed
    expect(seen.transactions).toBe(1);
    for (let i = 0; i < 1_200; i += 1) store.record(telemetryRecord({ timestampMs: i }));
    await store.flush();
    expect(seen.transactions).toBe(4);
    expect(await store.recent(2000)).toHaveLength(1_201);
    expect(store.pendingWrites).toBe(0);
  });

  it('keeps writes while the database is away, reports it, and stores them once it is back', async (ctx) => {
    const problems: string[] = [];
    let away = true;
    const { wrapped, committed } = flaky(await emptyDatabase(ctx), () =>
      away ? unavailable() : undefined,
    );
    const store = storeOn(wrapped, { retryDelayMs: 5, onProblem: (m) => problems.push(m) });
    store.record(telemetryRecord());
    store.recordRun(finishedTrace('beef0001', 1));
    await expect(store.flush()).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/2 telemetry writes wait for PostgreSQL/),
    });
    expect(problems.at(-1)).toMatch(/PostgreSQL went away.*2 writes wait; retrying in \d+ ms/);
    expect(store.pendingWrites).toBe(2);
    expect(store.writeFailures).toBe(0);
    away = false;
    await committed(); // the backoff timer tried again: nothing else asked for a write
    await store.flush();
    expect(await store.recent()).toHaveLength(1);
    expect((await store.listRuns()).map((run) => run.id)).toEqual(['beef0001']);
    expect(store.writeFailures).toBe(0);
  });

  it('drops only the write the database refuses, counting and reporting it', async (ctx) => {
    const problems: string[] = [];
    const db = await emptyDatabase(ctx);
    const { wrapped, seen } = flaky(db);
    // A constraint that refuses one record: the batch fails, then each record is written alone.
    await db.query("ALTER TABLE telemetry ADD CONSTRAINT no_poison CHECK (model <> 'poison')");
    try {
      const store = storeOn(wrapped, { onProblem: (m) => problems.push(m) });
      store.record(telemetryRecord({ model: 'a' }));
      store.record(telemetryRecord({ model: 'poison' }));
      store.record(telemetryRecord({ model: 'b', error: 'nul \0 inside', success: false }));
      await store.ready();
      seen.transactions = 0;
      await store.flush();
      expect(seen.transactions).toBe(4);
      const models = (await store.recent()).map((record) => record.model).sort();
      expect(models).toEqual(['a', 'b']);
      expect((await store.recent())[0]?.error).toBe('nul \uFFFD inside');
      expect(store.writeFailures).toBe(1);
      expect(store.lastWriteError).toMatchObject({
        code: 'storage_query_failed',
        sqlState: '23514',
      });
      expect(problems).toEqual([expect.stringMatching(/no_poison.*1 write was dropped/)]);
    } finally {
      await db.query('ALTER TABLE telemetry DROP CONSTRAINT no_poison');
    }
  });

  it('says how many writes were lost when it closes while the database is away', async (ctx) => {
    const { wrapped } = flaky(await emptyDatabase(ctx), () => unavailable());
    const store = storeOn(wrapped);
    store.record(telemetryRecord());
    store.record(telemetryRecord());
    await expect(store.close()).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/2 telemetry writes could not be stored .* before closing/),
    });
    expect(store.writeFailures).toBe(2);
  });

  it('prunes to maxRuns across two stores writing at once', async (ctx) => {
    const db = await emptyDatabase(ctx);
    const [a, b] = [storeOn(db, { maxRuns: 5 }), storeOn(db, { maxRuns: 5 })];
    for (let i = 0; i < 10; i += 1) {
      a.recordRun(finishedTrace(`a${String(i).padStart(3, '0')}`, i * 2));
      b.recordRun(finishedTrace(`b${String(i).padStart(3, '0')}`, i * 2 + 1));
    }
    await Promise.all([a.flush(), b.flush()]);
    const ids = (await a.listRuns()).map((run) => run.id);
    expect(ids).toEqual(['b009', 'a009', 'b008', 'a008', 'b007']);
    const spans = await db.query<{ n: number }>('SELECT count(*) AS n FROM trace_spans');
    expect(spans).toEqual([{ n: 5 * 4 }]);
  });

  it('opens and migrates on first use, and refuses tables of a newer version', async (ctx) => {
    const db = await emptyDatabase(ctx);
    const lazy = new PostgresTelemetryStore({
      database: () => openPostgres({ url: shared?.url ?? '', poolSize: 1 }),
      location: 'postgres://somewhere',
    });
    stores.push(lazy);
    expect(lazy.location).toBe('postgres://somewhere');
    expect(await lazy.listRuns()).toEqual([]);
    expect(lazy.location).toMatch(/^postgres:\/\/jarvis@127\.0\.0\.1:\d+\/jarvis_test_\d+$/);
    await lazy.close();
    await db.query("UPDATE jarvis_schema_versions SET version = 9 WHERE store = 'telemetry'");
    try {
      const newer = storeOn(db);
      await expect(newer.summary()).rejects.toMatchObject({
        code: 'telemetry_database_incompatible',
        message: expect.stringMatching(
          /schema version 9, and this version of OpenJarvis reads up to 1/,
        ),
      });
    } finally {
      await db.query("UPDATE jarvis_schema_versions SET version = 1 WHERE store = 'telemetry'");
    }
  });
});
