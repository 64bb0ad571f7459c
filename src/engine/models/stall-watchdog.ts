/**
 * Aborts its signal when `touch()` has not been called for `timeoutMs`: a download that stops receiving bytes
 * (a dead or stalled server, a downloader retrying without end) ends instead of hanging.
 */
export class StallWatchdog {
  readonly timeoutMs: number;
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.touch();
  }

  /** Aborted once the time without progress ran out. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the time without progress ran out. */
  get stalled(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Progress was made: the wait starts again (no effect once stalled or stopped). */
  touch(): void {
    if (this.stalled || this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(), this.timeoutMs);
  }

  /** Stops watching (the download finished or failed otherwise). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
