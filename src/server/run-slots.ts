/** Counts the runs going on and refuses one more than the limit (the server answers 429 then). */
export class RunSlots {
  readonly limit: number;
  #active = 0;

  constructor(limit: number) {
    if (!(Number.isInteger(limit) && limit > 0)) {
      throw new RangeError(`maxConcurrentRuns must be a positive integer, got ${String(limit)}`);
    }
    this.limit = limit;
  }

  /** How many runs hold a slot now. */
  get active(): number {
    return this.#active;
  }

  /** Takes a slot: a release function (safe to call twice), or `undefined` when every slot is taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.#active >= this.limit) return undefined;
    this.#active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
    };
  }
}
