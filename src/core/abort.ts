/** The reason `signal` was aborted with, or an `AbortError` with `message` when it has none. */
export function abortReason(
  signal: AbortSignal,
  message = 'The operation was cancelled.',
): unknown {
  return signal.reason ?? new DOMException(message, 'AbortError');
}

/** Throws the signal's abort reason when it is aborted; does nothing without a signal. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw abortReason(signal);
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts (with `reasonOf(signal)`, by default its
 * reason), for work that cannot be cancelled itself (DNS, a stream read, an engine that ignores its signal).
 * The late outcome of `promise` is then dropped, never left as an unhandled rejection.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  reasonOf: (signal: AbortSignal) => unknown = abortReason,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(ignore);
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reasonOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function ignore(): void {
  // The outcome of abandoned work is not wanted any more.
}
