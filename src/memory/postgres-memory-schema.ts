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

/** Documents each query word contributes as candidates (all of them when it has no more). */
export const PER_WORD_CANDIDATES = 32;
/** Documents holding every query word (that occurs at all) taken as candidates. */
export const ALL_WORDS_CANDIDATES = 256;

/**
 * The bounded search (parameters: $1 the words as `tsqueryOf([word])` each, $2 `tsqueryOf(words)`, $3 topK,
 * $4 per-word and $5 all-words candidate counts). Ranking every document that holds any word costs a
 * `ts_rank_cd` (and a TOAST read) per match, tens of thousands for common words; here the candidates are, through
 * the GIN index, the first $4 documents of each word and the first $5 holding every word that occurs, and only
 * they are ranked by the whole query. When no word is in more than $4 documents that is every match, so the
 * ranking is exact; otherwise a document matching only common words, without all of them, can be passed over.
 */
export const SEARCH_SQL = `WITH word AS (
  SELECT w, to_tsquery('english', w) AS q FROM unnest($1::text[]) AS w),
present AS (
  SELECT w, q FROM word WHERE numnode(q) > 0
    AND EXISTS (SELECT 1 FROM jarvis_memory_documents d WHERE d.tsv @@ word.q)),
candidate AS (
  SELECT c.row_id FROM present p
  CROSS JOIN LATERAL (SELECT row_id FROM jarvis_memory_documents d WHERE d.tsv @@ p.q LIMIT $4) AS c
  UNION
  SELECT a.row_id FROM (
    SELECT row_id FROM jarvis_memory_documents d
    WHERE d.tsv @@ (SELECT to_tsquery('english', string_agg(w, ' & ')) FROM present) LIMIT $5) AS a)
SELECT d.id, d.content, d.escaped, d.source, d.metadata, ts_rank_cd(d.tsv, q)::float8 AS score
FROM jarvis_memory_documents d JOIN candidate USING (row_id), to_tsquery('english', $2) AS q
ORDER BY score DESC, d.row_id LIMIT $3`;

/** The parameters of `SEARCH_SQL` for plain query words (from `queryTerms`). */
export function searchParams(terms: readonly string[], topK: number): unknown[] {
  return [
    terms.map((term) => tsqueryOf([term])),
    tsqueryOf(terms),
    topK,
    Math.max(PER_WORD_CANDIDATES, topK),
    Math.max(ALL_WORDS_CANDIDATES, topK),
  ];
}
