import { describeError, isPlainObject, JarvisError, type StoreOptions } from '../core/index.js';

// The input checks and shapes both memory backends (SQLite, PostgreSQL) share.

/** Results a retrieval returns when `topK` is not given. */
export const DEFAULT_TOP_K = 5;

/** Most results one retrieval returns; a larger `topK` is lowered to this. */
export const MAX_TOP_K = 100;

/** A document to store: its text plus where it came from. */
export interface MemoryDocumentInput extends StoreOptions {
  readonly content: string;
}

/** A document of one source (`replaceSource` gives it the source). */
export type SourceDocumentInput = Omit<MemoryDocumentInput, 'source'>;

/** A document checked and ready to write: its metadata as JSON text. */
export interface PreparedDocument {
  readonly content: string;
  readonly source: string;
  readonly metadataJson: string;
}

/** Checks one document of a batch (`index` names it in errors) and serialises its metadata. */
export function prepareDocument(document: MemoryDocumentInput, index: number): PreparedDocument {
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

/** Stored metadata text as an object; anything else (rows written by other programs) as `{}`. */
export function parseMetadata(text: string): Readonly<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : {};
  } catch {
    // Rows written by other programs may hold anything; a bad metadata field must not hide the document.
    return {};
  }
}

/** `topK` checked and capped at `MAX_TOP_K`; `DEFAULT_TOP_K` when not given. */
export function resolveTopK(topK: number | undefined): number {
  if (topK === undefined) return DEFAULT_TOP_K;
  if (!Number.isSafeInteger(topK) || topK < 1) {
    throw invalid(`topK must be a whole number of at least 1 (got ${String(topK)})`);
  }
  return Math.min(topK, MAX_TOP_K);
}

/** Throws unless `documents` is an array. */
export function requireArray(documents: unknown): void {
  if (!Array.isArray(documents)) {
    throw invalid('documents must be an array of { content, source?, metadata? } objects');
  }
}

/** Throws unless `value` is a string. */
export function requireString(name: string, value: unknown): void {
  if (typeof value !== 'string') throw invalid(`${name} must be a string (got ${typeof value})`);
}

/** An `invalid_argument` error. */
export function invalid(message: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message });
}
