export { checkDatabaseUrl, redactDatabaseUrl } from './database-url.js';
export {
  type MigrationOutcome,
  type MigrationPlan,
  migrate,
} from './migrations.js';
export {
  type ListenOptions,
  type OpenPostgresOptions,
  openPostgres,
  type PostgresDatabase,
  type PostgresQueryable,
} from './postgres-database.js';
export {
  STORAGE_ERROR_CODES,
  StorageError,
  type StorageErrorCode,
  type StorageErrorOptions,
} from './storage-error.js';
