import type Database from 'better-sqlite3';
import { anyOf, ftsString } from './fts-query.js';
import type { SqliteDatabase } from './sqlite-memory-schema.js';

/** One ranked match: the document's row and its BM25 relevance (higher is better). */
export interface RankedHit {
  readonly rowId: number;
  readonly score: number;
}

/** How many postings (term occurrences in documents) a query may score exactly before it is narrowed. */
export const DEFAULT_MAX_EXACT_POSTINGS = 3_000;

type Row = [rowId: number, bm25: number];

interface CountedTerm {
  readonly term: string;
  /** Documents containing the term, counted up to `maxExactPostings + 1`. */
  readonly documents: number;
}

/**
 * Ranks documents for OR-ed query words with FTS5's BM25. FTS5 scores every document that contains any word, so
 * when the words occur in more than `maxExactPostings` documents in total the query is narrowed (Lucene's "common
 * terms" strategy): the rarest words that fit the budget choose the candidates (or, when every word is that common,
 * the documents holding the two rarest words do), and the other words only add their share of BM25 to the
 * candidates. Every returned score is still the exact BM25 of the whole query for that document, but a document
 * matching only common words can be passed over; when there are fewer candidates than `topK`, the ranking is exact.
 */
export class RankedSearch {
  readonly #maxExactPostings: number;
  readonly #top: Database.Statement<[string, number], Row>;
  readonly #count: Database.Statement<[string, number], number>;

  constructor(db: SqliteDatabase, maxExactPostings: number) {
    this.#maxExactPostings = maxExactPostings;
    const score = 'SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ?';
    this.#top = db.prepare<[string, number], Row>(`${score} ORDER BY 2, 1 LIMIT ?`).raw(true);
    // Counting stops past the budget: beyond it the exact number does not change the plan.
    this.#count = db
      .prepare<[string, number], number>(
        'SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)',
      )
      .pluck();
  }

  /** The best `topK` documents for `terms` (already plain words), best first. */
  search(terms: readonly string[], topK: number): readonly RankedHit[] {
    if (terms.length <= 1 || !Number.isFinite(this.#maxExactPostings)) {
      return this.#exact(terms, topK);
    }
    const limit = this.#maxExactPostings + 1;
    const counted = terms
      .map((term) => ({ term, documents: this.#count.get(ftsString(term), limit) ?? 0 }))
      .filter((entry) => entry.documents > 0)
      .sort((a, b) => a.documents - b.documents);
    const words = counted.map((entry) => entry.term);
    const total = counted.reduce((sum, entry) => sum + entry.documents, 0);
    if (counted.length < 2 || total <= this.#maxExactPostings) return this.#exact(words, topK);
    return this.#narrowed(counted, topK) ?? this.#exact(words, topK);
  }

  #exact(terms: readonly string[], topK: number): readonly RankedHit[] {
    if (terms.length === 0) return [];
    return this.#top.all(anyOf(terms), topK).map(toHit);
  }

  /** Picks the candidates (rare words, else the two rarest together); undefined when fewer than `topK`. */
  #narrowed(counted: readonly CountedTerm[], topK: number): readonly RankedHit[] | undefined {
    const words = counted.map((entry) => entry.term);
    let rare = 0;
    let postings = 0;
    for (const entry of counted) {
      if (postings + entry.documents > this.#maxExactPostings) break;
      postings += entry.documents;
      rare += 1;
    }
    if (rare > 0) return this.#boosted(anyOf(words.slice(0, rare)), words.slice(rare), topK);
    const [first = '', second = ''] = words;
    return this.#boosted(`${ftsString(first)} AND ${ftsString(second)}`, words.slice(2), topK);
  }

  /**
   * The best candidates by the whole query. Candidates without other words score what the candidate words give
   * them, so only the `topK` best of those can make it; candidates with other words are scored by the whole query
   * (their BM25 covers every word they contain, and is never lower), so only the `topK` best of those can either.
   */
  #boosted(
    candidates: string,
    others: readonly string[],
    topK: number,
  ): readonly RankedHit[] | undefined {
    const scores = new Map<number, number>(this.#top.all(candidates, topK));
    if (scores.size < topK) return undefined;
    if (others.length > 0) {
      const whole = this.#top.all(`(${anyOf(others)}) AND (${candidates})`, topK);
      for (const [rowId, bm25] of whole)
        scores.set(rowId, Math.min(bm25, scores.get(rowId) ?? bm25));
    }
    return [...scores]
      .sort((a, b) => a[1] - b[1] || a[0] - b[0])
      .slice(0, topK)
      .map(toHit);
  }
}

function toHit([rowId, bm25]: Row): RankedHit {
  // FTS5's bm25() is negative with better matches lower; `0 - x` also turns -0 into 0.
  return { rowId, score: 0 - bm25 };
}
