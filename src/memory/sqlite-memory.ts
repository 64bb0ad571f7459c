import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  type Clock,
  describeError,
  type EventBus,
  isPlainObject,
  JarvisError,
  type MemoryBackend,
  type MemoryResult,
  type RetrieveOptions,
  type StoreOptions,
  systemClock,
} from '../core/index.js';
import { queryTerms } from './fts-query.js';
import { openMemoryDatabase, type SqliteDatabase } from './sqlite-memory-schema.js';
import { DEFAULT_MAX_EXACT_POSTINGS, RankedSearch } from './sqlite-memory-search.js';

/** Results a retrieval returns when `topK` is not given. */
export const DEFAULT_TOP_K = 5;

/** Most results one retrieval returns; a larger `topK` is lowered to this. */
export const MAX_TOP_K = 100;

/** Options of a `SQLiteMemory`. */
export interface SQLiteMemoryOptions {
  /** The SQLite file (its folders are created), or `:memory:`. */
  readonly dbPath: string;
  /** Bus that `memory_store` and `memory_retrieve` events are published on; none by default. */
  readonly bus?: EventBus;
  readonly clock?: Clock;
  /** Makes document ids; 32 lower-case hex characters (a random UUID without dashes) by default. */
  readonly generateId?: () => string;
  /** How long a write waits for another connection's lock before failing (default 5,000). */
  readonly busyTimeoutMs?: number;
  /** Postings a query may score exactly before its common words only boost rarer matches (default 3,000). */
  readonly maxExactPostings?: number;
}

/** A document to store: its text plus where it came from. */
export interface MemoryDocumentInput extends StoreOptions {
  readonly content: string;
}

/** A document of one source (`replaceSource` gives it the source). */
export type SourceDocumentInput = Omit<MemoryDocumentInput, 'source'>;

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

interface PreparedDocument {
  readonly content: string;
  readonly source: string;
  readonly metadataJson: string;
}

/**
 * A memory backend on one SQLite file: documents with an FTS5 index (Porter stemming, BM25 ranking) that is
 * searched with plain text; writes are transactional and events go to the bus it was given.
 */
export class SQLiteMemory implements MemoryBackend {
  readonly backendId = 'sqlite';
  /** The database file, or `:memory:`. */
  readonly dbPath: string;
  #db: SqliteDatabase | undefined;
  readonly #statements: Statements;
  readonly #search: RankedSearch;
  readonly #bus: EventBus | undefined;
  readonly #clock: Clock;
  readonly #generateId: () => string;

  /** Opens or creates the database; throws a `JarvisError` naming the file when it cannot be used. */
  constructor(options: SQLiteMemoryOptions) {
    this.dbPath = options.dbPath;
    this.#bus = options.bus;
    this.#clock = options.clock ?? systemClock;
    this.#generateId = options.generateId ?? (() => randomUUID().replaceAll('-', ''));
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

  /** Stores one document and returns its id. */
  async store(content: string, options: StoreOptions = {}): Promise<string> {
    if (!isPlainObject(options))
      throw invalid('store options must be an object { source?, metadata? }');
    const [id] = await this.storeMany([{ ...options, content }]);
    return id ?? '';
  }

  /** Stores several documents in one transaction (all or none) and returns their ids in order. */
  async storeMany(documents: readonly MemoryDocumentInput[]): Promise<readonly string[]> {
    return this.#write(undefined, documents);
  }

  /**
   * Replaces everything stored with `source` by `documents` in one transaction and returns the new ids; an empty
   * list just removes that source's documents.
   */
  async replaceSource(
    source: string,
    documents: readonly SourceDocumentInput[],
  ): Promise<readonly string[]> {
    requireString('source', source);
    requireArray(documents);
    return this.#write(
      source,
      documents.map((document) => ({ ...document, source })),
    );
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
    this.#bus?.publish('memory_retrieve', {
      backend: this.backendId,
      query,
      numResults: results.length,
    });
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

  /** Validates, then inserts the documents (after removing `replacedSource`'s) in one transaction. */
  #write(
    replacedSource: string | undefined,
    documents: readonly MemoryDocumentInput[],
  ): readonly string[] {
    requireArray(documents);
    const prepared = documents.map(prepareDocument);
    const db = this.#open();
    const ids = this.#guard('store documents', () =>
      db.transaction(() => {
        if (replacedSource !== undefined) this.#statements.deleteBySource.run(replacedSource);
        return prepared.map((document) => this.#insert(document));
      })(),
    );
    ids.forEach((docId, index) => {
      const source = prepared[index]?.source ?? '';
      this.#bus?.publish('memory_store', { backend: this.backendId, docId, source });
    });
    return ids;
  }

  #insert(document: PreparedDocument): string {
    const id = this.#generateId();
    if (typeof id !== 'string' || id === '')
      throw invalid('generateId must return a non-empty string');
    const { content, source, metadataJson } = document;
    this.#statements.insert.run(id, content, source, metadataJson, this.#clock.nowMs());
    return id;
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

function prepareDocument(document: MemoryDocumentInput, index: number): PreparedDocument {
  if (!isPlainObject(document)) throw invalid(`document ${index} must be an object with content`);
  const { content, source = '', metadata = {} } = document;
  if (typeof content !== 'string') throw invalid(`document ${index}: content must be a string`);
  if (typeof source !== 'string') throw invalid(`document ${index}: source must be a string`);
  if (!isPlainObject(metadata)) throw invalid(`document ${index}: metadata must be a plain object`);
  let metadataJson: string;
  try {
    metadataJson = JSON.stringify(metadata);
  } catch (cause) {
    throw invalid(
      `document ${index}: metadata must be JSON-serialisable (${describeError(cause)})`,
    );
  }
  return { content, source, metadataJson };
}

function parseMetadata(text: string): Readonly<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : {};
  } catch {
    // Rows written by other programs may hold anything; a bad metadata field must not hide the document.
    return {};
  }
}

function resolveTopK(topK: number | undefined): number {
  if (topK === undefined) return DEFAULT_TOP_K;
  if (!Number.isSafeInteger(topK) || topK < 1) {
    throw invalid(`topK must be a whole number of at least 1 (got ${String(topK)})`);
  }
  return Math.min(topK, MAX_TOP_K);
}

function requireArray(documents: unknown): void {
  if (!Array.isArray(documents)) {
    throw invalid('documents must be an array of { content, source?, metadata? } objects');
  }
}

function requireString(name: string, value: unknown): void {
  if (typeof value !== 'string') throw invalid(`${name} must be a string (got ${typeof value})`);
}

function requireCount(name: string, value: number, minimum: number): void {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw invalid(`${name} must be a whole number of at least ${minimum} (got ${String(value)})`);
  }
}

function invalid(message: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message });
}
