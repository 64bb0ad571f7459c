import {
  type Clock,
  EngineError,
  elapsedSeconds,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
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
import { type ContextLimits, checkContextLimits, chooseContextTokens } from './ollama-context.js';
import { describeOllamaHttpError } from './ollama-errors.js';
import { resolveOllamaHost } from './ollama-host.js';
import { NdjsonLineSplitter, OllamaStreamAssembler } from './ollama-stream.js';
import {
  buildOllamaChatBody,
  type OllamaThink,
  offeredTools,
  parseOllamaChat,
  parseOllamaTags,
} from './ollama-wire.js';
import { createToolCallIdFactory, type ToolCallIdFactory } from './openai-wire.js';
import { TextToolCallBuffer } from './text-tool-call-buffer.js';

/** Options of an `OllamaEngine`. */
export interface OllamaEngineOptions extends HttpEngineOptions {
  /** The server, as `OLLAMA_HOST` takes it (`host:port`, `http(s)://host:port[/path]`); default `http://127.0.0.1:11434`. */
  readonly host?: string;
  /** Registry key named in errors; default `ollama`. */
  readonly engineId?: string;
  /** Also read tool calls that the model wrote into its text when tools were offered; default true. */
  readonly textToolCalls?: boolean;
  /** Ollama `think`: turn a thinking model's reasoning on or off, or set its level; not sent when absent. */
  readonly think?: OllamaThink;
  /** Never ask for a context window (`num_ctx`) smaller than this; default 4096. */
  readonly minContextTokens?: number;
  /** Never ask for a context window larger than this; default 32768. */
  readonly maxContextTokens?: number;
}

const CHAT_PATH = '/api/chat';
const TAGS_PATH = '/api/tags';
const VERSION_PATH = '/api/version';

/**
 * An engine for Ollama's native API (`/api/chat`): tool calls with object arguments both ways, NDJSON streaming,
 * reasoning kept out of the answer, tool calls written as text recovered, and a context window sized to each
 * request (Ollama's small default would silently cut long prompts).
 */
export class OllamaEngine implements InferenceEngine {
  readonly engineId: string;
  /** The server's address, as resolved from `host`. */
  readonly baseUrl: string;
  readonly #http: HttpClient;
  readonly #options: OllamaEngineOptions;
  readonly #limits: ContextLimits;
  readonly #clock: Clock;
  readonly #makeId: ToolCallIdFactory;
  /** The largest context window asked for per model: Ollama reloads a model whenever `num_ctx` changes. */
  readonly #contextTokens = new Map<string, number>();

  constructor(options: OllamaEngineOptions = {}) {
    this.engineId = options.engineId ?? 'ollama';
    this.baseUrl = resolveOllamaHost(options.host);
    this.#limits = {
      minContextTokens: options.minContextTokens,
      maxContextTokens: options.maxContextTokens,
    };
    checkContextLimits(this.#limits);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#makeId = createToolCallIdFactory(options.random);
    this.#http = createEngineHttpClient(this.baseUrl, this.engineId, options);
  }

  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const body = this.#body(messages, options, false);
    const response = await this.#call(options.model, () =>
      this.#http.requestJson({ path: CHAT_PATH, body, model: options.model, ...signalOf(options) }),
    );
    const ttftSeconds = elapsedSeconds(this.#clock, startedMs);
    const parsed = this.#wire(() => parseOllamaChat(response.body, options.model, this.#makeId));
    const names = this.#textToolNames(options);
    return toGenerateResult(withTextToolCalls(parsed, names, this.#makeId), ttftSeconds);
  }

  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const startedMs = this.#clock.monotonicMs();
    const body = this.#body(messages, options, true);
    const response = await this.#call(options.model, () =>
      this.#http.requestStream({
        path: CHAT_PATH,
        body,
        model: options.model,
        ...signalOf(options),
      }),
    );
    try {
      for await (const chunk of withTimeToFirstChunk(
        this.#ndjson(response, options),
        this.#clock,
        startedMs,
      )) {
        yield chunk;
        // Lines already received are not worth finishing once the caller has cancelled.
        if (chunk.type !== 'end' && options.signal?.aborted) {
          throw this.#cancelled(response, options.signal.reason);
        }
      }
    } finally {
      response.cancel();
    }
  }

  async listModels(options: SignalOptions = {}): Promise<readonly string[]> {
    const response = await this.#http.requestJson({ path: TAGS_PATH, ...signalOf(options) });
    return this.#wire(() => parseOllamaTags(response.body), TAGS_PATH);
  }

  health(options: SignalOptions = {}): Promise<boolean> {
    return checkHealth(this.#http, VERSION_PATH, options, this.#options.healthTimeoutMs);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /** The request body, with a context window that fits the request and never shrinks for a model. */
  #body(messages: readonly Message[], options: GenerateOptions, stream: boolean) {
    const needed = chooseContextTokens(
      { messages, tools: offeredTools(options), maxTokens: options.maxTokens },
      this.#limits,
    );
    const contextTokens = Math.max(needed, this.#contextTokens.get(options.model) ?? 0);
    this.#contextTokens.set(options.model, contextTokens);
    return buildOllamaChatBody(messages, options, {
      stream,
      contextTokens,
      think: this.#options.think,
    });
  }

  /** Reads the NDJSON answer line by line, up to the line with `"done": true`. */
  async *#ndjson(
    response: HttpStreamResponse,
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const assembler = new OllamaStreamAssembler(options.model, this.#makeId);
    const buffer = new TextToolCallBuffer(this.#textToolNames(options), this.#makeId);
    const lines = new NdjsonLineSplitter();
    for await (const text of response.chunks) {
      for (const line of this.#wire(() => lines.push(text))) {
        yield* buffer.pass(this.#wire(() => assembler.push(line)));
        if (assembler.done) break;
      }
      if (assembler.done) {
        response.release();
        break;
      }
    }
    for (const line of assembler.done ? [] : this.#wire(() => lines.flush())) {
      yield* buffer.pass(this.#wire(() => assembler.push(line)));
    }
    if (!assembler.done) throw this.#streamCut(response);
    yield* buffer.end(
      this.#wire(() => assembler.finish()),
      {
        finishReason: assembler.finishReason,
        usage: assembler.usage,
        model: assembler.model,
      },
    );
  }

  /** Runs a request; Ollama's "model not found" and "does not support" answers become clear model errors. */
  async #call<T>(model: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw describeOllamaHttpError(error, model) ?? error;
    }
  }

  /** The tools whose calls are also looked for in the text: those offered, unless `textToolCalls` is off. */
  #textToolNames(options: GenerateOptions): string[] {
    if (this.#options.textToolCalls === false) return [];
    return offeredTools(options).map((tool) => tool.function.name);
  }

  #streamCut(response: HttpStreamResponse): EngineError {
    return new EngineError({
      code: 'engine_stream_cut',
      engineId: this.engineId,
      address: this.#http.redact(this.#http.address(CHAT_PATH)),
      detail: 'the stream ended before the answer was complete (no line with "done": true)',
      attempts: response.attempts,
    });
  }

  #cancelled(response: HttpStreamResponse, reason: unknown): EngineError {
    return new EngineError({
      code: 'engine_cancelled',
      engineId: this.engineId,
      address: this.#http.redact(this.#http.address(CHAT_PATH)),
      detail: 'the request was cancelled',
      attempts: response.attempts,
      cause: reason,
    });
  }

  /** Runs a wire-format step, turning its `WireFormatError` into an `EngineError`. */
  #wire<T>(step: () => T, path = CHAT_PATH): T {
    try {
      return step();
    } catch (error) {
      const redact = (text: string) => this.#http.redact(text);
      throw engineErrorFromWire(error, this.engineId, this.#http.address(path), redact);
    }
  }
}
