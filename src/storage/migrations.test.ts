import { afterEach, describe, expect, it } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { migrate, storeLockKey } from './migrations.js';
import { openPostgres, type PostgresDatabase } from './postgres-database.js';

const postgres = usePostgres();
const opened: PostgresDatabase[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function open(url: string): Promise<PostgresDatabase> {
  const db = await openPostgres({ url, poolSize: 2 });
  opened.push(db);
  return db;
}

const V1 = 'CREATE TABLE notes (id serial PRIMARY KEY, text text NOT NULL)';
// Each application of V2 leaves a row, so the test sees how often it ran.
const V2 =
  "ALTER TABLE notes ADD COLUMN tag text; INSERT INTO notes (text) VALUES ('v2 applied'); SELECT pg_sleep(0.05)";

describe('migrate', () => {
  it('applies the missing steps in order once, records the version, and is a no-op after', async (ctx) => {
    const db = await open(await postgres.server(ctx).createDatabase());
    expect(await migrate(db, { store: 'notes', migrations: [V1] })).toEqual({
      fromVersion: 0,
      toVersion: 1,
    });
    expect(await migrate(db, { store: 'notes', migrations: [V1, V2] })).toEqual({
      fromVersion: 1,
      toVersion: 2,
    });
    expect(await migrate(db, { store: 'notes', migrations: [V1, V2] })).toEqual({
      fromVersion: 2,
      toVersion: 2,
    });
    const versions = await db.query('SELECT store, version FROM jarvis_schema_versions');
    expect(versions).toEqual([{ store: 'notes', version: 2 }]);
    expect(await db.query('SELECT text, tag FROM notes')).toEqual([
      { text: 'v2 applied', tag: null },
    ]);
  });

  it('applies each step once when several processes start at the same time', async (ctx) => {
    const url = await postgres.server(ctx).createDatabase();
    const handles = await Promise.all([open(url), open(url), open(url), open(url)]);
    const outcomes = await Promise.all(
      handles.map((db) => migrate(db, { store: 'notes', migrations: [V1, V2] })),
    );
    expect(outcomes.filter((o) => o.fromVersion === 0)).toHaveLength(1);
    expect(outcomes.every((o) => o.toVersion === 2)).toBe(true);
    expect(await handles[0]?.query('SELECT count(*)::int AS n FROM notes')).toEqual([{ n: 1 }]);
  });

  it('keeps each store its own version, also when two stores start together on a fresh database', async (ctx) => {
    const url = await postgres.server(ctx).createDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    if (a === undefined || b === undefined) throw new Error('not opened');
    await Promise.all([
      migrate(a, { store: 'alpha', migrations: ['CREATE TABLE alpha (x int)'] }),
      migrate(b, {
        store: 'beta',
        migrations: ['CREATE TABLE beta (x int)', 'ALTER TABLE beta ADD COLUMN y int'],
      }),
    ]);
    const versions = await a.query('SELECT store, version FROM jarvis_schema_versions ORDER BY 1');
    expect(versions).toEqual([
      { store: 'alpha', version: 1 },
      { store: 'beta', version: 2 },
    ]);
    expect(storeLockKey('alpha')).not.toBe(storeLockKey('beta'));
  });

  it('refuses a database written by a newer version, naming the store and both versions', async (ctx) => {
    const db = await open(await postgres.server(ctx).createDatabase());
    await migrate(db, { store: 'notes', migrations: [V1, V2] });
    await expect(migrate(db, { store: 'notes', migrations: [V1] })).rejects.toMatchObject({
      code: 'storage_schema_incompatible',
      message: expect.stringMatching(
        /the notes tables .* have schema version 2, and this version of OpenJarvis reads up to 1/,
      ),
    });
    const versions = await db.query('SELECT version FROM jarvis_schema_versions');
    expect(versions).toEqual([{ version: 2 }]);
  });

  it('rolls back a failing step whole', async (ctx) => {
    const db = await open(await postgres.server(ctx).createDatabase());
    await expect(
      migrate(db, { store: 'notes', migrations: [V1, 'ALTER TABLE nowhere ADD COLUMN x int'] }),
    ).rejects.toMatchObject({ code: 'storage_query_failed', sqlState: '42P01' });
    expect(await db.query("SELECT to_regclass('notes')::text AS t")).toEqual([{ t: null }]);
  });
});
