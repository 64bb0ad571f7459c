/**
 * The four waits of a request to a model server, and the timers that enforce them: connecting, the first byte
 * of the answer, silence in the middle of an answer, and an overall deadline for the whole answer.
 */

/** Longest wait to open a connection: a server that exists accepts one in milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/**
 * Longest wait from sending a request to the first byte of its answer (`timeoutMs`). Loading a model into
 * memory and reading a long prompt on a CPU can take a minute or more, and a non-streamed answer arrives in one
 * piece when it is complete, so this stays generous; an attempt that hits it is retried at most once.
 */
export const DEFAULT_HTTP_TIMEOUT_MS = 120_000;
/** Longest silence once an answer has started: a model that is generating sends a token every few seconds. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Longest one answer may take in all (attempts, waits between them and reading the stream). */
export const DEFAULT_DEADLINE_MS = 600_000;

/** The timeout options an HTTP client or request may set. */
export interface TimeoutOptions {
  readonly connectTimeoutMs?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly idleTimeoutMs?: number | undefined;
  readonly deadlineMs?: number | undefined;
}

/** The resolved waits of one request, in milliseconds. */
export interface HttpTimeouts {
  readonly connectMs: number;
  readonly firstByteMs: number;
  readonly idleMs: number;
  readonly deadlineMs: number;
}

/**
 * Fills in the defaults. A `timeoutMs` smaller than a default also bounds the connect and idle waits, and a
 * larger one raises the deadline, so that one setting always means what it says.
 */
export function resolveTimeouts(options: TimeoutOptions): HttpTimeouts {
  const firstByteMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  return {
    connectMs: options.connectTimeoutMs ?? Math.min(DEFAULT_CONNECT_TIMEOUT_MS, firstByteMs),
    firstByteMs,
    idleMs: options.idleTimeoutMs ?? Math.min(DEFAULT_IDLE_TIMEOUT_MS, firstByteMs),
    deadlineMs: options.deadlineMs ?? Math.max(DEFAULT_DEADLINE_MS, firstByteMs),
  };
}

/** The timeouts of one request: the client's, with a request's own `timeoutMs` also bounding its idle wait. */
export function requestTimeouts(client: HttpTimeouts, timeoutMs: number | undefined): HttpTimeouts {
  if (timeoutMs === undefined) return client;
  return { ...client, firstByteMs: timeoutMs, idleMs: Math.min(client.idleMs, timeoutMs) };
}

/** Which wait ran out. */
export type TimeoutKind = 'first_byte' | 'idle' | 'deadline';

/**
 * The overall deadline of one request: one timer for all its attempts and its streamed body. Its signal is made
 * only when asked for (a wait between attempts); an attempt is told directly, through `onExpire`.
 */
export class RequestDeadline {
  #controller: AbortController | undefined;
  #expired = false;
  #listener: DeadlineListener | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly deadlineMs: number;

  constructor(deadlineMs: number) {
    this.deadlineMs = deadlineMs;
    this.#timer = setTimeout(() => this.#expire(), deadlineMs);
    // A stream its reader dropped without cancelling must not keep the process alive until the deadline.
    this.#timer.unref();
  }

  /** Aborted when the deadline passes. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#expired) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  get expired(): boolean {
    return this.#expired;
  }

  /** Tells `listener` when the deadline passes (one listener at a time: the attempt running). */
  onExpire(listener: DeadlineListener): void {
    this.#listener = listener;
  }

  /** Stops telling `listener` (when it is still the one set). */
  offExpire(listener: DeadlineListener): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  /** Stops the timer (the request is over). */
  dispose(): void {
    clearTimeout(this.#timer);
  }

  #expire(): void {
    this.#expired = true;
    this.#controller?.abort();
    this.#listener?.deadlinePassed();
  }
}

/** What a deadline tells when it passes: an object rather than a function, so that an attempt needs no closure. */
export interface DeadlineListener {
  deadlinePassed(): void;
}

/** What aborts one request: the transport sets its listener while the request runs. */
export interface AbortHook {
  /**
   * Sets the one listener called with the reason when the attempt is aborted (at once when it already was);
   * `undefined` removes it.
   */
  onAbort(listener: ((reason: unknown) => void) | undefined): void;
}

/**
 * The timer and cancellation of one attempt: the caller's signal, the deadline and its own timers abort it.
 * Aborting calls one listener (the request's) rather than an `AbortSignal`, which would cost an event target
 * and its listener bookkeeping on every request.
 */
export class AttemptScope implements AbortHook, DeadlineListener {
  /** The wait that ran out, when one did. */
  timedOut: TimeoutKind | undefined;
  cancelled = false;
  readonly timeouts: HttpTimeouts;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #deadline: RequestDeadline;
  #timer: NodeJS.Timeout | undefined;
  #timerKind: 'first_byte' | 'idle' = 'first_byte';
  /** How long the timer runs (a restart with `refresh()` runs it that long again). */
  #timerMs = 0;
  /**
   * The part of the first-byte wait still to come when the timer fires: the wait for the first byte runs on a
   * timer of the idle wait's length (when that is not longer), so that the switch to the idle wait when the
   * answer begins is a restart of the same timer rather than a second timer on every request.
   */
  #firstByteLeftMs = 0;
  #aborted = false;
  #reason: unknown;
  #listener: ((reason: unknown) => void) | undefined;
  /** Made only for a call with a signal; the one timer callback serves both waits (it reads `#timerKind`). */
  readonly #onCallerAbort: (() => void) | undefined;
  readonly #onTimer = () => this.#timerFired();

  constructor(
    callerSignal: AbortSignal | undefined,
    deadline: RequestDeadline,
    timeouts: HttpTimeouts,
  ) {
    this.#callerSignal = callerSignal;
    this.#deadline = deadline;
    this.timeouts = timeouts;
    if (callerSignal !== undefined) {
      const onCallerAbort = () => {
        this.cancelled = true;
        this.#abort(callerSignal.reason);
      };
      this.#onCallerAbort = onCallerAbort;
      callerSignal.addEventListener('abort', onCallerAbort, { once: true });
    }
    deadline.onExpire(this);
    if (callerSignal?.aborted) this.#onCallerAbort?.();
    else if (deadline.expired) this.deadlinePassed();
    this.startTimer('first_byte');
  }

  /** The request's overall deadline passed: the attempt is aborted as timed out. */
  deadlinePassed(): void {
    this.#expire('deadline');
  }

  /** Whether the attempt was aborted (cancelled, or a wait ran out). */
  get aborted(): boolean {
    return this.#aborted;
  }

  onAbort(listener: ((reason: unknown) => void) | undefined): void {
    this.#listener = listener;
    if (this.#aborted) listener?.(this.#reason);
  }

  /** Starts (or restarts) the wait for the first byte, or for the next piece of the body. */
  startTimer(kind: 'first_byte' | 'idle'): void {
    const { firstByteMs, idleMs } = this.timeouts;
    const timer = this.#timer;
    // The same wait restarted (a piece of the body arrived), or the idle wait after a first-byte wait on a
    // timer of its length, reuses the timer rather than making a new one.
    if (timer !== undefined && (this.#timerKind === kind || this.#timerMs === idleMs)) {
      this.#timerKind = kind;
      this.#firstByteLeftMs = kind === 'first_byte' ? firstByteMs - this.#timerMs : 0;
      timer.refresh();
      return;
    }
    this.stopTimer();
    this.#timerKind = kind;
    if (kind === 'idle') this.#arm(idleMs);
    else if (idleMs <= firstByteMs) {
      this.#firstByteLeftMs = firstByteMs - idleMs;
      this.#arm(idleMs);
    } else this.#arm(firstByteMs);
  }

  stopTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#firstByteLeftMs = 0;
  }

  dispose(): void {
    this.stopTimer();
    if (this.#onCallerAbort !== undefined)
      this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
    this.#deadline.offExpire(this);
  }

  #arm(ms: number): void {
    this.#timerMs = ms;
    // Unreferenced: the request's socket keeps the process alive while it runs, and Node keeps the timer list
    // of an unreferenced duration when it empties (a referenced one is freed and made again on every request).
    this.#timer = setTimeout(this.#onTimer, ms);
    this.#timer.unref();
  }

  /** The timer ran out: the wait it serves is over, or the first-byte wait goes on for the part still left. */
  #timerFired(): void {
    const leftMs = this.#firstByteLeftMs;
    if (this.#timerKind === 'first_byte' && leftMs > 0) {
      this.#firstByteLeftMs = 0;
      this.#arm(leftMs);
      return;
    }
    this.#timer = undefined;
    this.#expire(this.#timerKind);
  }

  #expire(kind: TimeoutKind): void {
    if (this.#aborted) return;
    this.timedOut = kind;
    this.#abort(new Error(`${kind} timeout`));
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    // As `AbortController.abort()` would: no reason given means an `AbortError`.
    this.#reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#listener?.(this.#reason);
  }
}
