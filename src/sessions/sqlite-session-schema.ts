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
export const SESSIONS_SCHEMA_VERSION = 1;

/** Marks a file as an OpenJarvis sessions database (`PRAGMA application_id`, the ASCII of "OJSS"). */
export const SESSIONS_APPLICATION_ID = 0x4f4a5353;

const CREATE_SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  name TEXT UNIQUE,
  title TEXT NOT NULL DEFAULT '',
  turn_count INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  summary_text TEXT,
  summary_through INTEGER,
  summary_ms INTEGER
);
CREATE INDEX sessions_updated_ms_index ON sessions (updated_ms);
CREATE TABLE session_turns (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  messages TEXT NOT NULL,
  agent TEXT NOT NULL,
  model TEXT NOT NULL,
  engine TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  total_tokens INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  ended_ms INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
);
`;

/**
 * Opens (creating it and its folders when missing) a sessions database: WAL, `synchronous=FULL` (a turn the
 * person saw answered survives a power cut), foreign keys on, a busy timeout so concurrent chats wait for each
 * other. A corrupt, foreign or newer file gives a `JarvisError` naming it, and the file is never changed.
 */
export function openSessionsDatabase(dbPath: string, busyTimeoutMs: number): SqliteDatabase {
  if (dbPath.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: "sessions dbPath is empty; give a file path or ':memory:'",
    });
  }
  const location = dbPath === ':memory:' ? dbPath : resolve(dbPath);
  const db = openConnection(location, busyTimeoutMs);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.transaction(() => prepareSchema(db, location)).immediate();
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    if (JarvisError.isInstance(error)) throw error;
    throw databaseUnreadableError('sessions', location, error);
  }
}

function openConnection(location: string, busyTimeoutMs: number): SqliteDatabase {
  try {
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    const Sqlite = loadSqliteDriver<typeof Database>(createRequire(import.meta.url));
    return new Sqlite(location, { timeout: busyTimeoutMs });
  } catch (error) {
    throw databaseUnreadableError('sessions', location, error);
  }
}

function prepareSchema(db: SqliteDatabase, location: string): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (applicationId === SESSIONS_APPLICATION_ID) {
    if (version > SESSIONS_SCHEMA_VERSION) {
      throw databaseIncompatibleError(
        'sessions',
        location,
        `it has schema version ${version}, and this version of OpenJarvis reads up to ${SESSIONS_SCHEMA_VERSION}; upgrade OpenJarvis or choose another sessions db_path`,
      );
    }
    return;
  }
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT GLOB 'sqlite_*'")
    .all() as { name: string }[];
  if (tables.length > 0) {
    throw databaseIncompatibleError(
      'sessions',
      location,
      `it is not an OpenJarvis sessions database (it holds the tables ${tables.map((t) => t.name).join(', ')}); choose another sessions db_path`,
    );
  }
  db.exec(CREATE_SCHEMA);
  db.pragma(`application_id = ${SESSIONS_APPLICATION_ID}`);
  db.pragma(`user_version = ${SESSIONS_SCHEMA_VERSION}`);
}
