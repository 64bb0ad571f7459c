import type { IncomingHttpHeaders } from 'node:http';
import type { Clock, EngineError, GenerateOptions, Message } from '../../core/index.js';
import type {
  ChatDialect,
  ChatRequestContext,
  DialectJsonRequest,
  StreamReader,
} from '../http/chat-dialect.js';
import type { ToolCallFormatChoice } from '../wire/formats/template-formats.js';
import { offeredTools } from '../wire/offered-tools.js';
import type { ParsedCompletion, ToolCallIdFactory } from '../wire/wire-format.js';
import { type ContextLimits, checkContextLimits, chooseContextTokens } from './ollama-context.js';
import { describeOllamaHttpError } from './ollama-errors.js';
import { OllamaFormatChooser } from './ollama-show.js';
import { OllamaNdjsonReader } from './ollama-stream.js';
import {
  buildOllamaChatBody,
  type OllamaThink,
  parseOllamaChat,
  parseOllamaTags,
} from './ollama-wire.js';

/** Settings of the Ollama dialect: its context window bounds, `think`, and how long to wait for `/api/show`. */
export interface OllamaDialectOptions extends ContextLimits {
  readonly think?: OllamaThink | undefined;
  /** Longest wait for `/api/show` before reading a model's tool calls by its name; default 2 s. */
  readonly showTimeoutMs?: number | undefined;
  /** Times when a refused `/api/show` is asked again. */
  readonly clock?: Clock | undefined;
}

/**
 * Ollama's native wire format: `/api/chat` with NDJSON streams, `/api/tags`, `/api/version`, a context
 * window (`num_ctx`) sized to each request that never shrinks for a model (Ollama reloads a model when it changes),
 * and text tool calls read in the format the model's template (`/api/show`, asked once per model) says.
 */
export class OllamaDialect implements ChatDialect {
  readonly chatPath = '/api/chat';
  readonly modelsPath = '/api/tags';
  readonly healthPath = '/api/version';
  readonly streamCutDetail =
    'the stream ended before the answer was complete (no line with "done": true)';
  readonly #options: OllamaDialectOptions;
  /** The largest context window asked for per model. */
  readonly #contextTokens = new Map<string, number>();
  readonly #formats: OllamaFormatChooser;

  /** Throws a `JarvisError` for context bounds it cannot use. */
  constructor(options: OllamaDialectOptions) {
    checkContextLimits(options);
    this.#options = options;
    this.#formats = new OllamaFormatChooser({
      timeoutMs: options.showTimeoutMs,
      clock: options.clock,
    });
  }

  /** The `/api/chat` body, with a context window that fits the request and never shrinks for a model. */
  buildBody(
    messages: readonly Message[],
    options: GenerateOptions,
    stream: boolean,
  ): Record<string, unknown> {
    const needed = chooseContextTokens(
      { messages, tools: offeredTools(options), maxTokens: options.maxTokens },
      this.#options,
    );
    const contextTokens = Math.max(needed, this.#contextTokens.get(options.model) ?? 0);
    this.#contextTokens.set(options.model, contextTokens);
    return buildOllamaChatBody(messages, options, {
      stream,
      contextTokens,
      think: this.#options.think,
    });
  }

  /** Reads a non-streamed `/api/chat` answer. */
  parseAnswer(body: unknown, requestedModel: string, makeId: ToolCallIdFactory): ParsedCompletion {
    return parseOllamaChat(body, requestedModel, makeId);
  }

  /** Reads an `/api/tags` answer. */
  parseModels(body: unknown): string[] {
    return parseOllamaTags(body);
  }

  /** An NDJSON reader. */
  openStream(
    _headers: IncomingHttpHeaders,
    requestedModel: string,
    makeId: ToolCallIdFactory,
  ): StreamReader {
    return new OllamaNdjsonReader(requestedModel, makeId);
  }

  /** The formats of `model`'s text tool calls, from its `/api/show` template, parser or family; never rejects. */
  toolCallFormats(
    model: string,
    request: DialectJsonRequest,
    signal: AbortSignal | undefined,
  ): Promise<ToolCallFormatChoice> {
    return this.#formats.choose(model, request, signal);
  }

  /** Ollama's "model not found" and "does not support" chat answers as model errors saying what to do. */
  describeHttpError(error: unknown, request: ChatRequestContext): EngineError | undefined {
    return request.model === undefined ? undefined : describeOllamaHttpError(error, request.model);
  }
}
