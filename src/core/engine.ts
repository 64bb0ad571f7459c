import type { EngineErrorCode } from './error-codes.js';
import { JarvisError } from './errors.js';
import type { Message, ToolCall } from './messages.js';
import type { OpenAIFunctionTool } from './tool-spec.js';
import type { TokenUsage } from './usage.js';

/** How the model may use the offered tools (OpenAI `tool_choice`). */
export type ToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { readonly type: 'function'; readonly function: { readonly name: string } };

/** Options of one model call. */
export interface GenerateOptions {
  /** Model identifier as the engine knows it (for example `qwen3:8b`). */
  readonly model: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Tools offered to the model, in OpenAI function-calling format. */
  readonly tools?: readonly OpenAIFunctionTool[];
  readonly toolChoice?: ToolChoice;
  /** Cancels the call; the engine stops the request and rejects with an `EngineError` of code `engine_cancelled`. */
  readonly signal?: AbortSignal;
}

/** Why the model stopped: the OpenAI values, or another string an engine reports. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

/** The complete answer of one model call. */
export interface GenerateResult {
  /** The answer text, with reasoning (`<think>` blocks, a `thinking` field) kept out. */
  readonly content: string;
  /** Tool calls the model asked for, flat, each with its arguments as a JSON string. */
  readonly toolCalls: readonly ToolCall[];
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
  /** The model that answered, as the engine reports it. */
  readonly model: string;
  /** Seconds until the first token (or, without streaming, the first byte of the answer) arrived. */
  readonly ttftSeconds: number;
  /** Reasoning text the model produced, when the engine separates it. */
  readonly reasoning?: string;
}

/** One piece of a streamed answer: text as it arrives, whole tool calls once assembled, then the end. */
export type StreamChunk =
  | { readonly type: 'text_delta'; readonly text: string }
  | { readonly type: 'reasoning_delta'; readonly text: string }
  | { readonly type: 'tool_call'; readonly toolCall: ToolCall }
  | {
      readonly type: 'end';
      readonly finishReason: FinishReason;
      readonly usage: TokenUsage;
      readonly model: string;
      readonly ttftSeconds: number;
    };

/** Options of calls that only take a signal. */
export interface SignalOptions {
  readonly signal?: AbortSignal;
}

/** The contract every inference engine implements (OpenAI-compatible servers, Ollama, in-process GGUF, fakes). */
export interface InferenceEngine {
  /** Registry key of the engine (`vllm`, `ollama`, `embedded`, …). */
  readonly engineId: string;
  /** Sends the conversation and resolves to the complete answer. */
  generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult>;
  /** Sends the conversation and yields the answer as it arrives; a cut-off stream throws, never ends quietly. */
  stream(messages: readonly Message[], options: GenerateOptions): AsyncIterable<StreamChunk>;
  /** The model identifiers the engine can serve. */
  listModels(options?: SignalOptions): Promise<readonly string[]>;
  /** Whether the engine answers at all (never throws). */
  health(options?: SignalOptions): Promise<boolean>;
  /** Releases connections, processes and loaded models; calling it twice is harmless. */
  close(): Promise<void>;
  /**
   * The context window `model` runs with on this engine, in tokens, when the engine knows it (the embedded
   * engine's loaded context, a server's reported limit); `undefined` when it cannot tell.
   */
  contextTokens?(model: string, options?: SignalOptions): Promise<number | undefined>;
  /**
   * How many prompt tokens `messages` (and the offered tools) take with the model's own tokenizer and chat
   * format, when the engine can count them; `undefined` when it cannot.
   */
  countTokens?(messages: readonly Message[], options: GenerateOptions): Promise<number | undefined>;
}

/** Options of an `EngineError`. */
export interface EngineErrorOptions {
  readonly code: EngineErrorCode;
  readonly engineId: string;
  /** The address that was called (a URL, or a file path for in-process engines). */
  readonly address: string;
  /** What went wrong, in words; the engine and address are added to the message. */
  readonly detail: string;
  /** HTTP status, when the server answered with one. */
  readonly status?: number;
  /** How many attempts were made before giving up. */
  readonly attempts?: number;
  readonly cause?: unknown;
}

/** An engine call failed; the message names the engine, the address and the cause. */
export class EngineError extends JarvisError {
  override readonly code: EngineErrorCode;
  readonly engineId: string;
  readonly address: string;
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(options: EngineErrorOptions) {
    const attempts = options.attempts ?? 1;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    super({
      code: options.code,
      message: `${options.engineId} engine at ${options.address} failed${tries}: ${options.detail}`,
      cause: options.cause,
    });
    this.code = options.code;
    this.engineId = options.engineId;
    this.address = options.address;
    this.status = options.status;
    this.attempts = attempts;
  }
}
