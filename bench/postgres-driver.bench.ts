// Driver choice for PostgreSQL (issue 19): `pg` next to `postgres` (postgres.js) on our own queries, measured
// side by side in one run against a throwaway server: a session-turn append transaction, a memory full-text
// search, and a scheduler `FOR UPDATE SKIP LOCKED` claim; each one at a time and 8 at once.
// Usage: node --import tsx bench/postgres-driver.bench.ts [--quick]
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { isSkipped, startPostgres } from '../test/support/postgres-server.js';

/** postgres.js is a peer measured here only: it lives in bench/peers (npm run bench:setup), never in the package. */
const peers = createRequire(new URL('./peers/package.json', import.meta.url));

/** The part of postgres.js this bench uses. */
interface PostgresJs {
  unsafe(text: string, params: unknown[]): Promise<Iterable<unknown>>;
  begin(fn: (tx: Pick<PostgresJs, 'unsafe'>) => Promise<void>): Promise<unknown>;
  end(options: { timeout: number }): Promise<void>;
}

/** One driver behind the three workloads. */
interface Driver {
  readonly name: string;
  query(sql: string, params: unknown[]): Promise<unknown[]>;
  transaction(
    fn: (query: (sql: string, params: unknown[]) => Promise<unknown[]>) => Promise<void>,
  ): Promise<void>;
  close(): Promise<void>;
}

const POOL_SIZE = 8;

function pgDriver(url: string, named: boolean): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  const statement = (client: pg.Pool | pg.PoolClient, sql: string, params: unknown[]) =>
    named
      ? client.query({ name: `s${hash(sql)}`, text: sql, values: params })
      : client.query(sql, params);
  return {
    name: named ? 'pg (named statements)' : 'pg',
    query: async (sql, params) => (await statement(pool, sql, params)).rows,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await fn(async (sql, params) => (await statement(client, sql, params)).rows);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

function postgresJsDriver(url: string): Driver {
  const postgres = peers('postgres') as (url: string, options: object) => PostgresJs;
  const sql = postgres(url, { max: POOL_SIZE, onnotice: () => undefined });
  return {
    name: 'postgres',
    query: async (text, params) => [...(await sql.unsafe(text, params))],
    async transaction(fn) {
      await sql.begin(async (tx) => {
        await fn(async (text, params) => [...(await tx.unsafe(text, params))]);
      });
    },
    close: () => sql.end({ timeout: 1 }),
  };
}

function hash(text: string): number {
  let value = 0;
  for (let i = 0; i < text.length; i += 1) value = (Math.imul(value, 31) + text.charCodeAt(i)) | 0;
  return value >>> 0;
}

const SCHEMA = `
CREATE TABLE sessions (id text PRIMARY KEY, title text NOT NULL DEFAULT '', turn_count integer NOT NULL DEFAULT 0,
  updated_ms bigint NOT NULL DEFAULT 0);
CREATE TABLE session_turns (session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE, seq integer NOT NULL,
  messages text NOT NULL, agent text NOT NULL, model text NOT NULL, total_tokens integer NOT NULL, status text NOT NULL,
  started_ms bigint NOT NULL, ended_ms bigint NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE chunks (id bigserial PRIMARY KEY, content text NOT NULL, source text NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
CREATE TABLE tasks (id bigserial PRIMARY KEY, due_ms bigint NOT NULL, owner text, payload text NOT NULL);
CREATE INDEX tasks_due ON tasks (due_ms);
INSERT INTO sessions (id) SELECT 'ses_' || i FROM generate_series(1, 64) i;
INSERT INTO chunks (content, source)
  SELECT 'note ' || i || ' about ' || (ARRAY['postgres','sqlite','scheduler','memory','agents','tools'])[1 + i % 6]
    || ' and ' || (ARRAY['latency','leases','search','ranking','vacuum','index'])[1 + (i / 7) % 6]
    || ' ' || repeat('filler words for a realistic chunk ', 8), 'doc' || (i % 50)
  FROM generate_series(1, 20000) i;
INSERT INTO tasks (due_ms, payload) SELECT i, 'task ' || i FROM generate_series(1, 20000) i;
ANALYZE;
`;

const MESSAGES = JSON.stringify([
  { role: 'user', content: 'what is the weather in Oslo? '.repeat(10) },
  { role: 'assistant', content: 'it rains '.repeat(40) },
]);

/** The three workloads, each one operation; `n` varies the session and search words. */
const WORKLOADS: Record<string, (driver: Driver, n: number) => Promise<unknown>> = {
  'session turn append (transaction)': (driver, n) =>
    driver.transaction(async (query) => {
      const id = `ses_${1 + (n % 64)}`;
      const rows = (await query('SELECT turn_count FROM sessions WHERE id = $1 FOR UPDATE', [
        id,
      ])) as { turn_count: number }[];
      const seq = Number(rows[0]?.turn_count ?? 0) + 1;
      await query(
        `INSERT INTO session_turns (session_id, seq, messages, agent, model, total_tokens, status, started_ms, ended_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [id, seq, MESSAGES, 'simple', 'm', 15, 'completed', n, n + 10],
      );
      await query(
        'UPDATE sessions SET turn_count = $2, updated_ms = GREATEST(updated_ms, $3) WHERE id = $1',
        [id, seq, n + 10],
      );
    }),
  'memory search (tsquery, ts_rank_cd, top 10)': (driver, n) =>
    driver.query(
      `SELECT id, content, source, ts_rank_cd(tsv, q) AS score
       FROM chunks, to_tsquery('english', $1) q WHERE tsv @@ q ORDER BY score DESC, id LIMIT 10`,
      [['postgres & leases', 'memory & search', 'agents | ranking', 'sched:* & vacuum'][n % 4]],
    ),
  'scheduler claim (FOR UPDATE SKIP LOCKED)': (driver, n) =>
    driver.query(
      `UPDATE tasks SET due_ms = due_ms + 1000000, owner = $1
       WHERE id = (SELECT id FROM tasks ORDER BY due_ms LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, payload`,
      [`worker-${n % 4}`],
    ),
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Microseconds per operation of `count` operations, `parallel` in flight at once. */
async function timeOps(run: (n: number) => Promise<unknown>, count: number, parallel: number) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await run(next++);
    }),
  );
  return ((performance.now() - started) * 1000) / count;
}

/** Options of `postgresDriverBench`. */
export interface PostgresDriverBenchOptions {
  readonly quick?: boolean;
}

/** Runs the comparison and returns the printed report (or the reason it was skipped). */
export async function postgresDriverBench(
  options: PostgresDriverBenchOptions = {},
): Promise<string> {
  const server = await startPostgres();
  if (isSkipped(server)) return `PostgreSQL driver bench ${server.skipped}`;
  try {
    const url = await server.createDatabase();
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query(SCHEMA);
    await setup.end();
    const drivers = [pgDriver(url, false), pgDriver(url, true), postgresJsDriver(url)];
    try {
      return await measure(drivers, options.quick === true);
    } finally {
      for (const driver of drivers) await driver.close();
    }
  } finally {
    await server.stop();
  }
}

async function measure(drivers: readonly Driver[], quick: boolean): Promise<string> {
  const rounds = quick ? 5 : 11;
  const count = quick ? 100 : 300;
  const lines = [
    `PostgreSQL driver: median us/op over ${rounds} interleaved rounds of ${count} ops (pool ${POOL_SIZE}, fsync on); ratio = driver / pg`,
  ];
  for (const [workload, run] of Object.entries(WORKLOADS)) {
    for (const parallel of [1, 8]) {
      const samples = new Map<string, number[]>(drivers.map((d) => [d.name, []]));
      for (const driver of drivers) await timeOps((n) => run(driver, n), 50, parallel); // warm up
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? drivers : [...drivers].reverse();
        for (const driver of order) {
          samples.get(driver.name)?.push(await timeOps((n) => run(driver, n), count, parallel));
        }
      }
      const base = median(samples.get('pg') ?? []);
      lines.push(`  ${workload}, ${parallel} at once:`);
      for (const driver of drivers) {
        const us = median(samples.get(driver.name) ?? []);
        lines.push(
          `    ${driver.name.padEnd(24)} ${us.toFixed(0).padStart(7)} us/op  ratio ${(us / base).toFixed(2)}`,
        );
      }
    }
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await postgresDriverBench({ quick: process.argv.includes('--quick') }));
}
