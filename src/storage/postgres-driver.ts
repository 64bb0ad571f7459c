import type * as Pg from 'pg';
import { StorageError } from './storage-error.js';

/** The `pg` module's default export (a CommonJS module). */
export type PgModule = typeof Pg;

let loading: Promise<PgModule> | undefined;

/**
 * Loads the `pg` driver on first use, so programs that keep SQLite never load it; a missing package is a
 * `StorageError` (`storage_driver_missing`) saying how to install it.
 */
export function loadPgDriver(): Promise<PgModule> {
  loading ??= import('pg').then(
    (module) =>
      (module as unknown as { default?: PgModule }).default ?? (module as unknown as PgModule),
    (error: unknown) => {
      loading = undefined;
      throw new StorageError({
        code: 'storage_driver_missing',
        message:
          'the PostgreSQL driver `pg` is not installed; run `npm install pg` next to openjarvis, or use [storage] backend = "sqlite"',
        cause: error,
      });
    },
  );
  return loading;
}

/** Type parsers that read `bigint` columns (times in ms, counts) as numbers instead of strings. */
export function numericTypes(pg: PgModule): Pg.CustomTypesConfig {
  const INT8_OID = 20;
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID && format !== 'binary'
        ? (value: string) => Number(value)
        : pg.types.getTypeParser(oid, format ?? 'text')) as Pg.CustomTypesConfig['getTypeParser'],
  };
}
