import {
  type Clock,
  EngineError,
  elapsedSeconds,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  JarvisError,
  type Message,
  type SignalOptions,
  type StreamChunk,
  systemClock,
} from '../core/index.js';
import {
  checkHealth,
  createEngineHttpClient,
  engineErrorFromWire,
  type HttpEngineOptions,
  signalOf,
} from './engine-requests.js';
import { toGenerateResult, withTextToolCalls, withTimeToFirstChunk } from './engine-results.js';
import type { HttpClient, HttpStreamResponse } from './http-client.js';
import { describeOpenAIHttpError } from './openai-errors.js';
import {
  asRecord,
  buildChatCompletionBody,
  createToolCallIdFactory,
  OpenAIStreamAssembler,
  parseChatCompletion,
  sseData,
  type ToolCallIdFactory,
  WireFormatError,
} from './openai-wire.js';
import { endChunk, textChunks } from './stream-chunks.js';
import { TextToolCallBuffer } from './text-tool-call-buffer.js';

/** Where each OpenAI-compatible server listens by default (`openai` has none: pass its base URL). */
export const OPENAI_COMPATIBLE_DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  vllm: 'http://127.0.0.1:8000',
  llamacpp: 'http://127.0.0.1:8080',
  sglang: 'http://127.0.0.1:30000',
  lmstudio: 'http://127.0.0.1:1234',
};

/** Options of an `OpenAICompatibleEngine`. */
export interface OpenAICompatibleEngineOptions extends HttpEngineOptions {
  /** The server, with or without a trailing `/v1`; defaults by `engineId` (see `OPENAI_COMPATIBLE_DEFAULT_BASE_URLS`). */
  readonly baseUrl?: string;
  /** Registry key named in errors: `vllm`, `llamacpp`, `sglang`, `lmstudio`, `openai` (default). */
  readonly engineId?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /**
   * Also read tool calls that the model wrote into its text (for servers without a tool-call parser). Default:
   * on for the local servers (`vllm`, `llamacpp`, `sglang`, `lmstudio`), off for `openai`.
   */
  readonly textToolCalls?: boolean;
  /** Ask streams for a usage chunk (`stream_options.include_usage`); default true. */
  readonly streamUsage?: boolean;
}

const CHAT_PATH = '/v1/chat/completions';
const MODELS_PATH = '/v1/models';
/** Largest JSON answer accepted in place of a stream (as HttpClient's default body limit). */
const MAX_JSON_ANSWER_CHARS = 64 * 1024 * 1024;

/**
 * An engine for any server that speaks the OpenAI Chat Completions API (vLLM, llama.cpp server, SGLang,
 * LM Studio, OpenAI): tool calls, SSE streaming, reasoning kept out of the answer, retries on transient failures.
 */
export class OpenAICompatibleEngine implements InferenceEngine {
  readonly engineId: string;
  /** The server's address, without `/v1`. */
  readonly baseUrl: string;
  readonly #http: HttpClient;
  readonly #options: OpenAICompatibleEngineOptions;
  readonly #clock: Clock;
  readonly #makeId: ToolCallIdFactory;

  constructor(options: OpenAICompatibleEngineOptions = {}) {
    this.engineId = options.engineId ?? 'openai';
    this.baseUrl = resolveBaseUrl(this.engineId, options.baseUrl);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#makeId = createToolCallIdFactory(options.random);
    this.#http = createEngineHttpClient(
      this.baseUrl,
      this.engineId,
      {
        ...options,
        headers: {
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          ...options.headers,
        },
      },
      [options.apiKey],
    );
  }

  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const response = await this.#call(CHAT_PATH, options.model, () =>
      this.#http.requestJson({
        path: CHAT_PATH,
        body: buildChatCompletionBody(messages, options, { stream: false, includeUsage: false }),
        model: options.model,
        ...signalOf(options),
      }),
    );
    const ttftSeconds = elapsedSeconds(this.#clock, startedMs);
    const parsed = this.#wire(CHAT_PATH, () =>
      parseChatCompletion(response.body, options.model, this.#makeId),
    );
    const names = this.#textToolNames(options);
    return toGenerateResult(withTextToolCalls(parsed, names, this.#makeId), ttftSeconds);
  }

  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const startedMs = this.#clock.monotonicMs();
    const response = await this.#call(CHAT_PATH, options.model, () =>
      this.#http.requestStream({
        path: CHAT_PATH,
        body: buildChatCompletionBody(messages, options, {
          stream: true,
          includeUsage: this.#options.streamUsage ?? true,
        }),
        model: options.model,
        ...signalOf(options),
      }),
    );
    try {
      const source = isJson(response)
        ? this.#jsonAsStream(response, options)
        : this.#sse(response, options);
      yield* withTimeToFirstChunk(source, this.#clock, startedMs);
    } catch (error) {
      throw this.#asEngineError(CHAT_PATH, error);
    } finally {
      response.cancel();
    }
  }

  async listModels(options: SignalOptions = {}): Promise<readonly string[]> {
    const response = await this.#call(MODELS_PATH, undefined, () =>
      this.#http.requestJson({ path: MODELS_PATH, ...signalOf(options) }),
    );
    return this.#wire(MODELS_PATH, () => parseModelList(response.body));
  }

  health(options: SignalOptions = {}): Promise<boolean> {
    return checkHealth(this.#http, MODELS_PATH, options, this.#options.healthTimeoutMs);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /** Reads an SSE answer event by event. */
  async *#sse(response: HttpStreamResponse, options: GenerateOptions): AsyncGenerator<StreamChunk> {
    const assembler = new OpenAIStreamAssembler(options.model, this.#makeId);
    const buffer = new TextToolCallBuffer(this.#textToolNames(options), this.#makeId);
    for await (const data of sseData(response.chunks)) {
      yield* buffer.pass(assembler.push(data));
      if (assembler.done) {
        response.release();
        break;
      }
    }
    if (!assembler.complete) throw this.#streamCut(response);
    yield* buffer.end(assembler.finish(), {
      finishReason: assembler.finishReason ?? 'stop',
      usage: assembler.usage,
      model: assembler.model,
    });
  }

  /** A server that ignored `stream: true` and sent one JSON answer: replay it as a stream. */
  async *#jsonAsStream(
    response: HttpStreamResponse,
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    let text = '';
    for await (const piece of response.chunks) {
      text += piece;
      if (text.length > MAX_JSON_ANSWER_CHARS) {
        throw new WireFormatError(
          'engine_protocol_error',
          'the answer is larger than the body limit',
        );
      }
    }
    const body = parseJsonText(text);
    const parsed = withTextToolCalls(
      parseChatCompletion(body, options.model, this.#makeId),
      this.#textToolNames(options),
      this.#makeId,
    );
    yield* textChunks(parsed.reasoning, parsed.content);
    for (const toolCall of parsed.toolCalls) yield { type: 'tool_call', toolCall };
    yield endChunk(parsed);
  }

  /** The tools whose calls are also looked for in the text: those offered, when `textToolCalls` is on. */
  #textToolNames(options: GenerateOptions): string[] {
    if (!(this.#options.textToolCalls ?? this.engineId !== 'openai')) return [];
    return (options.tools ?? []).map((tool) => tool.function.name);
  }

  #streamCut(response: HttpStreamResponse): EngineError {
    return new EngineError({
      code: 'engine_stream_cut',
      engineId: this.engineId,
      address: this.#http.redact(this.#http.address(CHAT_PATH)),
      detail: 'the stream ended before the answer was complete (no finish_reason and no [DONE])',
      attempts: response.attempts,
    });
  }

  /** Runs a request; a refused key (401/403) or an unknown model or endpoint (404) becomes an error saying what to do. */
  async #call<T>(path: string, model: string | undefined, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const sentApiKey = this.#options.apiKey !== undefined && this.#options.apiKey !== '';
      const context = { path, sentApiKey };
      throw (
        describeOpenAIHttpError(error, model === undefined ? context : { ...context, model }) ??
        error
      );
    }
  }

  /** Runs a wire-format step, turning its `WireFormatError` into an `EngineError`. */
  #wire<T>(path: string, step: () => T): T {
    try {
      return step();
    } catch (error) {
      throw this.#asEngineError(path, error);
    }
  }

  #asEngineError(path: string, error: unknown): unknown {
    const redact = (text: string) => this.#http.redact(text);
    return engineErrorFromWire(error, this.engineId, this.#http.address(path), redact);
  }
}

function parseModelList(body: unknown): string[] {
  const data = asRecord(body)?.data;
  if (!Array.isArray(data)) {
    throw new WireFormatError(
      'engine_protocol_error',
      'expected {"data": [{"id": …}]} from the model list',
    );
  }
  return data.flatMap((item) => {
    const id = asRecord(item)?.id;
    return typeof id === 'string' ? [id] : [];
  });
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new WireFormatError('engine_protocol_error', 'the answer is not valid JSON');
  }
}

function isJson(response: HttpStreamResponse): boolean {
  const type = response.headers['content-type'];
  return typeof type === 'string' && type.includes('application/json');
}

/** The server address without a trailing slash or `/v1`, checked to be an http(s) URL. */
function resolveBaseUrl(engineId: string, baseUrl: string | undefined): string {
  const chosen = baseUrl ?? OPENAI_COMPATIBLE_DEFAULT_BASE_URLS[engineId];
  if (chosen === undefined || chosen.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `The '${engineId}' engine needs a baseUrl (for OpenAI: https://api.openai.com/v1); default addresses exist for ${Object.keys(OPENAI_COMPATIBLE_DEFAULT_BASE_URLS).join(', ')}`,
    });
  }
  return chosen.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}
