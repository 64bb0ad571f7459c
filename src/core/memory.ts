import type { SignalOptions } from './engine.js';

/** Where a stored document came from, and anything else worth keeping with it. */
export interface StoreOptions {
  /** Source of the content (a file path, a URL, `user`, …). */
  readonly source?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Options of a retrieval. */
export interface RetrieveOptions extends SignalOptions {
  /** Most results to return (default 5). */
  readonly topK?: number;
}

/** One retrieved document, best results first. */
export interface MemoryResult {
  /** Id the backend gave the document when it was stored. */
  readonly id: string;
  readonly content: string;
  /** Relevance; higher is better (for BM25, the negated rank). */
  readonly score: number;
  readonly source: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The contract every memory backend implements. */
export interface MemoryBackend {
  /** Registry key of the backend (`sqlite`, …). */
  readonly backendId: string;
  /** Stores a document and returns its id. */
  store(content: string, options?: StoreOptions): Promise<string>;
  /** The documents that best match a plain-text query (never query syntax), best first. */
  retrieve(query: string, options?: RetrieveOptions): Promise<readonly MemoryResult[]>;
  /** Removes one document; returns whether it existed. */
  delete(id: string): Promise<boolean>;
  /** Removes every document. */
  clear(): Promise<void>;
  /** Number of stored documents. */
  count(): Promise<number>;
  /** Releases the store; calling it twice is harmless. */
  close(): Promise<void>;
}
