import type { MigrationPlan } from '../storage/index.js';

/** The memory tables in PostgreSQL, by version (append only). */
export const MEMORY_MIGRATIONS: MigrationPlan = {
  store: 'memory',
  migrations: [
    `CREATE TABLE jarvis_memory_documents (
       row_id bigserial PRIMARY KEY,
       id text NOT NULL UNIQUE,
       content text NOT NULL,
       escaped boolean NOT NULL DEFAULT false,
       source text NOT NULL DEFAULT '',
       metadata text NOT NULL DEFAULT '{}',
       created_at_ms bigint NOT NULL,
       tsv tsvector NOT NULL
     );
     CREATE INDEX jarvis_memory_tsv_index ON jarvis_memory_documents USING gin (tsv);
     CREATE INDEX jarvis_memory_source_index ON jarvis_memory_documents (source)`,
  ],
};

/**
 * The `to_tsquery` text for plain query words (from `queryTerms`: letters, numbers and marks only, so nothing
 * in them is tsquery syntax): any of the words, each stemmed by the English configuration.
 */
export function tsqueryOf(terms: readonly string[]): string {
  return terms.map((term) => `'${term.replaceAll("'", "''").replaceAll('\\', '')}'`).join(' | ');
}
