import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InferenceEngine } from '../core/engine.js';
import { type Clock, createMessage, createRedactor, EventBus, Role } from '../core/index.js';
import { InstrumentedEngine } from './instrumented-engine.js';
import type { TelemetryRecord } from './telemetry-record.js';
import {
  PYTHON_TELEMETRY_TABLE,
  TELEMETRY_APPLICATION_ID,
  TELEMETRY_SCHEMA_VERSION,
} from './telemetry-schema.js';
import { TelemetryStore } from './telemetry-store.js';

let directory: string;
const openStores: TelemetryStore[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'openjarvis-telemetry-'));
});

afterEach(() => {
  for (const store of openStores.splice(0)) store.close();
  rmSync(directory, { recursive: true, force: true });
});

function openStore(dbPath = join(directory, 'nested', 'folder', 'telemetry.db')): TelemetryStore {
  const store = new TelemetryStore({ dbPath });
  openStores.push(store);
  return store;
}

function record(overrides: Partial<TelemetryRecord> = {}): TelemetryRecord {
  return {
    timestampMs: 1_000,
    model: 'small',
    engine: 'ollama',
    promptTokens: 10,
    completionTokens: 20,
    totalTokens: 30,
    latencySeconds: 1,
    ttftSeconds: 0.5,
    throughputTokensPerSecond: 40,
    costUsd: 0.25,
    success: true,
    ...overrides,
  };
}

/** Runs `read` on a second, independent connection to the file. */
function inspect<T>(dbPath: string, read: (db: Database.Database) => T): T {
  const db = new Database(dbPath);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

describe('TelemetryStore schema', () => {
  it('creates the folders and a WAL database with versioned schema and indexes', () => {
    const dbPath = join(directory, 'a', 'b', 'telemetry.db');
    openStore(dbPath).close();

    const facts = inspect(dbPath, (db) => ({
      journalMode: db.pragma('journal_mode', { simple: true }),
      userVersion: db.pragma('user_version', { simple: true }),
      applicationId: db.pragma('application_id', { simple: true }),
      indexes: (
        db
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'telemetry'")
          .all() as { name: string }[]
      ).map((row) => row.name),
    }));
    expect(facts).toEqual({
      journalMode: 'wal',
      userVersion: TELEMETRY_SCHEMA_VERSION,
      applicationId: TELEMETRY_APPLICATION_ID,
      indexes: ['telemetry_timestamp_ms_index', 'telemetry_model_index'],
    });
  });

  it('works in memory', () => {
    const store = openStore(':memory:');
    store.record(record());
    expect(store.recent(1)).toEqual([record()]);
  });

  it('refuses a file that is not a database, naming it and leaving it untouched', () => {
    const dbPath = join(directory, 'telemetry.db');
    const text = `${'this is a shopping list, not a database\n'.repeat(20)}`;
    writeFileSync(dbPath, text);

    const error = catchError(() => openStore(dbPath));

    expect(error).toMatchObject({ code: 'telemetry_database_unreadable' });
    expect((error as Error).message).toContain(dbPath);
    expect((error as Error).message).toContain('file is not a database');
    expect(readFileSync(dbPath, 'utf8')).toBe(text);
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
  });

  it('refuses a database of another program without changing it', () => {
    const dbPath = join(directory, 'memory.db');
    inspect(dbPath, (db) =>
      db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')"),
    );

    const error = catchError(() => openStore(dbPath));

    expect(error).toMatchObject({ code: 'telemetry_database_incompatible' });
    expect((error as Error).message).toContain(dbPath);
    expect((error as Error).message).toContain('notes');
    expect(
      inspect(dbPath, (db) => ({
        tables: db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all(),
        userVersion: db.pragma('user_version', { simple: true }),
      })),
    ).toEqual({ tables: [{ name: 'notes' }], userVersion: 0 });
  });

  it('refuses a file written with a newer schema version', () => {
    const dbPath = join(directory, 'telemetry.db');
    openStore(dbPath).close();
    inspect(dbPath, (db) => db.pragma('user_version = 99'));

    const error = catchError(() => openStore(dbPath));

    expect(error).toMatchObject({ code: 'telemetry_database_incompatible' });
    expect((error as Error).message).toMatch(/schema version 99.*reads up to 2/);
  });

  it('upgrades a database of the Python OpenJarvis and keeps its original table', () => {
    const dbPath = join(directory, 'telemetry.db');
    inspect(dbPath, (db) => {
      db.exec(`CREATE TABLE telemetry (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL,
        model_id TEXT NOT NULL, engine TEXT NOT NULL DEFAULT '', agent TEXT NOT NULL DEFAULT '',
        prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
        total_tokens INTEGER NOT NULL DEFAULT 0, latency_seconds REAL NOT NULL DEFAULT 0,
        ttft REAL NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, metadata TEXT NOT NULL DEFAULT '{}')`);
      db.exec(`INSERT INTO telemetry (timestamp, model_id, engine, prompt_tokens, completion_tokens,
        total_tokens, latency_seconds, ttft, cost_usd) VALUES (1700000000.5, 'qwen3:8b', 'ollama', 3, 4, 7, 2, 0.5, 0)`);
    });

    expect(openStore(dbPath).recent(10)).toEqual([
      record({
        timestampMs: 1_700_000_000_500,
        model: 'qwen3:8b',
        promptTokens: 3,
        completionTokens: 4,
        totalTokens: 7,
        latencySeconds: 2,
        throughputTokensPerSecond: 0,
        costUsd: 0,
      }),
    ]);
    expect(
      inspect(dbPath, (db) => db.prepare(`SELECT model_id FROM ${PYTHON_TELEMETRY_TABLE}`).all()),
    ).toEqual([{ model_id: 'qwen3:8b' }]);
  });

  it('rejects an empty path', () => {
    expect(catchError(() => openStore('  '))).toMatchObject({ code: 'invalid_argument' });
  });
});

describe('TelemetryStore.attach', () => {
  const clock: Clock = { nowMs: () => 42_000, monotonicMs: () => 0 };

  it('counts a real storage failure and keeps the latest error', () => {
    const dbPath = join(directory, 'telemetry.db');
    const store = openStore(dbPath);
    const bus = new EventBus({ clock });
    store.attach(bus);
    inspect(dbPath, (db) => db.exec('DROP TABLE telemetry'));

    bus.publish('telemetry_record', { record: record() });

    expect(store.writeFailures).toBe(1);
    expect(String(store.lastWriteError)).toMatch(/telemetry/);
  });
});

describe('TelemetryStore redaction', () => {
  const clock: Clock = { nowMs: () => 7_000, monotonicMs: () => 0 };
  const CONFIGURED_KEY = 'office-key-7f3a9c';
  const BEARER = 'tok_0123456789abcdef';

  function failingEngine(message: string): InferenceEngine {
    return {
      engineId: 'openai',
      generate: async () => {
        throw new Error(message);
      },
      stream: () => {
        throw new Error('not used');
      },
      listModels: async () => [],
      health: async () => true,
      close: async () => {},
    };
  }

  function storedErrors(dbPath: string): string[] {
    return inspect(dbPath, (db) =>
      (db.prepare('SELECT error FROM telemetry').all() as { error: string }[]).map(
        (row) => row.error,
      ),
    );
  }

  it('stores an inference error carrying a bearer token and a configured key redacted', async () => {
    const dbPath = join(directory, 'telemetry.db');
    const store = new TelemetryStore({ dbPath, redact: createRedactor([CONFIGURED_KEY]) });
    openStores.push(store);
    const bus = new EventBus({ clock });
    store.attach(bus);
    const message = `401 from http://127.0.0.1:9/v1: Authorization: Bearer ${BEARER} rejected; key ${CONFIGURED_KEY} unknown`;
    const engine = new InstrumentedEngine({ engine: failingEngine(message), bus, clock });

    await expect(
      engine.generate([createMessage(Role.USER, 'hello')], { model: 'small' }),
    ).rejects.toThrow(BEARER);

    const [stored] = storedErrors(dbPath);
    expect(stored).toBe(
      '401 from http://127.0.0.1:9/v1: Authorization: Bearer [REDACTED] rejected; key [REDACTED] unknown',
    );
    expect(store.recent(1)[0]?.error).toBe(stored);
  });

  it('redacts every text of a record given directly, with secret shapes redacted by default', () => {
    const dbPath = join(directory, 'telemetry.db');
    const store = new TelemetryStore({ dbPath, redact: createRedactor([CONFIGURED_KEY]) });
    openStores.push(store);
    store.record(
      record({
        model: `model-${CONFIGURED_KEY}`,
        engine: 'openai',
        success: false,
        error: `api_key="${CONFIGURED_KEY}" and Bearer ${BEARER}`,
      }),
    );
    const plain = openStore(join(directory, 'plain.db'));
    plain.record(
      record({ success: false, error: `Bearer ${BEARER}; sk-proj-abcdefghijklmnopqrst` }),
    );

    expect(store.recent(1)[0]).toMatchObject({
      model: 'model-[REDACTED]',
      error: 'api_key="[REDACTED]" and Bearer [REDACTED]',
    });
    expect(plain.recent(1)[0]?.error).toBe('Bearer [REDACTED]; [REDACTED]');
    store.close();
    expect(readFileSync(dbPath).includes(CONFIGURED_KEY)).toBe(false);
    expect(readFileSync(dbPath).includes(BEARER)).toBe(false);
  });
});
