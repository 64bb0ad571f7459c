import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Clock, EventBus, JarvisError } from '../core/index.js';
import { memoryContract } from './memory-contract.case.test.js';
import { SQLiteMemory, type SQLiteMemoryOptions } from './sqlite-memory.js';
import { MEMORY_APPLICATION_ID, MEMORY_SCHEMA_VERSION } from './sqlite-memory-schema.js';

let directory: string;
const openMemories: SQLiteMemory[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'openjarvis-memory-'));
});

afterEach(async () => {
  try {
    for (const memory of openMemories.splice(0)) await memory.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

function openMemory(options: Partial<SQLiteMemoryOptions> = {}): SQLiteMemory {
  const memory = new SQLiteMemory({ dbPath: join(directory, 'memory.db'), ...options });
  openMemories.push(memory);
  return memory;
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

async function rejection(promise: Promise<unknown>): Promise<JarvisError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!JarvisError.isInstance(error))
    throw new Error(`expected a JarvisError, got ${String(error)}`);
  return error;
}

function thrown(action: () => unknown): JarvisError {
  try {
    action();
  } catch (error) {
    if (JarvisError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a JarvisError to be thrown');
}

describe('SQLiteMemory: the memory contract', () => {
  memoryContract(
    async (_test, options = {}) => openMemory(options),
    () => new EventBus({ recordHistory: true }),
  );
});

describe('SQLiteMemory: ranking and storage details', () => {
  it('reports score = -bm25 as FTS5 computes it', async () => {
    const dbPath = join(directory, 'scores.db');
    const memory = openMemory({ dbPath });
    await memory.store('alpha beta gamma');
    await memory.store('alpha alpha delta');
    await memory.store('epsilon');
    const results = await memory.retrieve('alpha');
    const expected = inspect(dbPath, (db) =>
      db
        .prepare(
          'SELECT -bm25(memory_fts) AS score FROM memory_fts WHERE memory_fts MATCH \'"alpha"\' ORDER BY 1 DESC',
        )
        .pluck()
        .all(),
    );
    expect(results.map((result) => result.score)).toEqual(expected);
  });

  it('finds a query made only of common words (FTS5 indexes every word)', async () => {
    const memory = openMemory();
    await memory.store('alpha and beta are near each other, not far');
    await memory.store('gamma only');
    expect(await memory.retrieve('NOT')).toHaveLength(1);
  });

  it('stamps documents with the injected clock', async () => {
    const dbPath = join(directory, 'clock.db');
    const clock: Clock = { nowMs: () => 1_234_567, monotonicMs: () => 0 };
    const memory = openMemory({ dbPath, clock });
    await memory.store('first');
    await memory.storeMany([{ content: 'second' }, { content: 'third' }]);
    const times = inspect(dbPath, (db) =>
      db.prepare('SELECT created_at_ms FROM memory_documents').pluck().all(),
    );
    expect(times).toEqual([1_234_567, 1_234_567, 1_234_567]);
  });

  it('works in memory (:memory:)', async () => {
    const memory = openMemory({ dbPath: ':memory:' });
    await memory.store('volatile fact');
    expect(await memory.retrieve('fact')).toHaveLength(1);
  });

  it('reports SQLite failures instead of swallowing them', async () => {
    const dbPath = join(directory, 'broken.db');
    const memory = openMemory({ dbPath });
    await memory.store('something');
    inspect(dbPath, (db) => db.exec('DROP TABLE memory_fts'));
    const error = await rejection(memory.retrieve('something'));
    expect(error.code).toBe('memory_query_failed');
    expect(error.message).toContain(dbPath);
    expect(error.message).toContain('memory_fts');
  });
});

describe('SQLiteMemory: the database file', () => {
  it('creates parent folders, uses WAL, marks the file and keeps data across reopening', async () => {
    const dbPath = join(directory, 'a', 'b', 'memory.db');
    const memory = openMemory({ dbPath });
    await memory.store('persistent fact', { source: 's' });
    await memory.close();
    const reopened = openMemory({ dbPath });
    expect(await reopened.retrieve('fact')).toHaveLength(1);
    const header = inspect(dbPath, (db) => ({
      journal: db.pragma('journal_mode', { simple: true }),
      applicationId: db.pragma('application_id', { simple: true }),
      version: db.pragma('user_version', { simple: true }),
    }));
    expect(header).toEqual({
      journal: 'wal',
      applicationId: MEMORY_APPLICATION_ID,
      version: MEMORY_SCHEMA_VERSION,
    });
  });

  it('lets two connections share the file', async () => {
    const dbPath = join(directory, 'shared.db');
    const writer = openMemory({ dbPath });
    const reader = openMemory({ dbPath });
    await writer.store('shared note');
    expect(await reader.retrieve('note')).toHaveLength(1);
  });

  it('refuses a corrupt file with an error naming it, and leaves it unchanged', () => {
    const dbPath = join(directory, 'corrupt.db');
    const bytes = Buffer.from('this is not a database at all, just some text '.repeat(200));
    writeFileSync(dbPath, bytes);
    const error = thrown(() => openMemory({ dbPath }));
    expect(error.code).toBe('memory_database_unreadable');
    expect(error.message).toContain(dbPath);
    expect(readFileSync(dbPath).equals(bytes)).toBe(true);
  });

  it('refuses a foreign SQLite database and leaves it unchanged', () => {
    const dbPath = join(directory, 'foreign.db');
    inspect(dbPath, (db) =>
      db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann')"),
    );
    const before = readFileSync(dbPath);
    const error = thrown(() => openMemory({ dbPath }));
    expect(error.code).toBe('memory_database_incompatible');
    expect(error.message).toContain(dbPath);
    expect(error.message).toContain('users');
    expect(readFileSync(dbPath).equals(before)).toBe(true);
  });

  it('refuses a memory database from a newer version', () => {
    const dbPath = join(directory, 'newer.db');
    inspect(dbPath, (db) => {
      db.pragma(`application_id = ${MEMORY_APPLICATION_ID}`);
      db.pragma('user_version = 99');
    });
    const error = thrown(() => openMemory({ dbPath }));
    expect(error.code).toBe('memory_database_incompatible');
    expect(error.message).toContain('schema version 99');
  });

  it('adopts a memory.db of the Python OpenJarvis, copying its documents and keeping its tables', async () => {
    const dbPath = join(directory, 'python.db');
    inspect(dbPath, (db) => {
      db.exec(`CREATE TABLE documents (id TEXT PRIMARY KEY, content TEXT NOT NULL,
          source TEXT NOT NULL DEFAULT '', metadata TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        CREATE VIRTUAL TABLE documents_fts USING fts5(content, source, content=documents, content_rowid=rowid);
        CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
          INSERT INTO documents_fts(rowid, content, source) VALUES (new.rowid, new.content, new.source);
        END;`);
      db.prepare('INSERT INTO documents VALUES (?, ?, ?, ?, ?)').run(
        'abc123',
        'python era note',
        'old.md',
        '{"k": 1}',
        1_700_000_000.5,
      );
    });
    const memory = openMemory({ dbPath });
    expect(await memory.retrieve('note')).toMatchObject([
      { id: 'abc123', source: 'old.md', metadata: { k: 1 } },
    ]);
    await memory.close();
    const rows = inspect(dbPath, (db) =>
      db.prepare('SELECT count(*) FROM documents').pluck().get(),
    );
    expect(rows).toBe(1);
  });

  it('rejects an empty dbPath and bad numeric options', () => {
    expect(thrown(() => openMemory({ dbPath: ' ' })).message).toContain('dbPath');
    expect(thrown(() => openMemory({ busyTimeoutMs: -1 })).message).toContain('busyTimeoutMs');
    expect(thrown(() => openMemory({ maxExactPostings: 0 })).message).toContain('maxExactPostings');
    expect(existsSync(join(directory, 'memory.db'))).toBe(false);
  });
});

describe('SQLiteMemory: bounded ranking of common words', () => {
  /** A corpus where `common` is everywhere, `middle` in a third and `rare` in a few documents. */
  async function fillCorpus(memory: SQLiteMemory): Promise<void> {
    const documents = Array.from({ length: 90 }, (_, index) => {
      const words = ['common filler text', index % 3 === 0 ? 'middle' : 'other'];
      if (index % 15 === 0) words.push('rare');
      if (index % 2 === 0) words.push('common common');
      return { content: `${words.join(' ')} number${index}` };
    });
    await memory.storeMany(documents);
  }

  it('agrees with exact BM25 on rare, middle and common words, falling back when candidates are few', async () => {
    const exact = openMemory({
      dbPath: join(directory, 'exact.db'),
      maxExactPostings: Number.POSITIVE_INFINITY,
    });
    const bounded = openMemory({ dbPath: join(directory, 'bounded.db'), maxExactPostings: 10 });
    await fillCorpus(exact);
    await fillCorpus(bounded);
    // rare words pick candidates; two common words pick them together; no common pair (fallback); all cheap.
    const queries = [
      'rare common',
      'rare middle common',
      'middle common filler',
      'other middle',
      'rare number3',
    ];
    for (const query of queries) {
      for (const topK of [1, 3, 5]) {
        const want = (await exact.retrieve(query, { topK })).map((r) => [
          r.content,
          r.score.toFixed(9),
        ]);
        const got = (await bounded.retrieve(query, { topK })).map((r) => [
          r.content,
          r.score.toFixed(9),
        ]);
        expect(got, `${query} top ${topK}`).toEqual(want);
      }
    }
  });

  it('ranks exactly when the rare words match fewer documents than asked for', async () => {
    const memory = openMemory({ maxExactPostings: 10 });
    await fillCorpus(memory);
    const results = await memory.retrieve('rare common', { topK: 20 });
    expect(results).toHaveLength(20);
    expect(results.slice(0, 6).every((result) => result.content.includes('rare'))).toBe(true);
    expect(results.slice(6).every((result) => !result.content.includes('rare'))).toBe(true);
  });
});
