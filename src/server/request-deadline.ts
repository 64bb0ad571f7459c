import type { Context } from 'hono';

/** Why a request's run was stopped. */
export type StopReason = 'client_gone' | 'timeout';

/**
 * The Node response of a request served by `@hono/node-server` (its `c.env.outgoing`): it closes before it
 * finished when the client goes away.
 */
export interface NodeResponseLike {
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** What tells a run that its client went away: the request's signal, or the Node response. */
export type ClientConnection = AbortSignal | NodeResponseLike;

/**
 * The cheapest way to learn that a request's client went away: under `@hono/node-server`, the Node response's
 * `close` event (reading `c.req.raw.signal` there makes the adapter build an `AbortController` per request just
 * for this); elsewhere (`app.request`, other runtimes), the request's signal.
 */
export function clientConnectionOf(c: Context): ClientConnection {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return isNodeResponse(outgoing) ? outgoing : c.req.raw.signal;
}

function isNodeResponse(value: unknown): value is NodeResponseLike {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof NodeResponseLike, unknown>>;
  return (
    typeof candidate.on === 'function' &&
    typeof candidate.off === 'function' &&
    typeof candidate.writableFinished === 'boolean'
  );
}

/**
 * The signal of one request's run: aborted when the client disconnects or the time limit passes (whichever
 * comes first, remembered in `reason`). `dispose()` stops the timer and the listener.
 */
export class RequestDeadline {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #client: ClientConnection;
  /** The client's `abort`, or the response's `close` (which also comes after a finished answer). */
  readonly #onClientGone = () => {
    const client = this.#client;
    if (client instanceof AbortSignal || !client.writableFinished) this.stop('client_gone');
  };
  #reason: StopReason | undefined;

  constructor(client: ClientConnection, timeoutMs: number) {
    this.signal = this.#controller.signal;
    this.#client = client;
    this.#timer = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (client instanceof AbortSignal) {
      if (client.aborted) this.stop('client_gone');
      else client.addEventListener('abort', this.#onClientGone, { once: true });
    } else if (client.destroyed && !client.writableFinished) {
      this.stop('client_gone');
    } else {
      client.on('close', this.#onClientGone);
    }
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

  /** Stops the timer and forgets the client. */
  dispose(): void {
    clearTimeout(this.#timer);
    const client = this.#client;
    if (client instanceof AbortSignal) client.removeEventListener('abort', this.#onClientGone);
    else client.off('close', this.#onClientGone);
  }
}
