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
import {
  chooseToolCallFormats,
  configuredToolCallFormats,
  describeToolCallFormatChoice,
  type ToolCallFormatChoice,
} from '../wire/formats/template-formats.js';
import type { OfferedToolSet, ToolCallFormat } from '../wire/formats/tool-call-format.js';
import { textToolSet } from '../wire/offered-tools.js';
import { TextToolCallBuffer } from '../wire/text-tool-call-buffer.js';
import {
  createToolCallIdFactory,
  type ParsedCompletion,
  type ToolCallIdFactory,
} from '../wire/wire-format.js';
import type { ChatDialect, ChatRequestContext, DialectJsonRequest } from './chat-dialect.js';
import {
  checkHealth,
  createEngineHttpClient,
  engineErrorFromWire,
  type HttpEngineOptions,
  signalOf,
} from './engine-requests.js';
import type { HttpClient, HttpJsonResponse, HttpStreamResponse } from './http-client.js';
import { jsonBody } from './json-body.js';
import { type TextToolCall, ToolsAsText } from './tools-as-text.js';

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
  /** Receives which formats a model's text tool calls are read with (and why), once per model and on change. */
  readonly onToolCallFormat?: ToolCallFormatLog | undefined;
  /** Values never to show in errors and logs (API keys). */
  readonly secrets?: readonly (string | undefined)[];
}

/** The offered tools of an engine that does not read tool calls from text: none, shared by every call. */
const NO_TEXT_TOOLS: OfferedToolSet = Object.freeze({
  names: new Set<string>(),
  parametersOf: () => undefined,
});

/** Receives `tool-call format for <model>: <names> (from template|parser|family|name|config)` and the choice. */
export type ToolCallFormatLog = (message: string, choice: ToolCallFormatChoice) => void;

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
  readonly #configured: ToolCallFormatChoice | undefined;
  readonly #onToolCallFormat: ToolCallFormatLog | undefined;
  /** What was last reported per model, so each choice is reported once. */
  readonly #reported = new Map<string, string>();
  readonly #healthTimeoutMs: number | undefined;
  readonly #toolsAsText: ToolsAsText;

  constructor(options: HttpChatEngineOptions) {
    this.engineId = options.engineId;
    this.baseUrl = options.baseUrl;
    this.#dialect = options.dialect;
    this.#clock = options.clock ?? systemClock;
    this.#makeId = createToolCallIdFactory(options.random);
    this.#textToolCalls = options.textToolCalls;
    this.#toolsAsText = new ToolsAsText(options.textToolCalls);
    this.#configured =
      options.toolCallFormat === undefined
        ? undefined
        : configuredToolCallFormats(options.toolCallFormat);
    this.#onToolCallFormat = options.onToolCallFormat;
    this.#healthTimeoutMs = options.healthTimeoutMs;
    this.#http = createEngineHttpClient(this.baseUrl, this.engineId, options, options.secrets);
  }

  /**
   * Sends the conversation and resolves to the whole answer. A server that refuses the offered tools gets them
   * described in the prompt instead (see `ToolsAsText`), for this call and the model's later ones.
   */
  generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    try {
      if (this.#toolsAsText.uses(options)) return this.#generateAsText(messages, options);
      // Without calls read from text there is no fallback to catch a refusal for: the request's own promise is
      // the answer (one async step less on every model call).
      if (!this.#textToolCalls) return this.#generateOnce(messages, options, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#generateOrFallBack(messages, options);
  }

  /** One request; a server that refuses its tools gets them as text instead. */
  async #generateOrFallBack(
    messages: readonly Message[],
    options: GenerateOptions,
  ): Promise<GenerateResult> {
    try {
      return await this.#generateOnce(messages, options, options);
    } catch (error) {
      if (!this.#toolsAsText.refused(error, options)) throw error;
      return this.#generateAsText(messages, options);
    }
  }

  /** Sends the conversation and yields the answer as it arrives, then one `end` chunk. */
  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    if (this.#toolsAsText.uses(options)) {
      yield* this.#streamAsText(messages, options);
      return;
    }
    let started = false;
    try {
      for await (const chunk of this.#streamOnce(messages, options, options)) {
        started = true;
        yield chunk;
      }
    } catch (error) {
      if (started || !this.#toolsAsText.refused(error, options)) throw error;
      yield* this.#streamAsText(messages, options);
    }
  }

  async #generateAsText(
    messages: readonly Message[],
    options: GenerateOptions,
  ): Promise<GenerateResult> {
    const sent = await this.#asText(messages, options);
    return this.#generateOnce(sent.messages, sent.options, options);
  }

  async *#streamAsText(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const sent = await this.#asText(messages, options);
    yield* this.#streamOnce(sent.messages, sent.options, options);
  }

  /** The call with its tools in the prompt, in the syntax of the model's family when that is known. */
  async #asText(messages: readonly Message[], options: GenerateOptions): Promise<TextToolCall> {
    const choice = await this.#formatChoice(options, textToolSet(options, true));
    // No evidence from the server (an OpenAI-compatible one has no /api/show): the model's name may still tell.
    const primary = choice?.primary ?? chooseToolCallFormats({ model: options.model }).primary;
    return this.#toolsAsText.rewrite(messages, options, primary);
  }

  /** One request for the whole answer; `read` holds the tools whose calls are looked for in its text. */
  async #generateOnce(
    messages: readonly Message[],
    options: GenerateOptions,
    read: GenerateOptions,
  ): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const dialect = this.#dialect;
    const path = dialect.chatPath;
    const { model, signal } = options;
    // Offered tools that are deeply frozen (an agent's) are written out once, not on every call.
    const body = jsonBody(dialect.buildBody(messages, options, false));
    // The steps are written out (no closures) as this runs on every model call.
    let response: HttpJsonResponse;
    try {
      response = await this.#http.requestJson(
        signal === undefined ? { path, body, model } : { path, body, model, signal },
      );
    } catch (error) {
      throw dialect.describeHttpError(error, { path, model }) ?? error;
    }
    const ttftSeconds = elapsedSeconds(this.#clock, startedMs);
    let parsed: ParsedCompletion;
    try {
      parsed = dialect.parseAnswer(response.body, model, this.#makeId);
    } catch (error) {
      throw this.#asEngineError(path, error);
    }
    const tools = this.#textToolCalls ? textToolSet(read, true) : NO_TEXT_TOOLS;
    // The server is asked about the model only for an answer that may hold calls written as text.
    let formats: readonly ToolCallFormat[] | undefined;
    if (parsed.toolCalls.length === 0 && parsed.content !== '') {
      // Without tools to look for, the choice is the configured one: no await (a promise and a turn) for it.
      const choice =
        tools.names.size === 0 ? this.#configured : await this.#formatChoice(read, tools);
      formats = choice?.formats;
      if (options.signal?.aborted) throw this.#cancelled(response, options.signal.reason);
    }
    return toGenerateResult(withTextToolCalls(parsed, tools, this.#makeId, formats), ttftSeconds);
  }

  /** One streamed request; `read` holds the tools whose calls are looked for in its text. */
  async *#streamOnce(
    messages: readonly Message[],
    options: GenerateOptions,
    read: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const startedMs = this.#clock.monotonicMs();
    const path = this.#dialect.chatPath;
    const body = jsonBody(this.#dialect.buildBody(messages, options, true));
    const tools = textToolSet(read, this.#textToolCalls);
    // Chosen while the model starts answering (asking about the model must not delay the answer).
    const formats = this.#formatChoice(read, tools).then((choice) => choice?.formats);
    const response = await this.#call({ path, model: options.model }, () =>
      this.#http.requestStream({ path, body, model: options.model, ...signalOf(options) }),
    );
    try {
      const reading = this.#read(response, options.model, tools, formats);
      const chunks = withTimeToFirstChunk(reading, this.#clock, startedMs);
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
    model: string,
    tools: OfferedToolSet,
    formats: Promise<readonly ToolCallFormat[] | undefined>,
  ): AsyncGenerator<StreamChunk> {
    const reader = this.#dialect.openStream(response.headers, model, this.#makeId);
    const buffer = new TextToolCallBuffer(tools, model, this.#makeId, await formats);
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

  /**
   * How this call's text tool calls are read: the configured format, else what the dialect learns about the
   * model (only asked when tools are offered), else `undefined` (chosen from the model's name). Never rejects.
   */
  async #formatChoice(
    options: GenerateOptions,
    tools: OfferedToolSet,
  ): Promise<ToolCallFormatChoice | undefined> {
    if (tools.names.size === 0) return this.#configured;
    let choice = this.#configured;
    if (choice === undefined && this.#dialect.toolCallFormats !== undefined) {
      choice = await this.#dialect
        .toolCallFormats(options.model, this.#dialectRequest, options.signal)
        .catch(() => undefined);
    }
    if (choice !== undefined) this.#report(options.model, choice);
    return choice;
  }

  /** One attempt of a dialect's JSON request on this engine's connections. */
  readonly #dialectRequest: DialectJsonRequest = async (request) => {
    const { path, body, model, timeoutMs, signal } = request;
    const signalField = signal === undefined ? {} : { signal };
    const response = await this.#http.requestJson({
      path,
      body,
      model,
      timeoutMs,
      maxRetries: 0,
      ...signalField,
    });
    return response.body;
  };

  #report(model: string, choice: ToolCallFormatChoice): void {
    const log = this.#onToolCallFormat;
    if (log === undefined) return;
    const message = describeToolCallFormatChoice(model, choice);
    if (this.#reported.get(model) === message) return;
    this.#reported.set(model, message);
    try {
      log(message, choice);
    } catch {
      // A broken log callback must not fail a model call.
    }
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

  #cancelled(response: { readonly attempts: number }, reason: unknown): EngineError {
    return this.#streamError(response, 'engine_cancelled', reason);
  }

  #streamError(
    response: { readonly attempts: number },
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
