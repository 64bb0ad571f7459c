/** Why a request's run was stopped. */
export type StopReason = 'client_gone' | 'timeout';

/**
 * The signal of one request's run: aborted when the client disconnects or the time limit passes (whichever
 * comes first, remembered in `reason`). `dispose()` stops the timer and the listener.
 */
export class RequestDeadline {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #client: AbortSignal;
  readonly #onClientGone = () => this.stop('client_gone');
  #reason: StopReason | undefined;

  constructor(client: AbortSignal, timeoutMs: number) {
    this.signal = this.#controller.signal;
    this.#client = client;
    this.#timer = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (client.aborted) this.stop('client_gone');
    else client.addEventListener('abort', this.#onClientGone, { once: true });
  }

  /** Why the run was stopped, if it was. */
  get reason(): StopReason | undefined {
    return this.#reason;
  }

  /** Stops the run (first reason wins). */
  stop(reason: StopReason): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    const message = reason === 'timeout' ? 'request time limit passed' : 'client disconnected';
    this.#controller.abort(new DOMException(message, 'AbortError'));
  }

  /** Stops the timer and forgets the client signal. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#client.removeEventListener('abort', this.#onClientGone);
  }
}
