import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type {
  ChatHistoryItem,
  ChatModelFunctions,
  LlamaChat,
  LlamaChatResponse,
  LlamaChatResponseChunk,
} from 'node-llama-cpp';
import {
  type Clock,
  describeError,
  EngineError,
  elapsedSeconds,
  type FinishReason,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  JarvisError,
  type Message,
  type SignalOptions,
  type StreamChunk,
  splitReasoning,
  systemClock,
  type TokenUsage,
} from '../../core/index.js';
import { SerialLock } from './embedded-llama-lock.js';
import { toChatHistory } from './embedded-llama-messages.js';
import { ChunkQueue } from './embedded-llama-queue.js';
import {
  disposeRuntime,
  type EmbeddedLlamaLogger,
  type EmbeddedRuntime,
  type EmbeddedRuntimeInfo,
  importNodeLlamaCpp,
  loadRuntime,
} from './embedded-llama-runtime.js';
import { embeddedTextCalls } from './embedded-llama-text-calls.js';
import {
  type FunctionSelection,
  forceFunctionCall,
  selectFunctions,
  toToolCalls,
} from './embedded-llama-tools.js';

export type { ChatTemplateSource } from './embedded-llama-chat-wrapper.js';
export { findDefaultModel } from './embedded-llama-models.js';
export {
  EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
  type EmbeddedRuntimeInfo,
} from './embedded-llama-runtime.js';

/** Options of an `EmbeddedLlamaEngine`. */
export interface EmbeddedLlamaEngineOptions {
  /** Path of the GGUF model file (the caller resolves it; see `findDefaultModel`). */
  readonly modelPath: string;
  /** Registry key reported by the engine (default `embedded`). */
  readonly engineId?: string;
  /** Model name reported in results and by `listModels` (default: the file name without `.gguf`). */
  readonly modelName?: string;
  /**
   * Context window in tokens, lowered to the context the model was trained for (default: the trained context
   * as far as free RAM / VRAM allows, at most `EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE`, 8192).
   */
  readonly contextSize?: number;
  /** Offload layers to a GPU when llama.cpp finds a working one, as many as fit (default true; false: CPU only). */
  readonly gpu?: boolean;
  /** CPU threads for llama.cpp (default: all cores, `os.availableParallelism()`). */
  readonly threads?: number;
  /**
   * node-llama-cpp chat wrapper name such as `chatML` or `llama3.1` (default `auto`: the GGUF's own chat
   * template, else a guess from the model's name and architecture).
   */
  readonly chatWrapper?: string;
  /** Sampling seed, so answers with a temperature above 0 repeat (default: random). */
  readonly seed?: number;
  /** Receives llama.cpp's warnings and errors; without it they are dropped. */
  readonly onLog?: EmbeddedLlamaLogger;
  readonly clock?: Clock;
  /** Makes ids for the tool calls the model asks for (default `call_<uuid>`). */
  readonly generateId?: () => string;
}

/** Receives text and reasoning as the model writes it. */
type DeltaListener = (chunk: StreamChunk) => void;

/**
 * Runs a GGUF model in-process with node-llama-cpp (an optional dependency, imported on first use). The
 * model loads on the first call and is shared by later ones; calls run one at a time on one context, which
 * reuses the prompt prefix of the previous call. Tool calls are grammar-constrained, so their names and
 * arguments always parse and follow the tool's schema; they are returned, never executed. Usage comes from
 * node-llama-cpp's token meter, so `promptTokens` leaves out a prompt prefix reused from the previous call.
 */
export class EmbeddedLlamaEngine implements InferenceEngine {
  readonly engineId: string;
  /** The GGUF file this engine serves. */
  readonly modelPath: string;
  readonly #options: EmbeddedLlamaEngineOptions;
  readonly #modelName: string;
  readonly #clock: Clock;
  readonly #generateId: () => string;
  readonly #lock = new SerialLock();
  readonly #closing = new AbortController();
  #runtime: Promise<EmbeddedRuntime> | undefined;
  /** The runtime once loaded, so calls skip awaiting its promise. */
  #loaded: EmbeddedRuntime | undefined;
  /** The chat for calls that must call a tool, made on the first such call (its wrapper starts with a call). */
  #forcedChat: { readonly runtime: EmbeddedRuntime; readonly chat: LlamaChat } | undefined;
  #info: EmbeddedRuntimeInfo | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: EmbeddedLlamaEngineOptions) {
    this.engineId = options.engineId ?? 'embedded';
    this.modelPath = options.modelPath;
    this.#options = options;
    this.#modelName = options.modelName ?? basename(options.modelPath).replace(/\.gguf$/i, '');
    this.#clock = options.clock ?? systemClock;
    // The global Web Crypto's randomUUID: importing `node:crypto` would load it with the package.
    this.#generateId = options.generateId ?? (() => `call_${crypto.randomUUID()}`);
  }

  /** Answers the conversation; `options.model` is not used to pick a model, the loaded file answers. */
  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    return this.#run(messages, options, new AbortController(), undefined);
  }

  /**
   * Yields text (and reasoning) as it is generated, then the whole tool calls, then `end`. The call starts when
   * iteration starts; a consumer that stops early cancels it, and its loop exits once the engine is free again.
   */
  stream(messages: readonly Message[], options: GenerateOptions): AsyncIterable<StreamChunk> {
    return { [Symbol.asyncIterator]: () => this.#startStream(messages, options) };
  }

  #startStream(messages: readonly Message[], options: GenerateOptions): AsyncIterator<StreamChunk> {
    const call = new AbortController();
    let finished: Promise<void> = Promise.resolve();
    const queue = new ChunkQueue<StreamChunk>(async () => {
      call.abort();
      await finished;
    });
    finished = this.#run(messages, options, call, (chunk) => queue.push(chunk)).then(
      (result) => {
        for (const toolCall of result.toolCalls) queue.push({ type: 'tool_call', toolCall });
        queue.push(endChunk(result));
        queue.close();
      },
      (error: unknown) => queue.fail(error),
    );
    return queue;
  }

  /** The loaded context's size in tokens (loads the model when it is not loaded yet). */
  async contextTokens(_model: string, _options?: SignalOptions): Promise<number | undefined> {
    const runtime = this.#loaded ?? (await this.#load());
    return runtime.context.contextSize;
  }

  /**
   * The prompt tokens of `messages` and the offered tools exactly as this model's chat format lays them out and
   * its tokenizer splits them (loads the model when it is not loaded yet).
   */
  async countTokens(
    messages: readonly Message[],
    options: GenerateOptions,
  ): Promise<number | undefined> {
    const runtime = this.#loaded ?? (await this.#load());
    const selection = selectFunctions(options.tools, options.toolChoice);
    const state = runtime.chatWrapper.generateContextState({
      chatHistory: toChatHistory(messages),
      ...(selection.functions === undefined ? {} : { availableFunctions: selection.functions }),
    });
    return state.contextText.tokenize(runtime.model.tokenizer).length;
  }

  /**
   * What the loaded model runs with (chat format and its source, context size, threads, GPU and offloaded
   * layers), as chosen from the settings, the GGUF file and the machine; undefined until the model has loaded.
   */
  runtimeInfo(): EmbeddedRuntimeInfo | undefined {
    return this.#info;
  }

  /** Loads the model now instead of on the first call, and says what it runs with (see `runtimeInfo`). */
  async load(signal?: AbortSignal): Promise<EmbeddedRuntimeInfo> {
    const call = new AbortController();
    const unlink = followSignals(call, signal, this.#closing.signal);
    try {
      return await this.#lock.run(async () => {
        call.signal.throwIfAborted();
        return (await this.#load()).info;
      }, call.signal);
    } catch (error) {
      throw this.#toEngineError(error, call.signal);
    } finally {
      unlink();
    }
  }

  /** The one model this engine serves, or none when its file is missing. */
  async listModels(): Promise<readonly string[]> {
    return (await this.#modelFileExists()) ? [this.#modelName] : [];
  }

  /** True when node-llama-cpp can be imported, the model file exists and the engine is not closed. */
  async health(): Promise<boolean> {
    if (this.#closing.signal.aborted) return false;
    try {
      await importNodeLlamaCpp(this.engineId, this.modelPath);
    } catch {
      return false;
    }
    return this.#modelFileExists();
  }

  /** Cancels running calls, then frees the model, its context and llama.cpp; later calls fail. */
  close(): Promise<void> {
    this.#closed ??= this.#shutDown();
    return this.#closed;
  }

  async #shutDown(): Promise<void> {
    this.#closing.abort(new Error('the engine was closed'));
    // Waiting for the lock lets the cancelled call unwind before its context is freed.
    await this.#lock.run(async () => {
      const runtime = await this.#runtime?.catch(() => undefined);
      this.#runtime = undefined;
      this.#loaded = undefined;
      this.#info = undefined;
      this.#forcedChat?.chat.dispose({ disposeSequence: false });
      this.#forcedChat = undefined;
      if (runtime !== undefined) await disposeRuntime(runtime);
    });
  }

  /** Runs one call under the lock; `call` is aborted by the caller's signal and by `close`, and may be by the caller. */
  async #run(
    messages: readonly Message[],
    options: GenerateOptions,
    call: AbortController,
    onDelta: DeltaListener | undefined,
  ): Promise<GenerateResult> {
    const startedMs = this.#clock.monotonicMs();
    const selection = selectFunctions(options.tools, options.toolChoice);
    const history = toChatHistory(messages);
    const signal = call.signal;
    const unlink = followSignals(call, options.signal, this.#closing.signal);
    try {
      return await this.#lock.run(async () => {
        signal.throwIfAborted();
        const runtime = this.#loaded ?? (await this.#load());
        return await this.#respond({
          runtime,
          history,
          selection,
          options,
          signal,
          startedMs,
          onDelta,
        });
      }, signal);
    } catch (error) {
      throw this.#toEngineError(error, signal);
    } finally {
      unlink();
    }
  }

  #load(): Promise<EmbeddedRuntime> {
    if (this.#runtime === undefined) {
      const options = this.#options;
      this.#runtime = loadRuntime({
        engineId: this.engineId,
        modelPath: this.modelPath,
        gpu: options.gpu ?? true,
        threads: options.threads ?? availableParallelism(),
        contextSize: options.contextSize,
        chatWrapper: options.chatWrapper ?? 'auto',
        onLog: options.onLog,
      });
      // A failed load is retried by the next call (the file may have been fixed meanwhile).
      this.#runtime.then(
        (runtime) => {
          this.#loaded = runtime;
          this.#info = runtime.info;
        },
        () => {
          this.#runtime = undefined;
        },
      );
    }
    return this.#runtime;
  }

  async #respond(call: ResponseCall): Promise<GenerateResult> {
    const { runtime, selection, options } = call;
    const chat = selection.forced ? this.#forcedChatOf(runtime) : runtime.chat;
    const textCalls = embeddedTextCalls(
      runtime.model.fileInfo.metadata.tokenizer?.chat_template,
      this.#modelName,
      options,
      selection.forced,
      () => this.#generateId(),
      call.onDelta,
    );
    const onDelta = textCalls === undefined ? call.onDelta : textCalls.push;
    const meterBefore = runtime.sequence.tokenMeter.getState();
    let ttftSeconds: number | undefined;
    const markFirstToken = (): void => {
      ttftSeconds ??= elapsedSeconds(this.#clock, call.startedMs);
    };
    const response = await chat.generateResponse(call.history, {
      ...(selection.functions === undefined ? {} : { functions: selection.functions }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(this.#options.seed === undefined ? {} : { seed: this.#options.seed }),
      maxTokens: options.maxTokens ?? runtime.context.contextSize,
      signal: call.signal,
      onResponseChunk: (chunk) => {
        if (chunk.text !== '') markFirstToken();
        forwardChunk(chunk, onDelta);
      },
      onFunctionCallParamsChunk: markFirstToken,
    });
    const usage = usageSince(runtime, meterBefore);
    const result = this.#toResult(
      response,
      usage,
      ttftSeconds ?? elapsedSeconds(this.#clock, call.startedMs),
    );
    return textCalls === undefined ? result : textCalls.finish(result);
  }

  /** The runtime's chat whose wrapper starts the answer with a function call (for `required` or a named tool). */
  #forcedChatOf(runtime: EmbeddedRuntime): LlamaChat {
    if (this.#forcedChat?.runtime !== runtime) {
      const chatWrapper = forceFunctionCall(runtime.chatWrapper, (value) =>
        runtime.module.LlamaText(value),
      );
      const chat = new runtime.module.LlamaChat({ contextSequence: runtime.sequence, chatWrapper });
      this.#forcedChat = { runtime, chat };
    }
    return this.#forcedChat.chat;
  }

  #toResult(
    response: LlamaChatResponse<ChatModelFunctions>,
    usage: TokenUsage,
    ttftSeconds: number,
  ): GenerateResult {
    // Chat formats that do not separate thoughts (ChatML, for one) leave `<think>` blocks in the text.
    const split = splitReasoning(response.response);
    const reasoning = [
      ...response.fullResponse.flatMap((item) => (typeof item === 'string' ? [] : [item.text])),
      split.reasoning,
    ].join('');
    return {
      content: split.content,
      toolCalls: toToolCalls(response.functionCalls, this.#generateId),
      usage,
      finishReason: toFinishReason(response.metadata.stopReason),
      model: this.#modelName,
      ttftSeconds,
      ...(reasoning === '' ? {} : { reasoning }),
    };
  }

  #toEngineError(error: unknown, signal: AbortSignal): Error {
    if (JarvisError.isInstance(error)) return error;
    if (this.#closing.signal.aborted) {
      return new EngineError({
        code: 'engine_unavailable',
        engineId: this.engineId,
        address: this.modelPath,
        detail: 'the engine was closed; create a new one to load the model again',
        cause: error,
      });
    }
    if (signal.aborted) {
      return new EngineError({
        code: 'engine_cancelled',
        engineId: this.engineId,
        address: this.modelPath,
        detail: 'the call was cancelled',
        cause: error,
      });
    }
    return new EngineError({
      code: 'engine_model_error',
      engineId: this.engineId,
      address: this.modelPath,
      detail: `generation failed: ${describeError(error)}`,
      cause: error,
    });
  }

  async #modelFileExists(): Promise<boolean> {
    return stat(this.modelPath).then(
      (info) => info.isFile(),
      () => false,
    );
  }
}

/** Everything one model call needs once the lock is held. */
interface ResponseCall {
  readonly runtime: EmbeddedRuntime;
  readonly history: ChatHistoryItem[];
  readonly selection: FunctionSelection;
  readonly options: GenerateOptions;
  readonly signal: AbortSignal;
  readonly startedMs: number;
  readonly onDelta: DeltaListener | undefined;
}

function forwardChunk(chunk: LlamaChatResponseChunk, onDelta: DeltaListener | undefined): void {
  if (onDelta === undefined || chunk.text === '') return;
  onDelta({ type: chunk.type === 'segment' ? 'reasoning_delta' : 'text_delta', text: chunk.text });
}

/** Token counts of this call from node-llama-cpp's meter; a reused prompt prefix is not counted again. */
function usageSince(
  runtime: EmbeddedRuntime,
  before: { readonly usedInputTokens: number; readonly usedOutputTokens: number },
): TokenUsage {
  const { usedInputTokens, usedOutputTokens } = runtime.sequence.tokenMeter.diff(before);
  return {
    promptTokens: usedInputTokens,
    completionTokens: usedOutputTokens,
    totalTokens: usedInputTokens + usedOutputTokens,
  };
}

function toFinishReason(stopReason: LlamaChatResponse['metadata']['stopReason']): FinishReason {
  switch (stopReason) {
    case 'functionCalls':
      return 'tool_calls';
    case 'maxTokens':
      return 'length';
    case 'abort':
      return 'cancelled';
    default:
      return 'stop';
  }
}

function endChunk(result: GenerateResult): StreamChunk {
  return {
    type: 'end',
    finishReason: result.finishReason,
    usage: result.usage,
    model: result.model,
    ttftSeconds: result.ttftSeconds,
  };
}

/**
 * Aborts `target` when any of `sources` aborts (at once if one already has), with that signal's reason; the
 * returned function detaches it again. Used instead of `AbortSignal.any`, which on Node 20 costs several times a
 * listener pair per call (measured: 0.1-0.5 ms on a loaded 2-core machine, in every call's time to first token).
 */
function followSignals(
  target: AbortController,
  ...sources: readonly (AbortSignal | undefined)[]
): () => void {
  const detach: (() => void)[] = [];
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      target.abort(source.reason);
      break;
    }
    const onAbort = (): void => target.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    detach.push(() => source.removeEventListener('abort', onAbort));
  }
  return () => {
    for (const remove of detach) remove();
  };
}
