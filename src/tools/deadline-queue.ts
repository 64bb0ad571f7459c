import type { Clock } from '../core/index.js';

/** A registered deadline; pass it back to `remove` when the work finished in time. */
export interface Deadline {
  readonly dueMs: number;
  readonly expire: () => void;
}

/** A deadline in its queue's list (a list of its own entries rather than a `Set`: see `DeadlineQueue`). */
class Entry implements Deadline {
  readonly dueMs: number;
  readonly expire: () => void;
  /** The queue it is pending in; `undefined` once removed or expired. */
  owner: DeadlineQueue | undefined;
  previous: Entry | undefined = undefined;
  next: Entry | undefined = undefined;

  constructor(dueMs: number, expire: () => void, owner: DeadlineQueue) {
    this.dueMs = dueMs;
    this.expire = expire;
    this.owner = owner;
  }
}

/**
 * Many deadlines on one timer: one timer is armed for the earliest deadline, and calls that finish sooner
 * only add and remove an entry. Once nothing is pending the timer is cleared: a Node timer keeps the async
 * context it was armed in (a run's trace, through AsyncLocalStorage) until it fires, and a tool's timeout is
 * long (30 s by default), so a timer left armed held every finished run that long.
 *
 * The pending deadlines are a linked list of their own entries rather than a `Set`: a `Set` that empties after
 * every call (one tool call at a time) shrinks and regrows its table each time, and this runs on every call.
 */
export class DeadlineQueue {
  readonly #clock: Clock;
  #first: Entry | undefined;
  #last: Entry | undefined;
  #size = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedForMs = Number.POSITIVE_INFINITY;
  /** The timer callback, made once rather than per arming. */
  readonly #onTimer = (): void => this.#fire();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `expire` once the clock's monotonic time reaches `dueMs`, unless the deadline is removed first. */
  add(dueMs: number, expire: () => void): Deadline {
    const entry = new Entry(dueMs, expire, this);
    entry.previous = this.#last;
    if (this.#last === undefined) this.#first = entry;
    else this.#last.next = entry;
    this.#last = entry;
    this.#size += 1;
    if (dueMs < this.#armedForMs) this.#arm(dueMs);
    return entry;
  }

  /** Forgets a deadline (its work finished); unknown deadlines are ignored. */
  remove(deadline: Deadline): void {
    if (!(deadline instanceof Entry) || deadline.owner !== this) return;
    this.#unlink(deadline);
    if (this.#size === 0) this.#disarm();
  }

  /** Number of deadlines still pending. */
  get size(): number {
    return this.#size;
  }

  /** Whether a timer is armed (only while deadlines are pending). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  #unlink(entry: Entry): void {
    const { previous, next } = entry;
    if (previous === undefined) this.#first = next;
    else previous.next = next;
    if (next === undefined) this.#last = previous;
    else next.previous = previous;
    entry.previous = undefined;
    entry.next = undefined;
    entry.owner = undefined;
    this.#size -= 1;
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedForMs = Number.POSITIVE_INFINITY;
  }

  #arm(dueMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedForMs = dueMs;
    this.#timer = setTimeout(this.#onTimer, Math.max(0, dueMs - this.#clock.monotonicMs()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedForMs = Number.POSITIVE_INFINITY;
    const now = this.#clock.monotonicMs();
    let next = Number.POSITIVE_INFINITY;
    const expired: Entry[] = [];
    for (let entry = this.#first; entry !== undefined; entry = entry.next) {
      if (entry.dueMs <= now) expired.push(entry);
      else next = Math.min(next, entry.dueMs);
    }
    for (const entry of expired) {
      if (entry.owner === this) this.#unlink(entry);
      entry.expire();
    }
    if (next !== Number.POSITIVE_INFINITY && next < this.#armedForMs) this.#arm(next);
  }
}
