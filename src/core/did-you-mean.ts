/** "Did you mean" suggestions for misspelled names (tools, agents, engines, commands, config keys). */

/** Levenshtein distance between two short strings (case-insensitive), stopping early beyond `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  if (Math.abs(left.length - right.length) > limit) return limit + 1;
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= right.length; j += 1) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[right.length] ?? limit + 1;
}

/**
 * The candidate closest to `name` when it is close enough to be a likely misspelling (at most a third of
 * the name's length in edits, at least 1, at most 3), else undefined; ties go to the first candidate.
 */
export function closestMatch(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate, limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` Did you mean 'x'?` (with its leading space) when a close candidate exists, else an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const match = closestMatch(name, candidates);
  return match === undefined ? '' : ` Did you mean '${match}'?`;
}
