import type { IncomingHttpHeaders } from 'node:http';
import type { EngineError, GenerateOptions, Message } from '../../core/index.js';
import type { ChatDialect, ChatRequestContext, StreamReader } from '../http/chat-dialect.js';
import { offeredTools } from '../wire/offered-tools.js';
import type { ParsedCompletion, ToolCallIdFactory } from '../wire/wire-format.js';
import { type ContextLimits, checkContextLimits, chooseContextTokens } from './ollama-context.js';
import { describeOllamaHttpError } from './ollama-errors.js';
import { OllamaNdjsonReader } from './ollama-stream.js';
import {
  buildOllamaChatBody,
  type OllamaThink,
  parseOllamaChat,
  parseOllamaTags,
} from './ollama-wire.js';

/** Settings of the Ollama dialect: its context window bounds and `think`. */
export interface OllamaDialectOptions extends ContextLimits {
  readonly think?: OllamaThink | undefined;
}

/**
 * Ollama's native wire format: `/api/chat` with NDJSON streams, `/api/tags`, `/api/version`, and a context
 * window (`num_ctx`) sized to each request that never shrinks for a model (Ollama reloads a model when it changes).
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

  /** Throws a `JarvisError` for context bounds it cannot use. */
  constructor(options: OllamaDialectOptions) {
    checkContextLimits(options);
    this.#options = options;
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

  /** Ollama's "model not found" and "does not support" chat answers as model errors saying what to do. */
  describeHttpError(error: unknown, request: ChatRequestContext): EngineError | undefined {
    return request.model === undefined ? undefined : describeOllamaHttpError(error, request.model);
  }
}
