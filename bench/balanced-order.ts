// The order cases run in, round by round, for benchmarks whose cases disturb each other (a case pays for the page
// cache, disk writeback or CPU heat the one before left behind) or whose first position in a round is dearer.

/**
 * The orders of a balanced Latin square (Williams design) of `count` cases: every case runs once in every position
 * and, over all the rows, follows every other case equally often (once each for an even count; for an odd count
 * the rows are followed by their reverses, which is needed for that, so there are twice as many rows). Rounds past
 * the rows start over at the first row.
 */
export function balancedOrders(count: number): number[][] {
  if (count <= 0) return [];
  const first = [0];
  for (let low = 1, high = count - 1; first.length < count; ) {
    first.push(low);
    low += 1;
    if (first.length < count) {
      first.push(high);
      high -= 1;
    }
  }
  const rows = Array.from({ length: count }, (_, shift) =>
    first.map((caseIndex) => (caseIndex + shift) % count),
  );
  return count % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}

/** The case order of round `round` (counted from 0): the rows of `balancedOrders`, one per round, in turn. */
export function balancedOrder(round: number, count: number): number[] {
  const rows = balancedOrders(count);
  return rows[round % rows.length] ?? [];
}
