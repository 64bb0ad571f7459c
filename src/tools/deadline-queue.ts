import type { Clock } from '../core/index.js';

/** A registered deadline; pass it back to `remove` when the work finished in time. */
export interface Deadline {
  readonly dueMs: number;
  readonly expire: () => void;
}

/**
 * Many deadlines on one timer: one timer is armed for the earliest deadline, and calls that finish sooner
 * only add and remove an entry. Once nothing is pending the timer is cleared: a Node timer keeps the async
 * context it was armed in (a run's trace, through AsyncLocalStorage) until it fires, and a tool's timeout is
 * long (30 s by default), so a timer left armed held every finished run that long.
 */
export class DeadlineQueue {
  readonly #clock: Clock;
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedForMs = Number.POSITIVE_INFINITY;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `expire` once the clock's monotonic time reaches `dueMs`, unless the deadline is removed first. */
  add(dueMs: number, expire: () => void): Deadline {
    const deadline: Deadline = { dueMs, expire };
    this.#pending.add(deadline);
    if (deadline.dueMs < this.#armedForMs) this.#arm(deadline.dueMs);
    return deadline;
  }

  /** Forgets a deadline (its work finished); unknown deadlines are ignored. */
  remove(deadline: Deadline): void {
    if (this.#pending.delete(deadline) && this.#pending.size === 0) this.#disarm();
  }

  /** Number of deadlines still pending. */
  get size(): number {
    return this.#pending.size;
  }

  /** Whether a timer is armed (only while deadlines are pending). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedForMs = Number.POSITIVE_INFINITY;
  }

  #arm(dueMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedForMs = dueMs;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, dueMs - this.#clock.monotonicMs()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedForMs = Number.POSITIVE_INFINITY;
    const now = this.#clock.monotonicMs();
    let next = Number.POSITIVE_INFINITY;
    const expired: Deadline[] = [];
    for (const deadline of this.#pending) {
      if (deadline.dueMs <= now) expired.push(deadline);
      else next = Math.min(next, deadline.dueMs);
    }
    for (const deadline of expired) {
      this.#pending.delete(deadline);
      deadline.expire();
    }
    if (next !== Number.POSITIVE_INFINITY && next < this.#armedForMs) this.#arm(next);
  }
}
