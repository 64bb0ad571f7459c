import {
  type Clock,
  type EventBus,
  isPlainObject,
  type MemoryBackend,
  type MemoryResult,
  type RetrieveOptions,
  type StoreOptions,
  systemClock,
} from '../core/index.js';
import {
  invalid,
  type MemoryDocumentInput,
  type PreparedDocument,
  prepareDocument,
  requireArray,
  requireString,
  type SourceDocumentInput,
} from './memory-input.js';

/** What every memory backend takes besides where its documents live. */
export interface DocumentMemoryOptions {
  /** Bus that `memory_store` and `memory_retrieve` events are published on; none by default. */
  readonly bus?: EventBus | undefined;
  readonly clock?: Clock | undefined;
  /** Makes document ids; 32 lower-case hex characters (a random UUID without dashes) by default. */
  readonly generateId?: (() => string) | undefined;
}

/** One write a backend carries out in a single transaction (all or none). */
export interface DocumentWrite {
  /** Remove this source's documents first (`replaceSource`); undefined for a plain store. */
  readonly replacedSource: string | undefined;
  /** The documents, checked, in order. */
  readonly documents: readonly PreparedDocument[];
  /** Their ids, one per document, in the same order. */
  readonly ids: readonly string[];
  /** When they were stored, from the backend's clock. */
  readonly nowMs: number;
}

/**
 * The part the memory backends (SQLite, PostgreSQL) share: the argument checks of store, storeMany and
 * replaceSource, the document ids, the clock and the `memory_store` / `memory_retrieve` events. A backend
 * writes (`writeDocuments`) and searches; what a caller sees around that is the same whichever backend it is.
 */
export abstract class DocumentMemory implements MemoryBackend {
  abstract readonly backendId: string;
  readonly #bus: EventBus | undefined;
  readonly #clock: Clock;
  readonly #generateId: () => string;

  protected constructor(options: DocumentMemoryOptions) {
    this.#bus = options.bus;
    this.#clock = options.clock ?? systemClock;
    this.#generateId = options.generateId ?? (() => crypto.randomUUID().replaceAll('-', ''));
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

  abstract sourceMetadata(source: string): Promise<readonly Readonly<Record<string, unknown>>[]>;
  abstract retrieve(query: string, options?: RetrieveOptions): Promise<readonly MemoryResult[]>;
  abstract delete(id: string): Promise<boolean>;
  abstract clear(): Promise<void>;
  abstract count(): Promise<number>;
  abstract close(): Promise<void>;

  /** Carries out one write in a single transaction; throws (writing nothing) when it cannot. */
  protected abstract writeDocuments(write: DocumentWrite): void | Promise<void>;

  /** Publishes a finished retrieval on the bus. */
  protected retrieved(query: string, numResults: number): void {
    this.#bus?.publish('memory_retrieve', { backend: this.backendId, query, numResults });
  }

  /** Validates, names the documents, has the backend write them, then publishes one event per document. */
  async #write(
    replacedSource: string | undefined,
    documents: readonly MemoryDocumentInput[],
  ): Promise<readonly string[]> {
    requireArray(documents);
    const prepared = documents.map(prepareDocument);
    const ids = prepared.map(() => this.#newId());
    await this.writeDocuments({
      replacedSource,
      documents: prepared,
      ids,
      nowMs: this.#clock.nowMs(),
    });
    ids.forEach((docId, index) => {
      const source = prepared[index]?.source ?? '';
      this.#bus?.publish('memory_store', { backend: this.backendId, docId, source });
    });
    return ids;
  }

  #newId(): string {
    const id = this.#generateId();
    if (typeof id !== 'string' || id === '')
      throw invalid('generateId must return a non-empty string');
    return id;
  }
}
