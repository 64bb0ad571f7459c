import type { Clock } from '../core/index.js';

/** A registered deadline; pass it back to `remove` when the work finished in time. */
export interface Deadline {
  readonly dueMs: number;
  readonly expire: () => void;
}

/**
 * Many deadlines on one timer. Starting and clearing a Node timer per tool call was the largest cost of a
 * fast call, so calls register here instead: one timer is armed for the earliest deadline, and it is
 * unref'd while nothing is pending so that an idle queue never keeps the process alive.
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
    else if (this.#pending.size === 1) this.#timer?.ref();
    return deadline;
  }

  /** Forgets a deadline (its work finished); unknown deadlines are ignored. */
  remove(deadline: Deadline): void {
    if (this.#pending.delete(deadline) && this.#pending.size === 0) this.#timer?.unref();
  }

  /** Number of deadlines still pending. */
  get size(): number {
    return this.#pending.size;
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
