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
import { HttpClient, type HttpStreamResponse, type SleepFunction } from './http-client.js';
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
import {
  createToolCallIdFactory,
  type ParsedCompletion,
  type ToolCallIdFactory,
  WireFormatError,
} from './openai-wire.js';
import { extractTextToolCalls, type TextToolCalls } from './text-tool-calls.js';

/** Options of an `OllamaEngine`. */
export interface OllamaEngineOptions {
  /** The server, as `OLLAMA_HOST` takes it (`host:port`, `http(s)://host:port[/path]`); default `http://127.0.0.1:11434`. */
  readonly host?: string;
  /** Registry key named in errors; default `ollama`. */
  readonly engineId?: string;
  /** Longest wait for one attempt (default 120 s); in a stream, for the headers and for each gap between lines. */
  readonly timeoutMs?: number;
  /** Longest wait of `health()` (default 2 s). */
  readonly healthTimeoutMs?: number;
  /** Sent with every request (for an Ollama behind an authenticating proxy). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Also read tool calls that the model wrote into its text when tools were offered; default true. */
  readonly textToolCalls?: boolean;
  /** Ollama `think`: turn a thinking model's reasoning on or off, or set its level; not sent when absent. */
  readonly think?: OllamaThink;
  /** Never ask for a context window (`num_ctx`) smaller than this; default 4096. */
  readonly minContextTokens?: number;
  /** Never ask for a context window larger than this; default 32768. */
  readonly maxContextTokens?: number;
  /** Extra attempts after a transient failure; default 2. */
  readonly maxRetries?: number;
  readonly retryBaseDelayMs?: number;
  readonly clock?: Clock;
  /** Randomness for backoff jitter and generated tool-call ids. */
  readonly random?: () => number;
  readonly sleep?: SleepFunction;
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
    this.#http = new HttpClient({
      baseUrl: this.baseUrl,
      engineId: this.engineId,
      ...definedOnly({
        headers: options.headers,
        timeoutMs: options.timeoutMs,
        maxRetries: options.maxRetries,
        retryBaseDelayMs: options.retryBaseDelayMs,
        random: options.random,
        sleep: options.sleep,
        clock: options.clock,
      }),
    });
  }

  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const body = this.#body(messages, options, false);
    const response = await this.#call(options.model, () =>
      this.#http.requestJson({ path: CHAT_PATH, body, ...signalOf(options) }),
    );
    const ttftSeconds = elapsedSeconds(this.#clock, startedMs);
    const parsed = this.#wire(() => parseOllamaChat(response.body, options.model, this.#makeId));
    return toResult(this.#withTextToolCalls(parsed, options), ttftSeconds);
  }

  async *stream(
    messages: readonly Message[],
    options: GenerateOptions,
  ): AsyncGenerator<StreamChunk> {
    const startedMs = this.#clock.monotonicMs();
    const body = this.#body(messages, options, true);
    const response = await this.#call(options.model, () =>
      this.#http.requestStream({ path: CHAT_PATH, body, ...signalOf(options) }),
    );
    let ttftSeconds: number | undefined;
    try {
      for await (const chunk of this.#ndjson(response, options)) {
        ttftSeconds ??= elapsedSeconds(this.#clock, startedMs);
        yield chunk.type === 'end' ? { ...chunk, ttftSeconds } : chunk;
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

  async health(options: SignalOptions = {}): Promise<boolean> {
    try {
      await this.#http.requestJson({
        path: VERSION_PATH,
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
    const buffer = this.#bufferForTextToolCalls(options);
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
      assembler.finishReason,
    );
    yield {
      type: 'end',
      finishReason: buffer.finishReason ?? assembler.finishReason,
      usage: assembler.usage,
      model: assembler.model,
      ttftSeconds: 0,
    };
  }

  /** Runs a request; Ollama's "model not found" and "does not support" answers become clear model errors. */
  async #call<T>(model: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw describeOllamaHttpError(error, model) ?? error;
    }
  }

  #withTextToolCalls(parsed: ParsedCompletion, options: GenerateOptions): ParsedCompletion {
    const names = this.#textToolNames(options);
    if (names.length === 0 || parsed.toolCalls.length > 0) return parsed;
    const found = this.#extract(parsed.content, names);
    if (found === undefined || found.toolCalls.length === 0) return parsed;
    return {
      ...parsed,
      content: found.content,
      toolCalls: found.toolCalls,
      finishReason: 'tool_calls',
    };
  }

  #textToolNames(options: GenerateOptions): string[] {
    if (this.#options.textToolCalls === false) return [];
    return offeredTools(options).map((tool) => tool.function.name);
  }

  #extract(content: string, names: readonly string[]): TextToolCalls | undefined {
    let count = 0;
    return extractTextToolCalls(content, names, { generateId: () => this.#makeId(count++) });
  }

  /** Streams pass straight through, unless tool calls may hide in the text: then the text waits for the end. */
  #bufferForTextToolCalls(options: GenerateOptions): TextBuffer {
    const names = this.#textToolNames(options);
    return new TextBuffer(names.length > 0, (content) => this.#extract(content, names));
  }

  #streamCut(response: HttpStreamResponse): EngineError {
    return new EngineError({
      code: 'engine_stream_cut',
      engineId: this.engineId,
      address: this.#http.address(CHAT_PATH),
      detail: 'the stream ended before the answer was complete (no line with "done": true)',
      attempts: response.attempts,
    });
  }

  #cancelled(response: HttpStreamResponse, reason: unknown): EngineError {
    return new EngineError({
      code: 'engine_cancelled',
      engineId: this.engineId,
      address: this.#http.address(CHAT_PATH),
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
      if (!(error instanceof WireFormatError)) throw error;
      throw new EngineError({
        code: error.code,
        engineId: this.engineId,
        address: this.#http.address(path),
        detail: error.message,
        cause: error,
      });
    }
  }
}

type TextToolCallExtractor = (content: string) => TextToolCalls | undefined;

/** Collects stream text when text tool calls must be looked for; otherwise passes chunks straight on. */
class TextBuffer {
  finishReason: string | undefined;
  #text = '';
  readonly #active: boolean;
  readonly #extract: TextToolCallExtractor;

  constructor(active: boolean, extract: TextToolCallExtractor) {
    this.#active = active;
    this.#extract = extract;
  }

  *pass(chunks: readonly StreamChunk[]): Generator<StreamChunk> {
    for (const chunk of chunks) {
      if (this.#active && chunk.type === 'text_delta') this.#text += chunk.text;
      else yield chunk;
    }
  }

  *end(finish: readonly StreamChunk[], finishReason: string): Generator<StreamChunk> {
    const hasNativeCalls = finish.some((chunk) => chunk.type === 'tool_call');
    const others = [...this.pass(finish)];
    const found = hasNativeCalls || this.#text === '' ? undefined : this.#extract(this.#text);
    const calls = found?.toolCalls ?? [];
    const content = calls.length > 0 && found !== undefined ? found.content : this.#text;
    if (content !== '') yield { type: 'text_delta', text: content };
    yield* others;
    for (const toolCall of calls) yield { type: 'tool_call', toolCall };
    this.finishReason = calls.length > 0 ? 'tool_calls' : finishReason;
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

function signalOf(options: SignalOptions): { signal?: AbortSignal } {
  return options.signal === undefined ? {} : { signal: options.signal };
}

/** The entries whose value is defined (for `exactOptionalPropertyTypes`). */
function definedOnly<T extends object>(source: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
