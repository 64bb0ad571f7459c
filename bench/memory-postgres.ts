// The PostgreSQL side of bench/memory.bench.ts: a throwaway server (test/support/postgres-server.ts) and the
// built PostgresMemory on a fresh database in it. The built package's entry does not export PostgresMemory and
// openPostgres yet, so they are loaded from their folders' entries in dist/.
import type { PostgresMemory } from '../src/memory/index.js';
import type * as Storage from '../src/storage/index.js';
import { isSkipped, startPostgres } from '../test/support/postgres-server.js';

const distUrl = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;

/** A PostgresMemory on a throwaway server; `close()` closes it and stops the server. */
export interface PostgresMemorySide {
  readonly memory: PostgresMemory;
  /** Runs SQL on the memory's database (EXPLAIN ANALYZE of a slow query). */
  readonly query: (sql: string, params: readonly unknown[]) => Promise<unknown[]>;
  readonly close: () => Promise<void>;
}

/** Starts a server and opens the built PostgresMemory in a fresh database, or says why it cannot here. */
export async function openPostgresMemory(): Promise<
  PostgresMemorySide | { readonly skipped: string }
> {
  const storage = (await import(distUrl('storage/index.js'))) as typeof Storage;
  const memoryModule = (await import(distUrl('memory/index.js'))) as {
    readonly PostgresMemory?: typeof PostgresMemory;
  };
  if (memoryModule.PostgresMemory === undefined)
    return { skipped: 'skipped: the build has no PostgresMemory (npm run build)' };
  const server = await startPostgres();
  if (isSkipped(server)) return server;
  try {
    const database = await storage.openPostgres({
      url: await server.createDatabase(),
      poolSize: 2,
    });
    const memory = await memoryModule.PostgresMemory.open({ database, closeDatabase: true });
    return {
      memory,
      query: (sql, params) => database.query(sql, params),
      close: async () => {
        await memory.close();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
