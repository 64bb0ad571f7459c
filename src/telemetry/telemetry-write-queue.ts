/** What the queue tells its owner about a failed write. */
export interface WriteFailure {
  readonly error: unknown;
  /** Items given up on (refused by the database, or not taken because the queue was full). */
  readonly dropped: number;
  /** Items still waiting to be written. */
  readonly waiting: number;
  /** When the next attempt is made, for a write kept for later; undefined when nothing is retried. */
  readonly retryInMs?: number | undefined;
}

/** Options of a `WriteQueue`. */
export interface WriteQueueOptions<T> {
  /** Writes a batch all or nothing (one transaction). */
  readonly write: (batch: readonly T[]) => Promise<void>;
  /** Most items per write. */
  readonly batchSize: number;
  /** How long a small batch waits for company before it is written. */
  readonly flushDelayMs: number;
  /** Most items kept waiting; later ones are dropped (and reported) until the queue drains. */
  readonly maxQueued: number;
  /** The first wait after a failure to reach the database; it doubles on each failure up to `maxRetryDelayMs`. */
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  /** How `error` is handled: `retry` the batch later (database unreachable), `isolate` the item it refused, or `drop` the batch. */
  readonly classify: (error: unknown) => 'retry' | 'isolate' | 'drop';
  /** Told of every failed write. */
  readonly onFailure: (failure: WriteFailure) => void;
}

/**
 * A queue of fire-and-forget writes: items are written in batches in the background (when a batch is full or
 * after `flushDelayMs`), a batch the database could not take is kept and tried again with backoff, and items
 * the database refuses are dropped one by one and reported. Its timers never keep the process alive.
 */
export class WriteQueue<T> {
  readonly #options: WriteQueueOptions<T>;
  readonly #items: T[] = [];
  #pumping: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #retryDelayMs: number;
  #backingOff = false;
  #full = false;
  #closing = false;

  constructor(options: WriteQueueOptions<T>) {
    this.#options = options;
    this.#retryDelayMs = options.retryDelayMs;
  }

  /** Items waiting to be written. */
  get size(): number {
    return this.#items.length;
  }

  /** True while a write failed for want of the database and the next attempt waits. */
  get backingOff(): boolean {
    return this.#backingOff;
  }

  /** Queues an item; false (and reported) when the queue is full. */
  push(item: T): boolean {
    if (this.#items.length >= this.#options.maxQueued) {
      if (!this.#full) {
        this.#full = true;
        const error = new Error(`${this.#options.maxQueued} writes are waiting already`);
        this.#options.onFailure({ error, dropped: 1, waiting: this.#items.length });
      }
      return false;
    }
    this.#full = false;
    this.#items.push(item);
    if (this.#backingOff || this.#closing) return true;
    if (this.#items.length >= this.#options.batchSize) void this.drain();
    else this.#timer ??= unref(setTimeout(() => void this.drain(), this.#options.flushDelayMs));
    return true;
  }

  /**
   * Writes what is queued now (also during a backoff), returning when the queue is empty or a write failed for
   * want of the database; never rejects.
   */
  drain(): Promise<void> {
    this.#clearTimer();
    this.#backingOff = false;
    this.#pumping ??= this.#pump().finally(() => {
      this.#pumping = undefined;
    });
    return this.#pumping;
  }

  /** Stops the timers and makes one last attempt; resolves to the number of items left unwritten. */
  async close(): Promise<number> {
    this.#closing = true;
    await this.#pumping;
    await this.drain();
    this.#clearTimer();
    return this.#items.length;
  }

  async #pump(): Promise<void> {
    while (this.#items.length > 0) {
      const batch = this.#items.slice(0, this.#options.batchSize);
      try {
        await this.#options.write(batch);
        this.#items.splice(0, batch.length);
        this.#retryDelayMs = this.#options.retryDelayMs;
      } catch (error) {
        const how = this.#options.classify(error);
        if (how === 'retry') return this.#backOff(error);
        if (how === 'drop' || batch.length === 1) this.#drop(batch.length, error);
        else if (!(await this.#isolate(batch))) return;
      }
    }
  }

  /** Writes a refused batch item by item, dropping those refused; false when the database went away. */
  async #isolate(batch: readonly T[]): Promise<boolean> {
    for (const item of batch) {
      try {
        await this.#options.write([item]);
        this.#items.shift();
      } catch (error) {
        if (this.#options.classify(error) === 'retry') {
          this.#backOff(error);
          return false;
        }
        this.#drop(1, error);
      }
    }
    return true;
  }

  #drop(count: number, error: unknown): void {
    this.#items.splice(0, count);
    this.#options.onFailure({ error, dropped: count, waiting: this.#items.length });
  }

  #backOff(error: unknown): void {
    if (this.#closing) {
      this.#options.onFailure({ error, dropped: 0, waiting: this.#items.length });
      return;
    }
    const delayMs = this.#retryDelayMs;
    this.#retryDelayMs = Math.min(delayMs * 2, this.#options.maxRetryDelayMs);
    this.#backingOff = true;
    this.#clearTimer();
    this.#timer = unref(setTimeout(() => void this.drain(), delayMs));
    this.#options.onFailure({ error, dropped: 0, waiting: this.#items.length, retryInMs: delayMs });
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function unref(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
