import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isSkipped,
  type PostgresServer,
  type PostgresSkipped,
  processAlive,
  startPostgres,
} from './postgres-server.js';

let started: PostgresServer | PostgresSkipped;

beforeAll(async () => {
  started = await startPostgres();
}, 60_000);

afterAll(async () => {
  if (!isSkipped(started)) await started.stop();
}, 30_000);

async function queryOnce(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('startPostgres', () => {
  it('starts a server on loopback, makes fresh databases, survives a restart, and stop() leaves nothing', async () => {
    if (isSkipped(started)) {
      expect(started.skipped).toMatch(/^skipped: PostgreSQL not installed/);
      return;
    }
    const server = started;
    expect(server.url).toMatch(/^postgres:\/\/jarvis@127\.0\.0\.1:\d+\/postgres$/);
    expect(await queryOnce(server.url, 'SELECT 1 + 1 AS two')).toEqual([{ two: 2 }]);
    const fsync = await queryOnce(server.url, 'SHOW fsync');
    expect(fsync).toEqual([{ fsync: 'on' }]);

    const first = await server.createDatabase();
    const second = await server.createDatabase();
    expect(first).not.toBe(second);
    await queryOnce(first, 'CREATE TABLE t (x int); INSERT INTO t VALUES (7)');
    expect(await queryOnce(second, "SELECT to_regclass('t') AS t")).toEqual([{ t: null }]);

    const before = server.pid();
    expect(before).toBeGreaterThan(0);
    await server.restart();
    expect(server.pid()).not.toBe(before);
    expect(await queryOnce(first, 'SELECT x FROM t')).toEqual([{ x: 7 }]);

    const pid = server.pid() ?? 0;
    await server.stop();
    expect(processAlive(pid)).toBe(false);
    await expect(queryOnce(server.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    await server.stop();
  }, 60_000);
});
