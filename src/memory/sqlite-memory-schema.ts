import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import {
  databaseIncompatibleError,
  databaseUnreadableError,
  JarvisError,
  loadSqliteDriver,
} from '../core/index.js';

/** A better-sqlite3 connection. */
export type SqliteDatabase = Database.Database;

/** The schema version this code writes, kept in `PRAGMA user_version`. */
export const MEMORY_SCHEMA_VERSION = 1;

/** Marks a file as an OpenJarvis memory database (`PRAGMA application_id`, the ASCII of "OJMM"). */
export const MEMORY_APPLICATION_ID = 0x4f4a4d4d;

/** The tables the Python OpenJarvis kept its memory in; a file holding only these is adopted, not refused. */
const PYTHON_TABLES = [
  'documents',
  'documents_fts',
  'documents_fts_config',
  'documents_fts_data',
  'documents_fts_docsize',
  'documents_fts_idx',
];

const CREATE_SCHEMA = `
CREATE TABLE memory_documents (
  row_id INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  content TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at_ms REAL NOT NULL
);
CREATE INDEX memory_documents_source_index ON memory_documents (source);
CREATE VIRTUAL TABLE memory_fts USING fts5(
  content, content='memory_documents', content_rowid='row_id', tokenize='porter unicode61'
);
CREATE TRIGGER memory_documents_after_insert AFTER INSERT ON memory_documents BEGIN
  INSERT INTO memory_fts (rowid, content) VALUES (new.row_id, new.content);
END;
CREATE TRIGGER memory_documents_after_delete AFTER DELETE ON memory_documents BEGIN
  INSERT INTO memory_fts (memory_fts, rowid, content) VALUES ('delete', old.row_id, old.content);
END;
CREATE TRIGGER memory_documents_after_update AFTER UPDATE ON memory_documents BEGIN
  INSERT INTO memory_fts (memory_fts, rowid, content) VALUES ('delete', old.row_id, old.content);
  INSERT INTO memory_fts (rowid, content) VALUES (new.row_id, new.content);
END;
`;

/** Options of `openMemoryDatabase`. */
export interface OpenMemoryDatabaseOptions {
  readonly dbPath: string;
  /** How long a write waits for another connection's lock before failing. */
  readonly busyTimeoutMs: number;
}

/**
 * Opens (creating it and its folders when missing) a memory database in WAL mode with the current schema; a
 * corrupt, foreign or newer file gives a `JarvisError` naming the file, and the file is left as it is.
 */
export function openMemoryDatabase(options: OpenMemoryDatabaseOptions): SqliteDatabase {
  const { dbPath } = options;
  if (typeof dbPath !== 'string' || dbPath.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: "SQLiteMemory dbPath must be a file path or ':memory:'",
    });
  }
  const location = dbPath === ':memory:' ? dbPath : resolve(dbPath);
  const db = openConnection(location, options.busyTimeoutMs);
  try {
    prepareSchema(db, location);
    return db;
  } catch (error) {
    db.close();
    if (JarvisError.isInstance(error)) throw error;
    throw unreadable(location, error);
  }
}

function openConnection(location: string, busyTimeoutMs: number): SqliteDatabase {
  try {
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    const Sqlite = loadSqliteDriver<typeof Database>(createRequire(import.meta.url));
    return new Sqlite(location, { timeout: busyTimeoutMs });
  } catch (error) {
    throw unreadable(location, error);
  }
}

function prepareSchema(db: SqliteDatabase, location: string): void {
  requireFts5(db);
  // The first read of the header: a file that is not SQLite fails here, before anything is written.
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (applicationId === MEMORY_APPLICATION_ID) {
    checkOwnDatabase(db, location, version);
  } else {
    db.transaction(() => adoptDatabase(db, location))();
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
}

function requireFts5(db: SqliteDatabase): void {
  const options = db.pragma('compile_options', { simple: false }) as { compile_options: string }[];
  if (!options.some((row) => row.compile_options === 'ENABLE_FTS5')) {
    throw new JarvisError({
      code: 'memory_fts5_unavailable',
      message:
        'the SQLite inside better-sqlite3 was built without FTS5, which SQLiteMemory needs; reinstall better-sqlite3 from its prebuilt binaries',
    });
  }
}

function checkOwnDatabase(db: SqliteDatabase, location: string, version: number): void {
  if (version > MEMORY_SCHEMA_VERSION) {
    throw incompatible(
      location,
      `it has schema version ${version}, and this version of OpenJarvis reads up to ${MEMORY_SCHEMA_VERSION}; upgrade OpenJarvis or choose another dbPath`,
    );
  }
  const tables = tableNames(db);
  if (!tables.includes('memory_documents') || !tables.includes('memory_fts')) {
    throw incompatible(location, 'it is marked as a memory database but its tables are missing');
  }
}

/** Creates the schema in an empty file, or next to the tables of the Python OpenJarvis (copying its rows). */
function adoptDatabase(db: SqliteDatabase, location: string): void {
  const tables = tableNames(db);
  const python = tables.length > 0 && isPythonMemoryDatabase(db, tables);
  if (tables.length > 0 && !python) {
    throw incompatible(
      location,
      `it is not an OpenJarvis memory database (it holds the tables ${tables.join(', ')}); choose another dbPath`,
    );
  }
  db.exec(CREATE_SCHEMA);
  if (python) {
    db.exec(`INSERT INTO memory_documents (id, content, source, metadata, created_at_ms)
      SELECT id, content, source, metadata, created_at * 1000 FROM documents ORDER BY rowid`);
  }
  db.pragma(`application_id = ${MEMORY_APPLICATION_ID}`);
  db.pragma(`user_version = ${MEMORY_SCHEMA_VERSION}`);
}

function tableNames(db: SqliteDatabase): string[] {
  const rows = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT GLOB 'sqlite_*'")
    .pluck()
    .all() as string[];
  return rows.sort();
}

function isPythonMemoryDatabase(db: SqliteDatabase, tables: readonly string[]): boolean {
  if (!tables.includes('documents') || tables.some((name) => !PYTHON_TABLES.includes(name)))
    return false;
  const rows = db.pragma('table_info(documents)') as { name: string }[];
  const columns = new Set(rows.map((row) => row.name));
  return ['id', 'content', 'source', 'metadata', 'created_at'].every((name) => columns.has(name));
}

function unreadable(location: string, cause: unknown): JarvisError {
  return databaseUnreadableError('memory', location, cause);
}

function incompatible(location: string, reason: string): JarvisError {
  return databaseIncompatibleError('memory', location, reason);
}
