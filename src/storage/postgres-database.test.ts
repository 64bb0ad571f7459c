import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { JarvisError } from '../core/index.js';
import { openPostgres, type PostgresDatabase } from './postgres-database.js';
import { StorageError } from './storage-error.js';

const postgres = usePostgres();
const opened: PostgresDatabase[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function open(url: string, problems: string[] = []): Promise<PostgresDatabase> {
  const db = await openPostgres({ url, poolSize: 3, onProblem: (m) => problems.push(m) });
  opened.push(db);
  return db;
}

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** Resolves with the next payload `db` hears on `channel`. */
function nextNotification(db: PostgresDatabase, channel: string, onReconnect?: () => void) {
  let resolve: (payload: string) => void = () => undefined;
  const heard = new Promise<string>((r) => {
    resolve = r;
  });
  const subscribed = db.listen(channel, (payload) => resolve(payload), { onReconnect });
  return { heard, subscribed };
}

describe('openPostgres against a real server', () => {
  it('queries with parameters, reads bigint as numbers and reads the server clock', async (ctx) => {
    const db = await open(await postgres.server(ctx).createDatabase());
    const rows = await db.query<{ n: number; text: string }>(
      'SELECT $1::bigint AS n, $2::text AS text',
      [1_700_000_000_123, 'hi'],
    );
    expect(rows).toEqual([{ n: 1_700_000_000_123, text: 'hi' }]);
    const serverMs = await db.now();
    expect(Math.abs(serverMs - Date.now())).toBeLessThan(5_000);
    expect(db.location).toMatch(/^postgres:\/\/jarvis@127\.0\.0\.1:\d+\/jarvis_test_\d+$/);
  });

  it('commits a transaction, rolls it back when fn throws, and names a refused statement', async (ctx) => {
    const db = await open(await postgres.server(ctx).createDatabase());
    await db.query('CREATE TABLE items (name text PRIMARY KEY)');
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items VALUES ($1)', ['a']);
      await tx.query('INSERT INTO items VALUES ($1)', ['b']);
    });
    const mine = new JarvisError({ code: 'invalid_argument', message: 'mine' });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items VALUES ($1)', ['c']);
        throw mine;
      }),
    ).rejects.toBe(mine);
    const duplicate = db.transaction((tx) => tx.query('INSERT INTO items VALUES ($1)', ['a']));
    await expect(duplicate).rejects.toBeInstanceOf(StorageError);
    await expect(duplicate).rejects.toMatchObject({
      code: 'storage_query_failed',
      sqlState: '23505',
      message: expect.stringMatching(/duplicate key.*SQLSTATE 23505/),
    });
    await expect(db.query('SELEC 1')).rejects.toMatchObject({ sqlState: '42601' });
    const names = await db.query<{ name: string }>('SELECT name FROM items ORDER BY name');
    expect(names.map((row) => row.name)).toEqual(['a', 'b']);
  });

  it('delivers notifications to listeners until they unsubscribe', async (ctx) => {
    const url = await postgres.server(ctx).createDatabase();
    const listener = await open(url);
    const sender = await open(url);
    const heard: string[] = [];
    const stop = await listener.listen('jobs', (payload) => heard.push(payload));
    const next = nextNotification(listener, 'jobs');
    await next.subscribed;
    await sender.notify('jobs', 'task-1');
    expect(await next.heard).toBe('task-1');
    expect(heard).toEqual(['task-1']);
    await stop();
    await expect(listener.listen('bad channel', () => undefined)).rejects.toThrow(/not accepted/);
  });

  it('rides through a server restart: queries retry, listeners re-subscribe, problems are reported', async (ctx) => {
    const server = postgres.server(ctx);
    const url = await server.createDatabase();
    const problems: string[] = [];
    const db = await open(url, problems);
    const sender = await open(url);
    let reconnected = 0;
    await db.listen('after_restart', () => undefined, { onReconnect: () => (reconnected += 1) });
    await db.query('SELECT 1');
    await server.restart();
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    const next = nextNotification(db, 'after_restart');
    await next.subscribed;
    await expect.poll(() => reconnected, { timeout: 10_000 }).toBe(1);
    await sender.notify('after_restart', 'again');
    expect(await next.heard).toBe('again');
    expect(problems.join('\n')).toMatch(/lost|retrying|terminat/i);
  }, 30_000);
});

describe('openPostgres failures', () => {
  let closedPort: Server | undefined;
  afterEach(() => closedPort?.close());

  it('gives up on an unreachable server with storage_unavailable, never showing the password', async () => {
    closedPort = createServer();
    await new Promise<void>((resolve) => closedPort?.listen(0, '127.0.0.1', resolve));
    const address = closedPort.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise<void>((resolve) => closedPort?.close(() => resolve()));
    const problems: string[] = [];
    const failure = openPostgres({
      url: `postgres://me:s3cret-Pass@127.0.0.1:${port}/db`,
      retryForMs: 300,
      onProblem: (message) => problems.push(message),
    });
    await expect(failure).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/ECONNREFUSED.*attempts/),
    });
    const error = await rejection(failure);
    expect(error.message).toContain(`postgres://me:***@127.0.0.1:${port}/db`);
    expect(problems.length).toBeGreaterThan(0);
    expect([error.message, ...problems].join('\n')).not.toContain('s3cret-Pass');
  });

  it('refuses a malformed url without echoing its password', async () => {
    await expect(openPostgres({ url: 'mysql://u:topsecret@h/db' })).rejects.toMatchObject({
      code: 'storage_invalid_url',
      message: expect.stringMatching(/scheme mysql.*postgres:\/\/user:password@host/),
    });
    const error = await rejection(openPostgres({ url: 'postgres://u:topsecret@/db' }));
    expect(error).toMatchObject({ code: 'storage_invalid_url' });
    expect(error.message).not.toContain('topsecret');
    await expect(openPostgres({ url: '' })).rejects.toThrow(/url is empty/);
  });

  it('fails with storage_closed after close', async (ctx) => {
    const db = await openPostgres({ url: postgres.server(ctx).url });
    await db.close();
    await db.close();
    await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: 'storage_closed' });
  });
});
