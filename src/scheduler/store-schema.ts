import { databaseIncompatibleError } from '../core/index.js';
import { SCHEMA_SQL } from './store-rows.js';

/** The schema version this code writes, kept in `PRAGMA user_version` (0 is a file from before versions). */
export const SCHEDULER_SCHEMA_VERSION = 2;

/** The small part of a better-sqlite3 connection the schema steps use. */
interface SchemaConnection {
  exec(sql: string): unknown;
  pragma(sql: string, options?: { readonly simple: boolean }): unknown;
  prepare(sql: string): { all(...params: unknown[]): unknown[] };
}

/** Version 2: who created each task and the tools it may use; existing tasks become `person` tasks, unlimited. */
const ADD_ORIGIN_COLUMNS: readonly (readonly [string, string])[] = [
  [
    'created_by',
    "ALTER TABLE scheduled_tasks ADD COLUMN created_by TEXT NOT NULL DEFAULT 'person'",
  ],
  ['allowed_tools', 'ALTER TABLE scheduled_tasks ADD COLUMN allowed_tools TEXT'],
];

function columnNames(db: SchemaConnection, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  return new Set(rows.map((row) => row.name));
}

/**
 * Creates the tables in a new file or upgrades an older one in place (existing tasks keep working); refuses a
 * file written by a newer version. Call inside a write transaction.
 */
export function prepareSchedulerSchema(db: SchemaConnection, location: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEDULER_SCHEMA_VERSION) {
    throw databaseIncompatibleError(
      'scheduler',
      location,
      `it has schema version ${version}, and this version of OpenJarvis reads up to ${SCHEDULER_SCHEMA_VERSION}; upgrade OpenJarvis or choose another db_path`,
    );
  }
  if (version === SCHEDULER_SCHEMA_VERSION) return;
  db.exec(SCHEMA_SQL);
  const existing = columnNames(db, 'scheduled_tasks');
  for (const [column, sql] of ADD_ORIGIN_COLUMNS) if (!existing.has(column)) db.exec(sql);
  db.pragma(`user_version = ${SCHEDULER_SCHEMA_VERSION}`);
}
