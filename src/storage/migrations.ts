import type { PostgresDatabase, PostgresQueryable } from './postgres-database.js';
import { StorageError } from './storage-error.js';

/** The schema steps of one store: `migrations[i]` takes the store from version `i` to `i + 1`. */
export interface MigrationPlan {
  /** The store's name in `jarvis_schema_versions` (`sessions`, `memory`, `scheduler`, ...). */
  readonly store: string;
  /** SQL scripts in order; never edit or remove a released one, only append. */
  readonly migrations: readonly string[];
}

/** What `migrate` did. */
export interface MigrationOutcome {
  readonly fromVersion: number;
  readonly toVersion: number;
}

/** First key of every advisory lock OpenJarvis takes for migrations (the ASCII of "OJ"). */
const LOCK_NAMESPACE = 0x4f4a;
/** Second key of the lock around creating `jarvis_schema_versions` itself. */
const VERSIONS_TABLE_LOCK = 0;

/** A 32-bit FNV-1a hash of the store name, as a signed int (the advisory lock's second key). */
export function storeLockKey(store: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(store)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  // 0 is the versions table's own lock.
  return hash === VERSIONS_TABLE_LOCK ? 1 : hash | 0;
}

async function ensureVersionsTable(tx: PostgresQueryable): Promise<void> {
  const exists = await tx.query<{ table: string | null }>(
    "SELECT to_regclass('jarvis_schema_versions')::text AS table",
  );
  if (exists[0]?.table !== null && exists[0]?.table !== undefined) return;
  await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [
    LOCK_NAMESPACE,
    VERSIONS_TABLE_LOCK,
  ]);
  await tx.query(
    `CREATE TABLE IF NOT EXISTS jarvis_schema_versions (
       store text PRIMARY KEY,
       version integer NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
}

/**
 * Brings a store's tables to the newest version: the missing steps run in one transaction holding an advisory
 * lock on the store, so processes starting together apply them once. A database whose version for the store
 * is newer than this code knows is refused (`storage_schema_incompatible`) and left as it is.
 */
export async function migrate(
  db: PostgresDatabase,
  plan: MigrationPlan,
): Promise<MigrationOutcome> {
  if (plan.store.trim() === '') throw new Error('migrate: the store name is empty');
  return db.transaction(async (tx) => {
    await ensureVersionsTable(tx);
    await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [
      LOCK_NAMESPACE,
      storeLockKey(plan.store),
    ]);
    const rows = await tx.query<{ version: number }>(
      'SELECT version FROM jarvis_schema_versions WHERE store = $1',
      [plan.store],
    );
    const fromVersion = rows[0]?.version ?? 0;
    const toVersion = plan.migrations.length;
    if (fromVersion > toVersion) {
      throw new StorageError({
        code: 'storage_schema_incompatible',
        message: `the ${plan.store} tables in PostgreSQL at ${db.location} have schema version ${fromVersion}, and this version of OpenJarvis reads up to ${toVersion}; upgrade OpenJarvis or use another database`,
      });
    }
    for (const script of plan.migrations.slice(fromVersion)) await tx.query(script);
    if (toVersion > fromVersion) {
      await tx.query(
        `INSERT INTO jarvis_schema_versions (store, version) VALUES ($1, $2)
         ON CONFLICT (store) DO UPDATE SET version = EXCLUDED.version, updated_at = now()`,
        [plan.store, toVersion],
      );
    }
    return { fromVersion, toVersion };
  });
}
