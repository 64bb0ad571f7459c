import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Clock, EventBus, JarvisError } from '../core/index.js';
import {
  DEFAULT_TOP_K,
  MAX_TOP_K,
  SQLiteMemory,
  type SQLiteMemoryOptions,
} from './sqlite-memory.js';
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

describe('SQLiteMemory: storing and retrieving', () => {
  it('stores documents and finds them by word, best first, with positive BM25 scores', async () => {
    const memory = openMemory();
    const cats = await memory.store('Cats sleep most of the day.', {
      source: 'cats.md',
      metadata: { topic: 'cats' },
    });
    await memory.store('Dogs and cats can live together; cats first.', { source: 'pets.md' });
    await memory.store('Parrots talk.', { source: 'birds.md' });

    expect(cats).toMatch(/^[0-9a-f]{32}$/);
    expect(await memory.count()).toBe(3);
    const results = await memory.retrieve('cats');
    expect(results.map((result) => result.source).sort()).toEqual(['cats.md', 'pets.md']);
    expect(results.every((result) => result.score > 0)).toBe(true);
    expect(results[0]?.score).toBeGreaterThanOrEqual(results[1]?.score ?? 0);
    const first = results.find((result) => result.id === cats);
    expect(first).toMatchObject({
      content: 'Cats sleep most of the day.',
      metadata: { topic: 'cats' },
    });
  });

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

  it('stems words (porter): running finds run, runs and ran-free text', async () => {
    const memory = openMemory();
    await memory.store('She runs every morning.');
    await memory.store('Running shoes for sale.');
    await memory.store('Nothing relevant here.');
    expect(await memory.retrieve('run')).toHaveLength(2);
    expect(await memory.retrieve('RUNNING')).toHaveLength(2);
  });

  it('ranks documents that match only some query words, the better ones first', async () => {
    const memory = openMemory();
    const both = await memory.store('The scheduler retries failed tasks.');
    const one = await memory.store('The scheduler runs every minute.');
    await memory.store('Unrelated text about gardens.');
    const results = await memory.retrieve('scheduler retries');
    expect(results.map((result) => result.id)).toEqual([both, one]);
  });

  it('drops common English words from a query that has other words', async () => {
    const memory = openMemory();
    const wanted = await memory.store('Notes on the telemetry store.');
    await memory.store('This is what it was and the way it is.');
    const results = await memory.retrieve('what is the telemetry');
    expect(results.map((result) => result.id)).toEqual([wanted]);
  });

  it('keeps content, source and metadata byte for byte: unicode, NUL, SQL-looking text', async () => {
    const memory = openMemory();
    const content = "Ünïcödé 日本語 😀 tab\tNUL\u0000end '; DROP TABLE memory_documents; --";
    const metadata = { nested: { list: [1, 'two', null] }, quote: '"\'' };
    await memory.store(content, { source: 'src/\'quoted".md', metadata });
    const [result] = await memory.retrieve('Ünïcödé');
    expect(result).toMatchObject({ content, source: 'src/\'quoted".md', metadata });
    expect(await memory.retrieve('end')).toHaveLength(1);
    expect(await memory.retrieve('DROP TABLE')).toHaveLength(1);
    expect(await memory.count()).toBe(1);
  });

  it('stores and finds a 1 MB document', async () => {
    const memory = openMemory();
    const filler = 'lorem ipsum dolor sit amet '.repeat(40_000);
    const content = `${filler}needle ${filler}`;
    expect(content.length).toBeGreaterThan(1_000_000);
    await memory.store(content, { source: 'big.txt' });
    await memory.store('a small needle');
    const results = await memory.retrieve('needle');
    expect(results).toHaveLength(2);
    expect(results.find((result) => result.source === 'big.txt')?.content).toBe(content);
  });

  it('uses the injected clock and id generator', async () => {
    const dbPath = join(directory, 'clock.db');
    const clock: Clock = { nowMs: () => 1_234_567, monotonicMs: () => 0 };
    let next = 0;
    const memory = openMemory({
      dbPath,
      clock,
      generateId: () => {
        next += 1;
        return `doc-${next}`;
      },
    });
    expect(await memory.store('first')).toBe('doc-1');
    expect(await memory.storeMany([{ content: 'second' }, { content: 'third' }])).toEqual([
      'doc-2',
      'doc-3',
    ]);
    const times = inspect(dbPath, (db) =>
      db.prepare('SELECT created_at_ms FROM memory_documents').pluck().all(),
    );
    expect(times).toEqual([1_234_567, 1_234_567, 1_234_567]);
  });

  it('deletes one document, clears all, and counts', async () => {
    const memory = openMemory();
    const id = await memory.store('keep this');
    await memory.store('and this');
    expect(await memory.delete(id)).toBe(true);
    expect(await memory.delete(id)).toBe(false);
    expect(await memory.retrieve('keep')).toEqual([]);
    expect(await memory.count()).toBe(1);
    await memory.clear();
    expect(await memory.count()).toBe(0);
    expect(await memory.retrieve('this')).toEqual([]);
  });

  it('works in memory (:memory:)', async () => {
    const memory = openMemory({ dbPath: ':memory:' });
    await memory.store('volatile fact');
    expect(await memory.retrieve('fact')).toHaveLength(1);
  });
});

describe('SQLiteMemory: hostile queries', () => {
  const hostile = [
    '"',
    '""""',
    'NEAR(',
    'NEAR(alpha beta, 5)',
    'alpha*',
    '*',
    '^alpha',
    'content:alpha',
    'alpha AND',
    'OR',
    'NOT alpha',
    '(((alpha',
    'alpha)))',
    '{alpha beta}',
    'alpha\u0000beta',
    '\u0000',
    "alpha'; DROP TABLE memory_documents; --",
    '-alpha +beta',
    'alpha - beta',
    '\\',
    '%_',
  ];

  it('never reads query text as FTS syntax and never throws for it', async () => {
    const memory = openMemory();
    await memory.store('alpha and beta are near each other, not far');
    await memory.store('gamma only');
    for (const query of hostile) {
      const results = await memory.retrieve(query);
      expect(
        results.map((result) => result.content),
        query,
      ).not.toContain('gamma only');
    }
    expect(await memory.retrieve('NEAR(')).toHaveLength(1);
    expect(await memory.retrieve('NOT')).toHaveLength(1);
    expect(await memory.retrieve('"alpha')).toHaveLength(1);
    expect(await memory.count()).toBe(2);
  });

  it('returns [] for empty, blank or punctuation-only queries without publishing', async () => {
    const bus = new EventBus({ recordHistory: true });
    const memory = openMemory({ bus });
    await memory.store('something');
    bus.clearHistory();
    for (const query of ['', '   ', '\n\t', '"*^:()', '\u0000'])
      expect(await memory.retrieve(query)).toEqual([]);
    expect(bus.history).toEqual([]);
  });

  it('validates topK: a positive whole number, capped at the maximum', async () => {
    const memory = openMemory();
    await memory.storeMany(
      Array.from({ length: MAX_TOP_K + 20 }, () => ({ content: 'same word' })),
    );
    expect(await memory.retrieve('word')).toHaveLength(DEFAULT_TOP_K);
    expect(await memory.retrieve('word', { topK: 1 })).toHaveLength(1);
    expect(await memory.retrieve('word', { topK: 10_000 })).toHaveLength(MAX_TOP_K);
    for (const topK of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await rejection(memory.retrieve('word', { topK }));
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toContain('topK');
    }
  });

  it('rejects a query that is not a string and an aborted signal', async () => {
    const memory = openMemory();
    const error = await rejection(memory.retrieve(42 as unknown as string));
    expect(error.message).toContain('query must be a string');
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(memory.retrieve('x', { signal: controller.signal })).rejects.toThrow('stop now');
  });
});

describe('SQLiteMemory: events', () => {
  it('publishes memory_store and memory_retrieve on its own bus only', async () => {
    const bus = new EventBus({ recordHistory: true });
    const other = new EventBus({ recordHistory: true });
    const memory = openMemory({ bus, generateId: () => 'id-1' });
    await memory.store('hello world', { source: 'greeting.txt' });
    await memory.retrieve('hello');
    expect(bus.history.map((event) => [event.type, event.data])).toEqual([
      ['memory_store', { backend: 'sqlite', docId: 'id-1', source: 'greeting.txt' }],
      ['memory_retrieve', { backend: 'sqlite', query: 'hello', numResults: 1 }],
    ]);
    expect(other.history).toEqual([]);
  });

  it('publishes nothing for a write that failed', async () => {
    const bus = new EventBus({ recordHistory: true });
    const memory = openMemory({ bus });
    await expect(
      memory.storeMany([{ content: 'ok' }, { content: 5 as unknown as string }]),
    ).rejects.toThrow('document 1: content must be a string');
    expect(bus.history).toEqual([]);
    expect(await memory.count()).toBe(0);
  });
});

describe('SQLiteMemory: writes', () => {
  it('rejects bad documents with a clear error and stores none of the batch', async () => {
    const memory = openMemory();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, string][] = [
      [[{ content: 1 }], 'content must be a string'],
      [[{ content: 'x', source: 3 }], 'source must be a string'],
      [[{ content: 'x', metadata: [] }], 'metadata must be a plain object'],
      [[{ content: 'x', metadata: { big: 1n } }], 'metadata must be JSON-serialisable'],
      [[{ content: 'x', metadata: cyclic }], 'metadata must be JSON-serialisable'],
      [[null], 'must be an object'],
      ['not a list', 'documents must be an array'],
    ];
    for (const [documents, message] of cases) {
      const error = await rejection(memory.storeMany(documents as never));
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toContain(message);
    }
    await expect(memory.replaceSource('a.md', 'text' as never)).rejects.toThrow(
      'documents must be an array',
    );
    await expect(memory.store('x', 'source' as never)).rejects.toThrow('store options');
    await expect(memory.delete(7 as never)).rejects.toThrow('id must be a string');
    expect(await memory.count()).toBe(0);
  });

  it('replaces a source atomically and lists its metadata', async () => {
    const memory = openMemory();
    await memory.replaceSource('a.md', [
      { content: 'old one', metadata: { n: 1 } },
      { content: 'old two', metadata: { n: 2 } },
    ]);
    await memory.store('other source', { source: 'b.md' });
    expect(await memory.sourceMetadata('a.md')).toEqual([{ n: 1 }, { n: 2 }]);

    await expect(
      memory.replaceSource('a.md', [{ content: 'new' }, { content: null as unknown as string }]),
    ).rejects.toThrow('content must be a string');
    expect(await memory.sourceMetadata('a.md')).toHaveLength(2);

    let calls = 0;
    const failing = openMemory({
      dbPath: join(directory, 'failing.db'),
      generateId: () => {
        calls += 1;
        return calls === 3 ? '' : `id-${calls}`;
      },
    });
    await failing.replaceSource('a.md', [{ content: 'kept' }]);
    await expect(
      failing.replaceSource('a.md', [{ content: 'new 1' }, { content: 'new 2' }]),
    ).rejects.toThrow('generateId');
    expect((await failing.retrieve('kept')).map((result) => result.content)).toEqual(['kept']);

    await memory.replaceSource('a.md', [{ content: 'new text' }]);
    expect(await memory.retrieve('old')).toEqual([]);
    expect((await memory.retrieve('new')).map((result) => result.source)).toEqual(['a.md']);
    expect(await memory.count()).toBe(2);
    await memory.replaceSource('a.md', []);
    expect(await memory.count()).toBe(1);
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

  it('refuses use after close, and closing twice is harmless', async () => {
    const memory = openMemory();
    await memory.close();
    await memory.close();
    const error = await rejection(memory.count());
    expect(error.code).toBe('memory_closed');
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
