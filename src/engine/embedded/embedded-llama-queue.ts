/** A one-consumer async queue: a producer pushes items from callbacks, the consumer iterates them. */
export class ChunkQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #ended = false;
  #failure: { readonly error: unknown } | undefined;
  #wake: (() => void) | undefined;

  /** Adds an item for the consumer. */
  push(item: T): void {
    this.#items.push(item);
    this.#notify();
  }

  /** Ends the iteration once the queued items are consumed. */
  close(): void {
    this.#ended = true;
    this.#notify();
  }

  /** Makes the iteration throw `error` once the queued items are consumed. */
  fail(error: unknown): void {
    this.#failure = { error };
    this.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.#items.length > 0) {
        yield this.#items.shift() as T;
        continue;
      }
      if (this.#failure !== undefined) throw this.#failure.error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
