import { afterAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { EventBus } from '../core/index.js';
import { openPostgres, type PostgresDatabase } from '../storage/index.js';
import { type ContractTest, memoryContract } from './memory-contract.case.test.js';
import { PostgresMemory, type PostgresMemoryOptions } from './postgres-memory.js';
import { ALL_WORDS_CANDIDATES } from './postgres-memory-schema.js';

const postgres = usePostgres();
let shared: PostgresDatabase | undefined;
const opened: PostgresMemory[] = [];

afterAll(async () => {
  for (const memory of opened.splice(0)) await memory.close();
  await shared?.close();
});

/** A memory on the file's one database, its table emptied first. */
async function openMemory(
  test: ContractTest,
  options: Omit<PostgresMemoryOptions, 'database'> = {},
): Promise<PostgresMemory> {
  shared ??= await openPostgres({ url: await postgres.server(test).createDatabase(), poolSize: 4 });
  const memory = await PostgresMemory.open({ database: shared, ...options });
  await shared.query('TRUNCATE jarvis_memory_documents');
  opened.push(memory);
  return memory;
}

describe('PostgresMemory: the memory contract', () => {
  memoryContract(openMemory, () => new EventBus({ recordHistory: true }));
});

describe('PostgresMemory: PostgreSQL details', () => {
  it('scores with ts_rank_cd and searches through the GIN index', async (ctx) => {
    const memory = await openMemory(ctx);
    await memory.store('alpha beta gamma');
    await memory.store('alpha alpha delta');
    const results = await memory.retrieve('alpha');
    const expected = await shared?.query<{ score: number }>(
      `SELECT ts_rank_cd(tsv, to_tsquery('english', 'alpha'))::float8 AS score
       FROM jarvis_memory_documents ORDER BY 1 DESC`,
    );
    expect(results.map((result) => result.score)).toEqual(expected?.map((row) => row.score));
    // One transaction, one connection: the setting holds for the EXPLAIN.
    const plan = await shared?.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      return tx.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM jarvis_memory_documents WHERE tsv @@ to_tsquery('english', 'alpha')`,
      );
    });
    expect(plan?.map((row) => row['QUERY PLAN']).join('\n')).toContain('jarvis_memory_tsv_index');
  });

  it('ranks a bounded candidate set: rare words find their documents among thousands of common matches', async (ctx) => {
    const memory = await openMemory(ctx);
    const common = Array.from({ length: ALL_WORDS_CANDIDATES + 50 }, (_, index) => ({
      content: `alpha filler number ${index}`,
    }));
    const [first] = await memory.storeMany([{ content: 'alpha alpha alpha alpha' }]);
    await memory.storeMany(common);
    const [rare] = await memory.storeMany([{ content: 'alpha omega' }]);
    const [both] = await memory.storeMany([{ content: 'alpha alpha alpha alpha' }]);
    // omega is rare: its document is a candidate, ranked by the whole query (ts_rank_cd counts the four alphas
    // of the first document higher)
    const found = await memory.retrieve('omega alpha', { topK: 3 });
    expect(found.slice(0, 2).map((result) => result.id)).toEqual([first, rare]);
    expect(found).toHaveLength(3);
    // Only the first candidates of a common word are ranked: the document stored first ranks (exactly as
    // ts_rank_cd scores it), the same text stored after hundreds of matches is passed over.
    const ranked = await memory.retrieve('alpha', { topK: 2 });
    expect(ranked.map((result) => result.id)).toContain(first);
    expect(ranked.map((result) => result.id)).not.toContain(both);
    const [best] =
      (await shared?.query<{ score: number }>(
        `SELECT ts_rank_cd(tsv, to_tsquery('english', 'alpha'))::float8 AS score FROM jarvis_memory_documents
         WHERE id = $1`,
        [first],
      )) ?? [];
    expect(ranked[0]?.score).toBe(best?.score);
  });

  it('refuses memory tables written by a newer version', async (ctx) => {
    await openMemory(ctx);
    await shared?.query("UPDATE jarvis_schema_versions SET version = 5 WHERE store = 'memory'");
    try {
      await expect(
        PostgresMemory.open({ database: shared as PostgresDatabase }),
      ).rejects.toMatchObject({
        code: 'memory_database_incompatible',
        message: expect.stringMatching(
          /schema version 5, and this version of OpenJarvis reads up to 1/,
        ),
      });
    } finally {
      await shared?.query("UPDATE jarvis_schema_versions SET version = 1 WHERE store = 'memory'");
    }
  });

  it('reports a failing query with memory_query_failed naming the database', async (ctx) => {
    const memory = await openMemory(ctx);
    await memory.store('something');
    await shared?.query('ALTER TABLE jarvis_memory_documents RENAME COLUMN tsv TO tsv_gone');
    try {
      await expect(memory.retrieve('something')).rejects.toMatchObject({
        code: 'memory_query_failed',
        message: expect.stringMatching(
          /search the memory in the memory database postgres:\/\/.*tsv/,
        ),
      });
    } finally {
      await shared?.query('ALTER TABLE jarvis_memory_documents RENAME COLUMN tsv_gone TO tsv');
    }
  });
});
