/** Where time comes from; injected everywhere so tests can drive it by hand. */
export interface Clock {
  /** Wall-clock time in milliseconds since the Unix epoch. */
  nowMs(): number;
  /** A monotonic time in milliseconds with sub-millisecond resolution, for measuring durations. */
  monotonicMs(): number;
}

/** The real clock: `Date.now()` for instants, `performance.now()` for durations. */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
};

/** Seconds elapsed since `startedMs` on `clock`'s monotonic scale; never 0 for work that really ran. */
export function elapsedSeconds(clock: Clock, startedMs: number): number {
  const elapsedMs = clock.monotonicMs() - startedMs;
  // A real call always takes time; a clock too coarse to see it still reports the smallest positive value.
  return elapsedMs > 0 ? elapsedMs / 1000 : Number.MIN_VALUE;
}
