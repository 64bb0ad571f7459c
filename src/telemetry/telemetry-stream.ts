import {
  type Clock,
  describeError,
  elapsedSeconds,
  type StreamChunk,
  type TokenUsage,
  ZERO_USAGE,
} from '../core/index.js';

/** How a measured stream finished. */
export interface StreamOutcome {
  readonly usage: TokenUsage;
  readonly latencySeconds: number;
  /** Seconds until the first chunk of any kind (0 when none came). */
  readonly ttftSeconds: number;
  /** Why the model stopped, from the `end` chunk. */
  readonly finishReason?: string;
  /** Set when the stream threw, finished without an `end` chunk, or was abandoned before it. */
  readonly error?: string;
}

/** The error text recorded when a consumer stops reading a stream before its `end` chunk. */
export const STREAM_ABANDONED_ERROR = 'stream abandoned by the consumer before its end chunk';

/** The error text recorded when an engine's stream finishes without the `end` chunk the contract requires. */
export const STREAM_MISSING_END_ERROR = 'stream finished without an end chunk';

/**
 * Passes `open()`'s chunks through unchanged and calls `finish` exactly once when the stream ends, throws
 * (the error is rethrown) or is abandoned (`return()` on the iterator, for example a `break`); the time to
 * the first token is the time to the first chunk of any kind.
 */
export async function* measureStream(
  open: () => AsyncIterable<StreamChunk>,
  clock: Clock,
  finish: (outcome: StreamOutcome) => void,
): AsyncGenerator<StreamChunk, void, undefined> {
  const startedMs = clock.monotonicMs();
  let ttftSeconds: number | undefined;
  let usage: TokenUsage | undefined;
  let finishReason: string | undefined;
  let error: string | undefined = STREAM_ABANDONED_ERROR;
  try {
    for await (const chunk of open()) {
      ttftSeconds ??= elapsedSeconds(clock, startedMs);
      if (chunk.type === 'end') {
        usage = chunk.usage;
        finishReason = chunk.finishReason;
        // Complete from here on, even if the consumer stops reading right after this chunk.
        error = undefined;
      }
      yield chunk;
    }
    if (usage === undefined) error = STREAM_MISSING_END_ERROR;
  } catch (thrown) {
    error = describeError(thrown);
    throw thrown;
  } finally {
    finish({
      usage: usage ?? ZERO_USAGE,
      latencySeconds: elapsedSeconds(clock, startedMs),
      ttftSeconds: ttftSeconds ?? 0,
      ...(finishReason === undefined ? {} : { finishReason }),
      ...(error === undefined ? {} : { error }),
    });
  }
}
