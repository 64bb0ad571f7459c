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
import { HttpClient, type HttpStreamResponse, type SleepFunction } from './http-client.js';
import {
  asRecord,
  buildChatCompletionBody,
  createToolCallIdFactory,
  OpenAIStreamAssembler,
  type ParsedCompletion,
  parseChatCompletion,
  sseData,
  type ToolCallIdFactory,
  WireFormatError,
} from './openai-wire.js';
import { extractTextToolCalls, type TextToolCalls } from './text-tool-calls.js';

/** Where each OpenAI-compatible server listens by default (`openai` has none: pass its base URL). */
export const OPENAI_COMPATIBLE_DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  vllm: 'http://127.0.0.1:8000',
  llamacpp: 'http://127.0.0.1:8080',
  sglang: 'http://127.0.0.1:30000',
  lmstudio: 'http://127.0.0.1:1234',
};

/** Options of an `OpenAICompatibleEngine`. */
export interface OpenAICompatibleEngineOptions {
  /** The server, with or without a trailing `/v1`; defaults by `engineId` (see `OPENAI_COMPATIBLE_DEFAULT_BASE_URLS`). */
  readonly baseUrl?: string;
  /** Registry key named in errors: `vllm`, `llamacpp`, `sglang`, `lmstudio`, `openai` (default). */
  readonly engineId?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Longest wait for one attempt (default 120 s); in a stream, for the headers and for each gap between chunks. */
  readonly timeoutMs?: number;
  /** Longest wait of `health()` (default 2 s). */
  readonly healthTimeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Also read tool calls that the model wrote into its text (for servers without a tool-call parser). Default:
   * on for the local servers (`vllm`, `llamacpp`, `sglang`, `lmstudio`), off for `openai`.
   */
  readonly textToolCalls?: boolean;
  /** Ask streams for a usage chunk (`stream_options.include_usage`); default true. */
  readonly streamUsage?: boolean;
  /** Extra attempts after a transient failure; default 2. */
  readonly maxRetries?: number;
  readonly retryBaseDelayMs?: number;
  readonly clock?: Clock;
  /** Randomness for backoff jitter and generated tool-call ids. */
  readonly random?: () => number;
  readonly sleep?: SleepFunction;
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
    this.#http = new HttpClient({
      baseUrl: this.baseUrl,
      engineId: this.engineId,
      headers: {
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      ...pick(options, ['timeoutMs', 'maxRetries', 'retryBaseDelayMs', 'random', 'sleep', 'clock']),
    });
  }

  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const response = await this.#http.requestJson({
      path: CHAT_PATH,
      body: buildChatCompletionBody(messages, options, { stream: false, includeUsage: false }),
      ...signalOf(options),
    });
    const ttftSeconds = elapsedSeconds(this.#clock, startedMs);
    const parsed = this.#wire(CHAT_PATH, () =>
      parseChatCompletion(response.body, options.model, this.#makeId),
    );
    return toResult(this.#withTextToolCalls(parsed, options), ttftSeconds);
  }

  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const startedMs = this.#clock.monotonicMs();
    const response = await this.#http.requestStream({
      path: CHAT_PATH,
      body: buildChatCompletionBody(messages, options, {
        stream: true,
        includeUsage: this.#options.streamUsage ?? true,
      }),
      ...signalOf(options),
    });
    let ttftSeconds: number | undefined;
    try {
      const source = isJson(response)
        ? this.#jsonAsStream(response, options)
        : this.#sse(response, options);
      for await (const chunk of source) {
        ttftSeconds ??= elapsedSeconds(this.#clock, startedMs);
        yield chunk.type === 'end' ? { ...chunk, ttftSeconds } : chunk;
      }
    } catch (error) {
      throw this.#asEngineError(CHAT_PATH, error);
    } finally {
      response.cancel();
    }
  }

  async listModels(options: SignalOptions = {}): Promise<readonly string[]> {
    const response = await this.#http.requestJson({ path: MODELS_PATH, ...signalOf(options) });
    return this.#wire(MODELS_PATH, () => parseModelList(response.body));
  }

  async health(options: SignalOptions = {}): Promise<boolean> {
    try {
      await this.#http.requestJson({
        path: MODELS_PATH,
        timeoutMs: this.#options.healthTimeoutMs ?? 2_000,
        maxRetries: 0,
        ...signalOf(options),
      });
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /** Reads an SSE answer event by event. */
  async *#sse(response: HttpStreamResponse, options: GenerateOptions): AsyncGenerator<StreamChunk> {
    const assembler = new OpenAIStreamAssembler(options.model, this.#makeId);
    const buffer = this.#bufferForTextToolCalls(options);
    for await (const data of sseData(response.chunks)) {
      yield* buffer.pass(assembler.push(data));
      if (assembler.done) {
        response.release();
        break;
      }
    }
    if (!assembler.complete) throw this.#streamCut(response);
    yield* buffer.end(assembler.finish(), assembler.finishReason ?? 'stop');
    yield {
      type: 'end',
      finishReason: buffer.finishReason ?? assembler.finishReason ?? 'stop',
      usage: assembler.usage,
      model: assembler.model,
      ttftSeconds: 0,
    };
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
    const parsed = this.#withTextToolCalls(
      parseChatCompletion(body, options.model, this.#makeId),
      options,
    );
    if (parsed.reasoning !== '') yield { type: 'reasoning_delta', text: parsed.reasoning };
    if (parsed.content !== '') yield { type: 'text_delta', text: parsed.content };
    for (const toolCall of parsed.toolCalls) yield { type: 'tool_call', toolCall };
    yield {
      type: 'end',
      finishReason: parsed.finishReason,
      usage: parsed.usage,
      model: parsed.model,
      ttftSeconds: 0,
    };
  }

  #withTextToolCalls(parsed: ParsedCompletion, options: GenerateOptions): ParsedCompletion {
    const names = this.#textToolNames(options);
    if (names.length === 0 || parsed.toolCalls.length > 0) return parsed;
    let count = 0;
    const found = extractTextToolCalls(parsed.content, names, {
      generateId: () => this.#makeId(count++),
    });
    if (found === undefined || found.toolCalls.length === 0) return parsed;
    return {
      ...parsed,
      content: found.content,
      toolCalls: found.toolCalls,
      finishReason: 'tool_calls',
    };
  }

  #textToolNames(options: GenerateOptions): string[] {
    if (!(this.#options.textToolCalls ?? this.engineId !== 'openai')) return [];
    return (options.tools ?? []).map((tool) => tool.function.name);
  }

  /** Streams pass straight through, unless text tool calls are on: then the answer text waits for the end. */
  #bufferForTextToolCalls(options: GenerateOptions): TextBuffer {
    const names = this.#textToolNames(options);
    return new TextBuffer(names, (content) => {
      let count = 0;
      return extractTextToolCalls(content, names, { generateId: () => this.#makeId(count++) });
    });
  }

  #streamCut(response: HttpStreamResponse): EngineError {
    return new EngineError({
      code: 'engine_stream_cut',
      engineId: this.engineId,
      address: this.#http.address(CHAT_PATH),
      detail: 'the stream ended before the answer was complete (no finish_reason and no [DONE])',
      attempts: response.attempts,
    });
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
    if (!(error instanceof WireFormatError)) return error;
    return new EngineError({
      code: error.code,
      engineId: this.engineId,
      address: this.#http.address(path),
      detail: error.message,
      cause: error,
    });
  }
}

type TextToolCallExtractor = (content: string) => TextToolCalls | undefined;

/** Collects stream text when text tool calls must be looked for; otherwise passes chunks straight on. */
class TextBuffer {
  finishReason: string | undefined;
  #text = '';
  readonly #names: readonly string[];
  readonly #extract: TextToolCallExtractor;

  constructor(names: readonly string[], extract: TextToolCallExtractor) {
    this.#names = names;
    this.#extract = extract;
  }

  *pass(chunks: readonly StreamChunk[]): Generator<StreamChunk> {
    for (const chunk of chunks) {
      if (this.#names.length > 0 && chunk.type === 'text_delta') this.#text += chunk.text;
      else yield chunk;
    }
  }

  *end(finish: readonly StreamChunk[], finishReason: string): Generator<StreamChunk> {
    const hasNativeCalls = finish.some((chunk) => chunk.type === 'tool_call');
    const texts = [...this.pass(finish)];
    const found = hasNativeCalls || this.#text === '' ? undefined : this.#extract(this.#text);
    const content = found === undefined ? this.#text : found.content;
    if (content !== '') yield { type: 'text_delta', text: content };
    yield* texts;
    if (found !== undefined && found.toolCalls.length > 0) {
      for (const toolCall of found.toolCalls) yield { type: 'tool_call', toolCall };
      this.finishReason = 'tool_calls';
    } else {
      this.finishReason = finishReason;
    }
  }
}

function toResult(parsed: ParsedCompletion, ttftSeconds: number): GenerateResult {
  const result: GenerateResult = {
    content: parsed.content,
    toolCalls: parsed.toolCalls,
    usage: parsed.usage,
    finishReason: parsed.finishReason,
    model: parsed.model,
    ttftSeconds,
  };
  return parsed.reasoning === '' ? result : { ...result, reasoning: parsed.reasoning };
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

function signalOf(options: SignalOptions): { signal?: AbortSignal } {
  return options.signal === undefined ? {} : { signal: options.signal };
}

function pick<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const result: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    if (source[key] !== undefined) result[key] = source[key];
  }
  return result;
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
