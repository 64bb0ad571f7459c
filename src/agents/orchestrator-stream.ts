import {
  type AgentResult,
  type AgentStreamEvent,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  type Message,
  type StreamChunk,
  type ToolCall,
  throwIfAborted,
  ZERO_USAGE,
} from '../core/index.js';
import type { EmitEvent } from './orchestrator-turn.js';

/** One streamed model call of a run. */
export interface StreamedTurn {
  readonly engine: InferenceEngine;
  readonly messages: readonly Message[];
  readonly options: GenerateOptions;
  readonly turn: number;
  readonly emit: EmitEvent;
}

/**
 * Streams one model call, passing text and reasoning on as `text_delta` / `reasoning_delta` events, and
 * assembles the same `GenerateResult` that `generate` would have returned. Stops reading (which closes the
 * engine's stream) as soon as the call's signal aborts.
 */
export async function collectStream(call: StreamedTurn): Promise<GenerateResult> {
  const { emit, turn, options } = call;
  const { signal } = options;
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  let end: Extract<StreamChunk, { type: 'end' }> | undefined;
  for await (const chunk of call.engine.stream(call.messages, options)) {
    if (chunk.type === 'text_delta') {
      content += chunk.text;
      emit({ type: 'text_delta', turn, text: chunk.text });
    } else if (chunk.type === 'reasoning_delta') {
      reasoning += chunk.text;
      emit({ type: 'reasoning_delta', turn, text: chunk.text });
    } else if (chunk.type === 'tool_call') {
      toolCalls.push(chunk.toolCall);
    } else if (chunk.type === 'end') {
      end = chunk;
    }
    if (signal?.aborted === true) break;
  }
  throwIfAborted(signal);
  return {
    content,
    toolCalls,
    usage: end?.usage ?? ZERO_USAGE,
    finishReason: end?.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    model: end?.model ?? options.model,
    ttftSeconds: end?.ttftSeconds ?? 0,
    ...(reasoning === '' ? {} : { reasoning }),
  };
}

/**
 * Runs `start` (handing it a signal and an `emit` callback) and yields what it emits, then `result`; failures
 * are thrown. Stopping the iteration early cancels the run, which is awaited before the iteration ends.
 */
export async function* streamRun(
  signal: AbortSignal | undefined,
  start: (signal: AbortSignal, emit: EmitEvent) => Promise<AgentResult>,
): AsyncGenerator<AgentStreamEvent, void, undefined> {
  const controller = new AbortController();
  const unlink = linkSignal(signal, controller);
  const channel = new EventChannel<AgentStreamEvent>();
  let settled = false;
  const done = start(controller.signal, (event) => channel.push(event)).then(
    (result) => {
      settled = true;
      channel.push({ type: 'result', result });
      channel.end();
    },
    (error: unknown) => {
      settled = true;
      channel.fail(error);
    },
  );
  try {
    yield* channel.drain();
  } finally {
    // Reached before the run settled only when the consumer stopped reading: cancel it and let it wind down.
    if (!settled) {
      controller.abort(new DOMException('The stream was closed by its consumer.', 'AbortError'));
    }
    await done;
    unlink();
  }
}

/**
 * A queue between a producer that pushes events and one consumer that reads them with `for await`: events
 * are delivered in order, then the end, or the failure after the events pushed before it.
 */
export class EventChannel<T> {
  #buffer: T[] = [];
  #state: 'open' | 'ended' | 'failed' = 'open';
  #error: unknown;
  #wake: (() => void) | undefined;

  /** Queues an event. */
  push(value: T): void {
    if (this.#state !== 'open') return;
    this.#buffer.push(value);
    this.#notify();
  }

  /** Ends the channel once the queued events are read. */
  end(): void {
    if (this.#state !== 'open') return;
    this.#state = 'ended';
    this.#notify();
  }

  /** Makes the reader throw `error` once the queued events are read. */
  fail(error: unknown): void {
    if (this.#state !== 'open') return;
    this.#state = 'failed';
    this.#error = error;
    this.#notify();
  }

  /** Yields the events as they come. */
  async *drain(): AsyncGenerator<T, void, undefined> {
    for (;;) {
      if (this.#buffer.length > 0) {
        const batch = this.#buffer;
        this.#buffer = [];
        yield* batch;
        continue;
      }
      if (this.#state === 'ended') return;
      if (this.#state === 'failed') throw this.#error;
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

/** Aborts `controller` when `outer` aborts (with the same reason); returns a function that undoes the link. */
export function linkSignal(
  outer: AbortSignal | undefined,
  controller: AbortController,
): () => void {
  if (outer === undefined) return noop;
  if (outer.aborted) {
    controller.abort(outer.reason);
    return noop;
  }
  const onAbort = (): void => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return () => outer.removeEventListener('abort', onAbort);
}

function noop(): void {
  // Nothing to undo.
}
