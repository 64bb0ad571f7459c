import {
  databaseIncompatibleError,
  describeError,
  JarvisError,
  type MemoryResult,
  type RetrieveOptions,
} from '../core/index.js';
import {
  migrate,
  type PostgresDatabase,
  type PostgresQueryable,
  StorageError,
} from '../storage/index.js';
import {
  DocumentMemory,
  type DocumentMemoryOptions,
  type DocumentWrite,
} from './document-memory.js';
import { queryTerms } from './fts-query.js';
import {
  type PreparedDocument,
  parseMetadata,
  requireString,
  resolveTopK,
} from './memory-input.js';
import { MEMORY_MIGRATIONS, SEARCH_SQL, searchParams } from './postgres-memory-schema.js';

/** Options of `PostgresMemory.open`. */
export interface PostgresMemoryOptions extends DocumentMemoryOptions {
  /** An open handle (`openPostgres`); several stores may share one. */
  readonly database: PostgresDatabase;
  /** Close the handle when the memory closes (default false). */
  readonly closeDatabase?: boolean | undefined;
}

interface DocumentRow {
  readonly id: string;
  readonly content: string;
  readonly escaped: boolean;
  readonly source: string;
  readonly metadata: string;
  readonly score: number;
}

/**
 * A memory backend in PostgreSQL: documents with a `tsvector` column (English stemming) under a GIN index,
 * ranked by `ts_rank_cd` (higher is better) over a bounded candidate set (see `SEARCH_SQL`), searched with the same plain-text query language and returning
 * the same result shape as `SQLiteMemory`; writes are transactional and events go to the bus it was given.
 */
export class PostgresMemory extends DocumentMemory {
  readonly backendId = 'postgres';
  /** The database URL without its password. */
  readonly location: string;
  readonly #db: PostgresDatabase;
  readonly #closeDatabase: boolean;
  #closed = false;

  private constructor(options: PostgresMemoryOptions) {
    super(options);
    this.location = options.database.location;
    this.#db = options.database;
    this.#closeDatabase = options.closeDatabase ?? false;
  }

  /** Brings the memory tables up to date (refusing newer ones) and returns the backend. */
  static async open(options: PostgresMemoryOptions): Promise<PostgresMemory> {
    try {
      await migrate(options.database, MEMORY_MIGRATIONS);
    } catch (error) {
      if (StorageError.is(error, 'storage_schema_incompatible')) {
        throw databaseIncompatibleError('memory', options.database.location, error.message);
      }
      throw error;
    }
    return new PostgresMemory(options);
  }

  /** The metadata of every document stored with `source`, in the order they were stored. */
  async sourceMetadata(source: string): Promise<readonly Readonly<Record<string, unknown>>[]> {
    requireString('source', source);
    const rows = await this.#guard('read documents', () =>
      this.#db.query<{ metadata: string }>(
        'SELECT metadata FROM jarvis_memory_documents WHERE source = $1 ORDER BY row_id',
        [source],
      ),
    );
    return rows.map((row) => parseMetadata(row.metadata));
  }

  /** The documents that best match a plain-text query (never query syntax), best first. */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<readonly MemoryResult[]> {
    options.signal?.throwIfAborted();
    requireString('query', query);
    const topK = resolveTopK(options.topK);
    this.#checkOpen();
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const rows = await this.#guard('search the memory', () =>
      this.#db.query<DocumentRow>(SEARCH_SQL, searchParams(terms, topK)),
    );
    const results = rows.map(toResult);
    this.retrieved(query, results.length);
    return results;
  }

  /** Removes one document; returns whether it existed. */
  async delete(id: string): Promise<boolean> {
    requireString('id', id);
    const rows = await this.#guard('delete a document', () =>
      this.#db.query('DELETE FROM jarvis_memory_documents WHERE id = $1 RETURNING id', [id]),
    );
    return rows.length > 0;
  }

  /** Removes every document. */
  async clear(): Promise<void> {
    await this.#guard('clear the memory', () =>
      this.#db.query('DELETE FROM jarvis_memory_documents'),
    );
  }

  /** Number of stored documents. */
  async count(): Promise<number> {
    const rows = await this.#guard('count documents', () =>
      this.#db.query<{ n: number }>('SELECT count(*)::int AS n FROM jarvis_memory_documents'),
    );
    return rows[0]?.n ?? 0;
  }

  /** Releases the backend (and the handle when it owns it); calling it again does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#closeDatabase) await this.#db.close();
  }

  /** Inserts the documents (after removing `replacedSource`'s) in one transaction. */
  protected async writeDocuments({
    replacedSource,
    documents,
    ids,
    nowMs,
  }: DocumentWrite): Promise<void> {
    const createdAtMs = Math.floor(nowMs);
    await this.#guard('store documents', () =>
      this.#db.transaction(async (tx) => {
        if (replacedSource !== undefined) {
          await tx.query('DELETE FROM jarvis_memory_documents WHERE source = $1', [replacedSource]);
        }
        for (const batch of insertBatches(documents, ids)) await insert(tx, batch, createdAtMs);
      }),
    );
  }

  /** Runs a database step; failures become a `JarvisError` naming the database (never swallowed). */
  async #guard<T>(action: string, step: () => Promise<T>): Promise<T> {
    this.#checkOpen();
    try {
      return await step();
    } catch (error) {
      if (JarvisError.isInstance(error) && !(error instanceof StorageError)) throw error;
      throw new JarvisError({
        code: 'memory_query_failed',
        message: `could not ${action} in the memory database ${this.location}: ${describeError(error)}`,
        cause: error,
      });
    }
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new JarvisError({
        code: 'memory_closed',
        message: `the memory at ${this.location} is closed; open a new PostgresMemory`,
      });
    }
  }
}

/** Most documents, and characters, one INSERT carries. */
const INSERT_BATCH_DOCUMENTS = 256;
const INSERT_BATCH_CHARS = 4_000_000;

interface IdentifiedDocument {
  readonly id: string;
  readonly document: PreparedDocument;
}

/** The documents with their ids, in order, cut into statements of bounded size. */
function insertBatches(
  prepared: readonly PreparedDocument[],
  ids: readonly string[],
): IdentifiedDocument[][] {
  const batches: IdentifiedDocument[][] = [];
  let batch: IdentifiedDocument[] = [];
  let chars = 0;
  for (const [index, document] of prepared.entries()) {
    if (
      batch.length > 0 &&
      (batch.length >= INSERT_BATCH_DOCUMENTS ||
        chars + document.content.length > INSERT_BATCH_CHARS)
    ) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push({ id: ids[index] ?? '', document });
    chars += document.content.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Inserts a batch in one statement, in order. PostgreSQL text cannot hold NUL: such content is stored
 * JSON-encoded (and flagged), and searched without it.
 */
async function insert(
  tx: PostgresQueryable,
  batch: readonly IdentifiedDocument[],
  nowMs: number,
): Promise<void> {
  const escaped = batch.map(({ document }) => document.content.includes('\u0000'));
  await tx.query(
    `INSERT INTO jarvis_memory_documents (id, content, escaped, source, metadata, created_at_ms, tsv)
     SELECT d.id, d.content, d.escaped, d.source, d.metadata, $6, to_tsvector('english', d.search)
     FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $7::text[])
       WITH ORDINALITY AS d(id, content, escaped, source, metadata, search, n)
     ORDER BY d.n`,
    [
      batch.map(({ id }) => id),
      batch.map(({ document }, index) =>
        escaped[index] ? JSON.stringify(document.content) : document.content,
      ),
      escaped,
      batch.map(({ document }) => document.source.replaceAll('\u0000', '')),
      batch.map(({ document }) => document.metadataJson),
      nowMs,
      batch.map(({ document }, index) =>
        escaped[index] ? document.content.replaceAll('\u0000', ' ') : document.content,
      ),
    ],
  );
}

function toResult(row: DocumentRow): MemoryResult {
  return {
    id: row.id,
    content: row.escaped ? (JSON.parse(row.content) as string) : row.content,
    score: Number(row.score),
    source: row.source,
    metadata: parseMetadata(row.metadata),
  };
}
