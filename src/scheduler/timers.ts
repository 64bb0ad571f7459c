/** An opaque handle of a pending timer. */
export type TimerHandle = unknown;

/** Where the scheduler gets its timers; injected so tests can fire them by hand. */
export interface Timers {
  /** Calls `callback` once after `delayMs` milliseconds. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a pending timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

// Node clamps longer delays to 1 ms; the scheduler never sleeps longer than this anyway.
const MAX_DELAY_MS = 2_147_483_647;

/** The real timers of the runtime (`setTimeout`/`clearTimeout`). */
export const systemTimers: Timers = {
  setTimeout: (callback, delayMs) =>
    setTimeout(callback, Math.min(MAX_DELAY_MS, Math.max(0, delayMs))),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
