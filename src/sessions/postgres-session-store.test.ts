import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../test/support/bundled-script.js';
import { usePostgres } from '../../test/support/postgres-server.js';
import { openPostgres, type PostgresDatabase } from '../storage/index.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { sessionStoreContract, simpleTurn } from './session-store-contract.case.test.js';

const WRITER = fileURLToPath(new URL('./postgres-session-writer.case.test.ts', import.meta.url));
const postgres = usePostgres();
/** The writer bundled to run with plain `node` (a start under tsx costs three times the CPU). */
let writerScript = '';
let shared: { url: string; db: PostgresDatabase } | undefined;

beforeAll(async () => {
  writerScript = await bundledScript(WRITER);
});

afterAll(async () => {
  await shared?.db.close();
});

/** One database for the file; each store starts from empty tables. */
async function database(ctx: { skip: (note?: string) => never }) {
  if (shared === undefined) {
    const url = await postgres.server(ctx).createDatabase();
    shared = { url, db: await openPostgres({ url, poolSize: 4 }) };
  }
  return shared;
}

async function emptyStore(ctx: { skip: (note?: string) => never }, nowMs = 1_000) {
  const { db } = await database(ctx);
  const clock = { nowMs };
  const store = await PostgresSessionStore.open({
    database: db,
    clock: { nowMs: () => clock.nowMs, monotonicMs: () => clock.nowMs },
  });
  await db.query('TRUNCATE jarvis_sessions CASCADE');
  return { store, clock };
}

describe('PostgresSessionStore: the session store contract', () => {
  sessionStoreContract((ctx) => emptyStore(ctx));
});

function runWriter(url: string, sessionId: string, label: string, count: number) {
  const child = spawn(process.execPath, [writerScript, url, sessionId, label, `${count}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (data: Buffer) => {
    errors += data.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { exited, errors: () => errors };
}

describe('PostgresSessionStore across processes', () => {
  it('two processes appending to one session at once lose nothing and share one count', async (ctx) => {
    const { store } = await emptyStore(ctx);
    const { url } = await database(ctx);
    const session = await store.create({ name: 'shared' });
    const a = runWriter(url, session.id, 'a', 40);
    const b = runWriter(url, session.id, 'b', 40);
    expect(await a.exited, a.errors()).toBe(0);
    expect(await b.exited, b.errors()).toBe(0);
    const turns = await store.turns(session.id);
    expect(turns.map((turn) => turn.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    const labels = turns.map((turn) => turn.messages[0]?.content.split(' ')[0]);
    expect(new Set(labels).size).toBe(80);
    expect((await store.find('shared'))?.turnCount).toBe(80);
  }, 60_000);
});

describe('PostgresSessionStore: tables it must not use', () => {
  it('refuses tables written by a newer version, naming both versions', async (ctx) => {
    const { db } = await database(ctx);
    await emptyStore(ctx);
    await db.query("UPDATE jarvis_schema_versions SET version = 9 WHERE store = 'sessions'");
    try {
      await expect(PostgresSessionStore.open({ database: db })).rejects.toMatchObject({
        code: 'sessions_database_incompatible',
        message: expect.stringMatching(
          /schema version 9, and this version of OpenJarvis reads up to 1/,
        ),
      });
    } finally {
      await db.query("UPDATE jarvis_schema_versions SET version = 1 WHERE store = 'sessions'");
    }
  });

  it('names a turn whose stored messages were damaged instead of returning garbage', async (ctx) => {
    const { store } = await emptyStore(ctx);
    const { db } = await database(ctx);
    const session = await store.create();
    await store.appendTurn(session.id, simpleTurn('q', 'a'));
    await db.query('UPDATE jarvis_session_turns SET messages = $1', ['{"not": "a list"}']);
    await expect(store.turns(session.id)).rejects.toThrow(
      new RegExp(
        `turn 1 of session ${session.id} cannot be read \\(its messages are not a list\\)`,
      ),
    );
  });

  it('reports its location without a password and leaves a shared handle open on close', async (ctx) => {
    const { store } = await emptyStore(ctx);
    const { db } = await database(ctx);
    expect(store.location).toBe(db.location);
    await store.close();
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
