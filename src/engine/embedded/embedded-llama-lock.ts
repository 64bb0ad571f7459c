/** Runs tasks one at a time, in the order they arrive; a task still waiting can be cancelled by its signal. */
export class SerialLock {
  #tail: Promise<void> = Promise.resolve();

  /** Waits for every earlier task, then runs `task`; rejects with `signal.reason` if aborted while waiting. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.#tail;
    let release = (): void => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next task waits for this one and, through `previous`, for every task before it, even when this
    // one gives up early.
    this.#tail = previous.then(() => done);
    try {
      await waitUnlessAborted(previous, signal);
      return await task();
    } finally {
      release();
    }
  }
}

function waitUnlessAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      () => {},
    );
  });
}
