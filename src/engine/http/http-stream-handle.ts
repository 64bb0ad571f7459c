import type { AttemptScope, RequestDeadline } from './http-timeouts.js';
import type { TransportResponse } from './http-transport.js';

const RELEASE_GRACE_MS = 1_000;

/** The life of one streamed body: open while the caller reads, then draining or closed. */
export class StreamHandle {
  #state: 'open' | 'draining' | 'closed' = 'open';
  readonly #response: TransportResponse;
  readonly #iterator: AsyncIterator<Buffer>;
  readonly #scope: AttemptScope;
  readonly #deadline: RequestDeadline;

  constructor(
    response: TransportResponse,
    iterator: AsyncIterator<Buffer>,
    scope: AttemptScope,
    deadline: RequestDeadline,
  ) {
    this.#response = response;
    this.#iterator = iterator;
    this.#scope = scope;
    this.#deadline = deadline;
  }

  get open(): boolean {
    return this.#state === 'open';
  }

  /** Drops the rest of the body and closes its connection. */
  cancel(): void {
    if (this.#state === 'open') this.#close();
  }

  /** Reads the rest of a finished answer in the background (at most a second) so the connection is reused. */
  release(): void {
    if (this.#state !== 'open') return;
    this.#state = 'draining';
    this.#scope.stopTimer();
    this.#deadline.dispose();
    const timer = setTimeout(() => this.#close(), RELEASE_GRACE_MS);
    timer.unref();
    void this.#drain(timer);
  }

  async #drain(timer: NodeJS.Timeout): Promise<void> {
    try {
      while ((await this.#iterator.next()).done !== true) {
        // The rest of a finished answer is of no interest; reading it keeps the connection reusable.
      }
    } catch {
      // A body that fails after the answer was complete changes nothing.
    } finally {
      clearTimeout(timer);
      this.#close();
    }
  }

  #close(): void {
    this.#state = 'closed';
    this.#scope.dispose();
    this.#deadline.dispose();
    if (!this.#response.body.destroyed) this.#response.body.destroy();
  }
}
