import type { AgentResult, AgentStreamEvent } from '../core/index.js';
import {
  type CompletionIdentity,
  chunkOf,
  finishReasonOf,
  usageChunkOf,
  usageOf,
} from './chat-response.js';
import type { ApiError } from './openai-error.js';

/** What a streamed answer needs besides the agent's events. */
export interface SseStreamOptions extends FrameStreamHooks {
  readonly identity: CompletionIdentity;
  readonly includeUsage: boolean;
  /** The API error a failed run is reported as (an SSE `error` event, then the stream closes). */
  readonly failure: (error: unknown) => ApiError;
}

/**
 * The SSE body of a streamed completion: a role chunk, a content chunk per text delta (the text of each turn,
 * a blank line between turns; an agent that does not stream sends its answer as one delta), a chunk with the
 * finish reason, a usage chunk when asked, then `data: [DONE]`. A failed run ends with `data: {"error": …}`.
 */
export function sseBody(
  events: AsyncIterable<AgentStreamEvent>,
  options: SseStreamOptions,
): ReadableStream<Uint8Array> {
  return frameStream(sseFrames(events, options), options);
}

/** What a frame stream tells its owner. */
export interface FrameStreamHooks {
  /** Called once when the stream ends, however it ends (done, failed, client gone). */
  readonly onEnd: () => void;
  /** Called when the client goes away, before the frames are closed (the run must be aborted). */
  readonly onCancel: () => void;
}

/**
 * A response body pulling text frames from `frames` as the client reads them; a client that goes away cancels
 * (`onCancel`, then the generator is closed), and `onEnd` runs once whichever way the stream ends.
 */
export function frameStream(
  frames: AsyncGenerator<string>,
  hooks: FrameStreamHooks,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    hooks.onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await frames.next();
        if (next.done) {
          end();
          controller.close();
        } else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    async cancel() {
      hooks.onCancel();
      await frames.return(undefined).catch(() => undefined);
      end();
    },
  });
}

async function* sseFrames(
  events: AsyncIterable<AgentStreamEvent>,
  options: SseStreamOptions,
): AsyncGenerator<string> {
  const { identity } = options;
  const usageField = options.includeUsage;
  yield frame(chunkOf(identity, { role: 'assistant', content: '' }, null, usageField));
  let result: AgentResult | undefined;
  try {
    result = yield* contentFrames(events, identity, usageField);
  } catch (error) {
    yield frame(options.failure(error).body());
    return;
  }
  yield frame(chunkOf(identity, {}, finishReasonOf(result), usageField));
  if (usageField) yield frame(usageChunkOf(identity, usageOf(result)));
  yield 'data: [DONE]\n\n';
}

/** Content chunks for the run's text; returns the run's result. */
async function* contentFrames(
  events: AsyncIterable<AgentStreamEvent>,
  identity: CompletionIdentity,
  usageField: boolean,
): AsyncGenerator<string, AgentResult> {
  let sent = false;
  let lastTurn: number | undefined;
  for await (const event of events) {
    if (event.type === 'text_delta' && event.text !== '') {
      const gap = sent && event.turn !== lastTurn ? '\n\n' : '';
      lastTurn = event.turn;
      sent = true;
      yield frame(chunkOf(identity, { content: gap + event.text }, null, usageField));
    } else if (event.type === 'result') {
      if (!sent && event.result.content !== '')
        yield frame(chunkOf(identity, { content: event.result.content }, null, usageField));
      return event.result;
    }
  }
  throw new Error('The agent stream ended without a result');
}

function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}
