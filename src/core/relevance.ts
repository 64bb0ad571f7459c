/** Search relevance people can read: a memory score relative to the best result of the same search. */

/**
 * A score relative to the best of its search, from 0 to 1: BM25 values depend on the collection (a small
 * one gives scores like 0.00000285), so only their ratio says how close a result comes to the best match.
 */
export function relativeRelevance(score: number, best: number): number {
  if (!Number.isFinite(score) || !Number.isFinite(best)) return 0;
  if (best <= 0) return score === best ? 1 : 0;
  return Math.min(1, Math.max(0, score / best));
}

/** A relative relevance as a whole percentage (`100%`, `64%`), `<1%` for a match that is barely one. */
export function formatRelevance(relevance: number): string {
  const percent = Math.round(relevance * 100);
  return percent === 0 && relevance > 0 ? '<1%' : `${percent}%`;
}

/** The best finite score of a search's results (-Infinity when there is none). */
export function bestScore(results: readonly { readonly score: number }[]): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const result of results)
    if (Number.isFinite(result.score)) best = Math.max(best, result.score);
  return best;
}
