import type { IncomingHttpHeaders } from 'node:http';
import type { EngineError, GenerateOptions, Message } from '../../core/index.js';
import type { ChatDialect, ChatRequestContext, StreamReader } from '../http/chat-dialect.js';
import { JsonAnswerReader } from '../http/json-answer-reader.js';
import type { ParsedCompletion, ToolCallIdFactory } from '../wire/wire-format.js';
import { describeOpenAIHttpError } from './openai-errors.js';
import { OpenAISseReader } from './openai-stream.js';
import { buildChatCompletionBody, parseChatCompletion, parseModelList } from './openai-wire.js';

/** Settings of the OpenAI Chat Completions dialect. */
export interface OpenAIDialectOptions {
  /** Ask streams for a usage chunk (`stream_options.include_usage`). */
  readonly streamUsage: boolean;
  /** Whether an API key is sent (refusals then say the key is wrong rather than missing). */
  readonly sentApiKey: boolean;
}

/** The OpenAI Chat Completions wire format: `/v1/chat/completions`, SSE streams, `/v1/models`. */
export class OpenAIDialect implements ChatDialect {
  readonly chatPath = '/v1/chat/completions';
  readonly modelsPath = '/v1/models';
  readonly healthPath = '/v1/models';
  readonly streamCutDetail =
    'the stream ended before the answer was complete (no finish_reason and no [DONE])';
  readonly #options: OpenAIDialectOptions;

  constructor(options: OpenAIDialectOptions) {
    this.#options = options;
  }

  /** The `/v1/chat/completions` body. */
  buildBody(
    messages: readonly Message[],
    options: GenerateOptions,
    stream: boolean,
  ): Record<string, unknown> {
    const includeUsage = stream && this.#options.streamUsage;
    return buildChatCompletionBody(messages, options, { stream, includeUsage });
  }

  /** Reads a `chat.completion` body. */
  parseAnswer(body: unknown, requestedModel: string, makeId: ToolCallIdFactory): ParsedCompletion {
    return parseChatCompletion(body, requestedModel, makeId);
  }

  /** Reads a `/v1/models` body. */
  parseModels(body: unknown): string[] {
    return parseModelList(body);
  }

  /** An SSE reader, or a JSON reader for a server that ignored `stream: true`. */
  openStream(
    headers: IncomingHttpHeaders,
    requestedModel: string,
    makeId: ToolCallIdFactory,
  ): StreamReader {
    const type = headers['content-type'];
    if (typeof type === 'string' && type.includes('application/json')) {
      return new JsonAnswerReader((body) => parseChatCompletion(body, requestedModel, makeId));
    }
    return new OpenAISseReader(requestedModel, makeId);
  }

  /** A refused key (401/403) or an unknown model or endpoint (404) as an error saying what to do. */
  describeHttpError(error: unknown, request: ChatRequestContext): EngineError | undefined {
    return describeOpenAIHttpError(error, { ...request, sentApiKey: this.#options.sentApiKey });
  }
}
