import type Database from 'better-sqlite3';
import {
  describeError,
  JarvisError,
  type MemoryResult,
  type RetrieveOptions,
} from '../core/index.js';
import {
  DocumentMemory,
  type DocumentMemoryOptions,
  type DocumentWrite,
} from './document-memory.js';
import { queryTerms } from './fts-query.js';
import { invalid, parseMetadata, requireString, resolveTopK } from './memory-input.js';
import { openMemoryDatabase, type SqliteDatabase } from './sqlite-memory-schema.js';
import { DEFAULT_MAX_EXACT_POSTINGS, RankedSearch } from './sqlite-memory-search.js';

/** Options of a `SQLiteMemory`. */
export interface SQLiteMemoryOptions extends DocumentMemoryOptions {
  /** The SQLite file (its folders are created), or `:memory:`. */
  readonly dbPath: string;
  /** How long a write waits for another connection's lock before failing (default 5,000). */
  readonly busyTimeoutMs?: number;
  /** Postings a query may score exactly before its common words only boost rarer matches (default 3,000). */
  readonly maxExactPostings?: number;
}

interface Statements {
  readonly insert: Database.Statement<[string, string, string, string, number]>;
  readonly byRowId: Database.Statement<[number], DocumentRow>;
  readonly metadataBySource: Database.Statement<[string], string>;
  readonly deleteById: Database.Statement<[string]>;
  readonly deleteBySource: Database.Statement<[string]>;
  readonly deleteAll: Database.Statement<[]>;
  readonly count: Database.Statement<[], number>;
}

interface DocumentRow {
  readonly id: string;
  readonly content: string;
  readonly source: string;
  readonly metadata: string;
}

/**
 * A memory backend on one SQLite file: documents with an FTS5 index (Porter stemming, BM25 ranking) that is
 * searched with plain text; writes are transactional and events go to the bus it was given.
 */
export class SQLiteMemory extends DocumentMemory {
  readonly backendId = 'sqlite';
  /** The database file, or `:memory:`. */
  readonly dbPath: string;
  #db: SqliteDatabase | undefined;
  readonly #statements: Statements;
  readonly #search: RankedSearch;

  /** Opens or creates the database; throws a `JarvisError` naming the file when it cannot be used. */
  constructor(options: SQLiteMemoryOptions) {
    super(options);
    this.dbPath = options.dbPath;
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    const maxExactPostings = options.maxExactPostings ?? DEFAULT_MAX_EXACT_POSTINGS;
    requireCount('busyTimeoutMs', busyTimeoutMs, 0);
    if (maxExactPostings !== Number.POSITIVE_INFINITY)
      requireCount('maxExactPostings', maxExactPostings, 1);
    const db = openMemoryDatabase({ dbPath: options.dbPath, busyTimeoutMs });
    this.#db = db;
    this.#statements = prepareStatements(db);
    this.#search = new RankedSearch(db, maxExactPostings);
  }

  /** The metadata of every document stored with `source`, in the order they were stored. */
  async sourceMetadata(source: string): Promise<readonly Readonly<Record<string, unknown>>[]> {
    requireString('source', source);
    this.#open();
    return this.#guard('read documents', () =>
      this.#statements.metadataBySource.all(source).map(parseMetadata),
    );
  }

  /** The documents that best match a plain-text query (never query syntax), best first. */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<readonly MemoryResult[]> {
    options.signal?.throwIfAborted();
    requireString('query', query);
    const topK = resolveTopK(options.topK);
    this.#open();
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const results = this.#guard('search the memory', () =>
      this.#search.search(terms, topK).map((hit) => this.#result(hit.rowId, hit.score)),
    );
    this.retrieved(query, results.length);
    return results;
  }

  /** Removes one document; returns whether it existed. */
  async delete(id: string): Promise<boolean> {
    requireString('id', id);
    this.#open();
    return this.#guard('delete a document', () => this.#statements.deleteById.run(id).changes > 0);
  }

  /** Removes every document. */
  async clear(): Promise<void> {
    this.#open();
    this.#guard('clear the memory', () => this.#statements.deleteAll.run());
  }

  /** Number of stored documents. */
  async count(): Promise<number> {
    this.#open();
    return this.#guard('count documents', () => this.#statements.count.get() ?? 0);
  }

  /** Closes the database; calling it again does nothing. */
  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
  }

  /** Inserts the documents (after removing `replacedSource`'s) in one transaction. */
  protected writeDocuments({ replacedSource, documents, ids, nowMs }: DocumentWrite): void {
    const db = this.#open();
    const { insert, deleteBySource } = this.#statements;
    this.#guard('store documents', () =>
      db.transaction(() => {
        if (replacedSource !== undefined) deleteBySource.run(replacedSource);
        documents.forEach(({ content, source, metadataJson }, index) => {
          insert.run(ids[index] ?? '', content, source, metadataJson, nowMs);
        });
      })(),
    );
  }

  #result(rowId: number, score: number): MemoryResult {
    const row = this.#statements.byRowId.get(rowId);
    if (row === undefined) {
      throw new JarvisError({
        code: 'memory_database_corrupt',
        message: `the search index of ${this.dbPath} names document row ${rowId}, which does not exist; rebuild the memory`,
      });
    }
    return {
      id: row.id,
      content: row.content,
      score,
      source: row.source,
      metadata: parseMetadata(row.metadata),
    };
  }

  #open(): SqliteDatabase {
    if (this.#db === undefined) {
      throw new JarvisError({
        code: 'memory_closed',
        message: `the memory at ${this.dbPath} is closed; create a new SQLiteMemory`,
      });
    }
    return this.#db;
  }

  /** Runs a database step; SQLite failures become a `JarvisError` naming the file (never swallowed). */
  #guard<T>(action: string, step: () => T): T {
    try {
      return step();
    } catch (error) {
      if (JarvisError.isInstance(error)) throw error;
      throw new JarvisError({
        code: 'memory_query_failed',
        message: `could not ${action} in the memory database ${this.dbPath}: ${describeError(error)}`,
        cause: error,
      });
    }
  }
}

function prepareStatements(db: SqliteDatabase): Statements {
  return {
    insert: db.prepare(
      'INSERT INTO memory_documents (id, content, source, metadata, created_at_ms) VALUES (?, ?, ?, ?, ?)',
    ),
    byRowId: db.prepare<[number], DocumentRow>(
      'SELECT id, content, source, metadata FROM memory_documents WHERE row_id = ?',
    ),
    metadataBySource: db
      .prepare<[string], string>(
        'SELECT metadata FROM memory_documents WHERE source = ? ORDER BY row_id',
      )
      .pluck(),
    deleteById: db.prepare('DELETE FROM memory_documents WHERE id = ?'),
    deleteBySource: db.prepare('DELETE FROM memory_documents WHERE source = ?'),
    deleteAll: db.prepare('DELETE FROM memory_documents'),
    count: db.prepare<[], number>('SELECT count(*) FROM memory_documents').pluck(),
  };
}

function requireCount(name: string, value: number, minimum: number): void {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw invalid(`${name} must be a whole number of at least ${minimum} (got ${String(value)})`);
  }
}

export {
  DEFAULT_TOP_K,
  MAX_TOP_K,
  type MemoryDocumentInput,
  type SourceDocumentInput,
} from './memory-input.js';
