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

/** A prepared better-sqlite3 statement. */
export type SqliteStatement = Database.Statement;

/** The schema version this code writes, kept in `PRAGMA user_version`. */
export const TELEMETRY_SCHEMA_VERSION = 2;

/** Marks a file as an OpenJarvis telemetry database (`PRAGMA application_id`, the ASCII of "OJTL"). */
export const TELEMETRY_APPLICATION_ID = 0x4f4a544c;

/** The table the Python OpenJarvis wrote to the same file; kept untouched when a file is upgraded. */
export const PYTHON_TELEMETRY_TABLE = 'telemetry_python';

const CREATE_SCHEMA = `
CREATE TABLE telemetry (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp_ms REAL NOT NULL,
  model TEXT NOT NULL,
  engine TEXT NOT NULL DEFAULT '',
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  total_tokens INTEGER NOT NULL DEFAULT 0,
  latency_seconds REAL NOT NULL DEFAULT 0,
  ttft_seconds REAL NOT NULL DEFAULT 0,
  throughput_tokens_per_second REAL NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  success INTEGER NOT NULL DEFAULT 1,
  error TEXT
);
CREATE INDEX telemetry_timestamp_ms_index ON telemetry (timestamp_ms);
CREATE INDEX telemetry_model_index ON telemetry (model, engine);
`;

/** Version 2: the traces of runs (a row per run, a row per span, spans deleted with their run). */
const CREATE_TRACES = `
CREATE TABLE trace_runs (
  id TEXT PRIMARY KEY,
  started_ms REAL NOT NULL,
  ended_ms REAL NOT NULL,
  agent TEXT NOT NULL,
  model TEXT NOT NULL DEFAULT '',
  input_length INTEGER NOT NULL DEFAULT 0,
  turns INTEGER NOT NULL DEFAULT 0,
  model_calls INTEGER NOT NULL DEFAULT 0,
  tool_calls INTEGER NOT NULL DEFAULT 0,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  latency_seconds REAL NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  error TEXT,
  dropped_spans INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX trace_runs_started_ms_index ON trace_runs (started_ms);
CREATE TABLE trace_spans (
  run_id TEXT NOT NULL REFERENCES trace_runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  span_id TEXT NOT NULL,
  parent_span_id TEXT,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  started_ms REAL NOT NULL,
  ended_ms REAL NOT NULL,
  status TEXT NOT NULL,
  attributes TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;

/**
 * Opens (creating it and its folders when missing) a telemetry database in WAL mode with the current schema;
 * a corrupt, foreign or newer file gives a `JarvisError` naming the file, and the file is never changed.
 */
export function openTelemetryDatabase(dbPath: string): SqliteDatabase {
  if (dbPath.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: "telemetry dbPath is empty; give a file path or ':memory:'",
    });
  }
  const location = dbPath === ':memory:' ? dbPath : resolve(dbPath);
  const db = openConnection(location);
  try {
    prepareSchema(db, location);
    return db;
  } catch (error) {
    db.close();
    if (JarvisError.isInstance(error)) throw error;
    throw unreadable(location, error);
  }
}

function openConnection(location: string): SqliteDatabase {
  try {
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    const Sqlite = loadSqliteDriver<typeof Database>(createRequire(import.meta.url));
    return new Sqlite(location);
  } catch (error) {
    throw unreadable(location, error);
  }
}

function prepareSchema(db: SqliteDatabase, location: string): void {
  // The first read of the header: a file that is not SQLite fails here, before anything is written.
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (applicationId === TELEMETRY_APPLICATION_ID) {
    if (version > TELEMETRY_SCHEMA_VERSION) {
      throw incompatible(
        location,
        `it has schema version ${version}, and this version of OpenJarvis reads up to ${TELEMETRY_SCHEMA_VERSION}; upgrade OpenJarvis or choose another dbPath`,
      );
    }
    if (version < TELEMETRY_SCHEMA_VERSION) db.transaction(() => upgradeDatabase(db, version))();
  } else {
    db.transaction(() => adoptDatabase(db, location))();
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
}

/** Creates the schema in an empty file, or upgrades a file the Python OpenJarvis wrote. */
function adoptDatabase(db: SqliteDatabase, location: string): void {
  const tables = tableNames(db);
  if (tables.length > 0 && !isPythonTelemetryDatabase(db, tables)) {
    throw incompatible(
      location,
      `it is not an OpenJarvis telemetry database (it holds the tables ${tables.join(', ')}); choose another dbPath`,
    );
  }
  if (tables.length > 0) db.exec(`ALTER TABLE telemetry RENAME TO ${PYTHON_TELEMETRY_TABLE}`);
  db.exec(CREATE_SCHEMA);
  db.exec(CREATE_TRACES);
  if (tables.length > 0) copyPythonRows(db);
  db.pragma(`application_id = ${TELEMETRY_APPLICATION_ID}`);
  db.pragma(`user_version = ${TELEMETRY_SCHEMA_VERSION}`);
}

/** Brings a file of an older schema version up to this one; its rows are kept. */
function upgradeDatabase(db: SqliteDatabase, version: number): void {
  if (version < 2) db.exec(CREATE_TRACES);
  db.pragma(`user_version = ${TELEMETRY_SCHEMA_VERSION}`);
}

function tableNames(db: SqliteDatabase): string[] {
  const rows = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT GLOB 'sqlite_*'")
    .all() as { name: string }[];
  return rows.map((row) => row.name).sort();
}

function columnNames(db: SqliteDatabase, table: string): Set<string> {
  const rows = db.pragma(`table_info(${table})`) as { name: string }[];
  return new Set(rows.map((row) => row.name));
}

function isPythonTelemetryDatabase(db: SqliteDatabase, tables: readonly string[]): boolean {
  if (tables.length !== 1 || tables[0] !== 'telemetry') return false;
  const columns = columnNames(db, 'telemetry');
  return ['timestamp', 'model_id', 'latency_seconds', 'ttft', 'cost_usd'].every((name) =>
    columns.has(name),
  );
}

/** Copies the Python rows (seconds since the epoch, `model_id`, `ttft`) into the current table. */
function copyPythonRows(db: SqliteDatabase): void {
  const columns = columnNames(db, PYTHON_TELEMETRY_TABLE);
  const throughput = columns.has('throughput_tok_per_sec') ? 'throughput_tok_per_sec' : '0';
  db.exec(`
    INSERT INTO telemetry (timestamp_ms, model, engine, prompt_tokens, completion_tokens, total_tokens,
      latency_seconds, ttft_seconds, throughput_tokens_per_second, cost_usd, success)
    SELECT timestamp * 1000, model_id, engine, prompt_tokens, completion_tokens, total_tokens,
      latency_seconds, ttft, ${throughput}, cost_usd, 1
    FROM ${PYTHON_TELEMETRY_TABLE} ORDER BY id`);
}

function unreadable(location: string, cause: unknown): JarvisError {
  return databaseUnreadableError('telemetry', location, cause);
}

function incompatible(location: string, reason: string): JarvisError {
  return databaseIncompatibleError('telemetry', location, reason);
}
