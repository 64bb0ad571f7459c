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
} from '../../core/index.js';
import {
  toGenerateResult,
  withTextToolCalls,
  withTimeToFirstChunk,
} from '../wire/engine-results.js';
import { toolCallFormatsNamed } from '../wire/formats/family-formats.js';
import type { ToolCallFormat } from '../wire/formats/tool-call-format.js';
import { textToolSet } from '../wire/offered-tools.js';
import { TextToolCallBuffer } from '../wire/text-tool-call-buffer.js';
import { createToolCallIdFactory, type ToolCallIdFactory } from '../wire/wire-format.js';
import type { ChatDialect, ChatRequestContext } from './chat-dialect.js';
import {
  checkHealth,
  createEngineHttpClient,
  engineErrorFromWire,
  type HttpEngineOptions,
  signalOf,
} from './engine-requests.js';
import type { HttpClient, HttpStreamResponse } from './http-client.js';

/** Options of an `HttpChatEngine`: the server, its wire dialect, and how requests are sent. */
export interface HttpChatEngineOptions extends HttpEngineOptions {
  /** Registry key named in errors and logs. */
  readonly engineId: string;
  /** The server's address, as the dialect's paths are appended to it. */
  readonly baseUrl: string;
  readonly dialect: ChatDialect;
  /** Also read tool calls that the model wrote into its text, among the tools the call offers. */
  readonly textToolCalls: boolean;
  /**
   * The format the model writes tool calls in as text (`qwen3-coder`, `glm-4.5`, `hermes`, …: a
   * `ToolCallFormat` name), read before the others; default: chosen from the model's name.
   */
  readonly toolCallFormat?: string | undefined;
  /** Values never to show in errors and logs (API keys). */
  readonly secrets?: readonly (string | undefined)[];
}

/**
 * An engine for a chat server over HTTP, whatever its wire format: whole and streamed answers (a cut-off stream
 * throws, a cancelled one stops at the next chunk), tool calls written as text recovered among the offered tools,
 * the model list, a health check that never throws, and retries on transient failures.
 */
export class HttpChatEngine implements InferenceEngine {
  readonly engineId: string;
  /** The server's address. */
  readonly baseUrl: string;
  readonly #http: HttpClient;
  readonly #dialect: ChatDialect;
  readonly #clock: Clock;
  readonly #makeId: ToolCallIdFactory;
  readonly #textToolCalls: boolean;
  readonly #formats: readonly ToolCallFormat[] | undefined;
  readonly #healthTimeoutMs: number | undefined;

  constructor(options: HttpChatEngineOptions) {
    this.engineId = options.engineId;
    this.baseUrl = options.baseUrl;
    this.#dialect = options.dialect;
    this.#clock = options.clock ?? systemClock;
    this.#makeId = createToolCallIdFactory(options.random);
    this.#textToolCalls = options.textToolCalls;
    this.#formats =
      options.toolCallFormat === undefined
        ? undefined
        : toolCallFormatsNamed(options.toolCallFormat);
    this.#healthTimeoutMs = options.healthTimeoutMs;
    this.#http = createEngineHttpClient(this.baseUrl, this.engineId, options, options.secrets);
  }

  /** Sends the conversation and resolves to the whole answer. */
  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const path = this.#dialect.chatPath;
    const body = this.#dialect.buildBody(messages, options, false);
    const response = await this.#call({ path, model: options.model }, () =>
      this.#http.requestJson({ path, body, model: options.model, ...signalOf(options) }),
    );
    const ttftSeconds = elapsedSeconds(this.#clock, startedMs);
    const parsed = this.#wire(path, () =>
      this.#dialect.parseAnswer(response.body, options.model, this.#makeId),
    );
    const tools = textToolSet(options, this.#textToolCalls);
    return toGenerateResult(
      withTextToolCalls(parsed, tools, this.#makeId, this.#formats),
      ttftSeconds,
    );
  }

  /** Sends the conversation and yields the answer as it arrives, then one `end` chunk. */
  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const startedMs = this.#clock.monotonicMs();
    const path = this.#dialect.chatPath;
    const body = this.#dialect.buildBody(messages, options, true);
    const response = await this.#call({ path, model: options.model }, () =>
      this.#http.requestStream({ path, body, model: options.model, ...signalOf(options) }),
    );
    try {
      const chunks = withTimeToFirstChunk(this.#read(response, options), this.#clock, startedMs);
      for await (const chunk of chunks) {
        yield chunk;
        // Pieces already received are not worth finishing once the caller has cancelled.
        if (chunk.type !== 'end' && options.signal?.aborted) {
          throw this.#cancelled(response, options.signal.reason);
        }
      }
    } catch (error) {
      throw this.#asEngineError(path, error);
    } finally {
      response.cancel();
    }
  }

  /** The model identifiers the server lists. */
  async listModels(options: SignalOptions = {}): Promise<readonly string[]> {
    const path = this.#dialect.modelsPath;
    const response = await this.#call({ path }, () =>
      this.#http.requestJson({ path, ...signalOf(options) }),
    );
    return this.#wire(path, () => this.#dialect.parseModels(response.body));
  }

  /** Whether the server answers within `healthTimeoutMs` (default 2 s); never throws. */
  health(options: SignalOptions = {}): Promise<boolean> {
    return checkHealth(this.#http, this.#dialect.healthPath, options, this.#healthTimeoutMs);
  }

  /** Closes the connections; later calls fail with an `EngineError`. Calling it twice is harmless. */
  close(): Promise<void> {
    return this.#http.close();
  }

  /** Reads the streamed answer piece by piece, up to its last event; a body that ends before it throws. */
  async *#read(
    response: HttpStreamResponse,
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const reader = this.#dialect.openStream(response.headers, options.model, this.#makeId);
    const tools = textToolSet(options, this.#textToolCalls);
    const buffer = new TextToolCallBuffer(tools, options.model, this.#makeId, this.#formats);
    for await (const text of response.chunks) {
      yield* buffer.pass(reader.push(text));
      if (reader.done) {
        response.release();
        break;
      }
    }
    const ending = reader.finish();
    if (ending === undefined) throw this.#streamError(response, 'engine_stream_cut');
    yield* buffer.end(ending.chunks, ending.end);
  }

  /** Runs a request; an HTTP error the dialect knows a way out of becomes an error that says it. */
  async #call<T>(request: ChatRequestContext, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw this.#dialect.describeHttpError(error, request) ?? error;
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

  #cancelled(response: HttpStreamResponse, reason: unknown): EngineError {
    return this.#streamError(response, 'engine_cancelled', reason);
  }

  #streamError(
    response: HttpStreamResponse,
    code: 'engine_stream_cut' | 'engine_cancelled',
    cause?: unknown,
  ): EngineError {
    return new EngineError({
      code,
      engineId: this.engineId,
      address: this.#http.redact(this.#http.address(this.#dialect.chatPath)),
      detail:
        code === 'engine_cancelled' ? 'the request was cancelled' : this.#dialect.streamCutDetail,
      attempts: response.attempts,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
