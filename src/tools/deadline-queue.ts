import { type Clock, LinkedList, type ListLinks } from '../core/index.js';

/** A registered deadline; pass it back to `remove` when the work finished in time. */
export interface Deadline {
  readonly dueMs: number;
  readonly expire: () => void;
}

/** A deadline in its queue's list (a list of its own entries rather than a `Set`: see `DeadlineQueue`). */
class Entry implements Deadline, ListLinks<Entry> {
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
 * The pending deadlines are a `LinkedList` rather than a `Set`: a `Set` that empties after every call (one tool
 * call at a time) shrinks and regrows its table each time, and this runs on every call.
 */
export class DeadlineQueue {
  readonly #clock: Clock;
  readonly #pending = new LinkedList<Entry>();
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
    this.#pending.push(entry);
    if (dueMs < this.#armedForMs) this.#arm(dueMs);
    return entry;
  }

  /** Forgets a deadline (its work finished); unknown deadlines are ignored. */
  remove(deadline: Deadline): void {
    if (!(deadline instanceof Entry) || deadline.owner !== this) return;
    this.#unlink(deadline);
    if (this.#pending.size === 0) this.#disarm();
  }

  /** Number of deadlines still pending. */
  get size(): number {
    return this.#pending.size;
  }

  /** Whether a timer is armed (only while deadlines are pending). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  #unlink(entry: Entry): void {
    this.#pending.remove(entry);
    entry.owner = undefined;
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
    for (let entry = this.#pending.first; entry !== undefined; entry = entry.next) {
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
