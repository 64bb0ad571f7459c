/**
 * A one-consumer async queue: a producer pushes items from callbacks, the consumer iterates them. A consumer
 * already waiting gets a pushed item by resolving its pending `next()` directly, with no async generator in
 * between, so it runs within a tick or two of the producer's callback (before the producer's own continuation
 * gets far: for a token stream, that is the time to first token the caller sees).
 */
export class ChunkQueue<T> implements AsyncIterableIterator<T> {
  readonly #items: T[] = [];
  #ended = false;
  #failure: { readonly error: unknown } | undefined;
  #waiting:
    | {
        readonly resolve: (result: IteratorResult<T>) => void;
        readonly reject: (error: unknown) => void;
      }
    | undefined;
  readonly #onReturn: (() => Promise<void>) | undefined;

  /** `onReturn` runs when the consumer stops early (`break`, `return`, a throw in its loop); `return()` awaits it. */
  constructor(onReturn?: () => Promise<void>) {
    this.#onReturn = onReturn;
  }

  /** Adds an item for the consumer; ignored once the queue has ended. */
  push(item: T): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting === undefined) {
      this.#items.push(item);
      return;
    }
    this.#waiting = undefined;
    waiting.resolve({ value: item, done: false });
  }

  /** Ends the iteration once the queued items are consumed. */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve({ value: undefined, done: true });
  }

  /** Makes the iteration throw `error` once the queued items are consumed. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#failure = { error };
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }

  /** The next item, waiting for one when none is queued; done once the queue has ended and is empty. */
  next(): Promise<IteratorResult<T>> {
    if (this.#items.length > 0)
      return Promise.resolve({ value: this.#items.shift() as T, done: false });
    if (this.#failure !== undefined) {
      const { error } = this.#failure;
      this.#failure = undefined;
      return Promise.reject(error);
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    if (this.#waiting !== undefined)
      return Promise.reject(
        new Error('ChunkQueue has one consumer: wait for next() before calling it again'),
      );
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  /** Stops the iteration early: drops what is queued and runs `onReturn`. */
  async return(): Promise<IteratorResult<T>> {
    this.#items.length = 0;
    this.#failure = undefined;
    this.close();
    await this.#onReturn?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
