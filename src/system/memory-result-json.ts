import { type MemoryResult, relativeRelevance } from '../core/index.js';

// The JSON of a memory search result, shared by `jarvis memory search --json` and the server's /api/memory.

/** A memory search result as JSON (`metadata` keeps the keys it was stored with). */
export interface MemoryResultJson {
  readonly id: string;
  /** The raw score of the backend (for BM25, the negated rank). */
  readonly score: number;
  /** The score relative to the best result of the same search (1 for the best), to 4 decimals. */
  readonly relevance: number;
  readonly source: string;
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** One search result as JSON; `best` is the best score of the search (see `bestScore`). */
export function memoryResultJson(result: MemoryResult, best: number): MemoryResultJson {
  return {
    id: result.id,
    score: result.score,
    relevance: Number(relativeRelevance(result.score, best).toFixed(4)),
    source: result.source,
    content: result.content,
    metadata: result.metadata,
  };
}
