export {
  type ChunkOptions,
  chunkText,
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  type TextKind,
  textKindOf,
} from './chunking.js';
export {
  buildContextMessage,
  CONTEXT_HEADER,
  type ContextOptions,
  DEFAULT_MAX_CONTEXT_TOKENS,
  estimateTokens,
  formatContext,
  formatContextEntry,
  injectContext,
} from './context-injection.js';
export { MAX_QUERY_TERMS, queryTerms, STOPWORDS } from './fts-query.js';
export {
  DEFAULT_MAX_FILE_BYTES,
  type IndexPathOptions,
  type IndexProgress,
  type IndexSummary,
  type IndexTarget,
  indexPath,
  type SkippedPath,
  type SkipReason,
} from './index-path.js';
export { PostgresMemory, type PostgresMemoryOptions } from './postgres-memory.js';
export {
  DEFAULT_TOP_K,
  MAX_TOP_K,
  type MemoryDocumentInput,
  type SourceDocumentInput,
  SQLiteMemory,
  type SQLiteMemoryOptions,
} from './sqlite-memory.js';
export { MEMORY_APPLICATION_ID, MEMORY_SCHEMA_VERSION } from './sqlite-memory-schema.js';
export { DEFAULT_MAX_EXACT_POSTINGS } from './sqlite-memory-search.js';
