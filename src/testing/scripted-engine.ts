import {
  EngineError,
  type EngineErrorCode,
  type FinishReason,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  JarvisError,
  type Message,
  type SignalOptions,
  type StreamChunk,
  type TokenUsage,
  type ToolCall,
} from '../core/index.js';

/** A tool call of a scripted reply; object arguments are sent as JSON text, text is sent exactly as written. */
export interface ScriptedEngineToolCall {
  /** The call id; `call_1`, `call_2`, … (counted over the whole engine) when absent. */
  readonly id?: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>> | string;
}

/** The parts of an answer besides its text; every one has a default. */
export interface ScriptedEngineReplyExtra {
  readonly toolCalls?: readonly ScriptedEngineToolCall[];
  readonly reasoning?: string;
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  readonly finishReason?: FinishReason;
  /** Counts not given are estimated; see `ScriptedEngine`. */
  readonly usage?: Partial<TokenUsage>;
  /** Defaults to the requested model. */
  readonly model?: string;
  /** Defaults to 0. */
  readonly ttftSeconds?: number;
}

/** A scripted answer. */
export interface ScriptedEngineAnswer extends ScriptedEngineReplyExtra {
  readonly type: 'answer';
  readonly content: string;
}

/** A scripted failure: an error to raise, or an `EngineError` code to raise one with. */
export interface ScriptedEngineFailure {
  readonly type: 'error';
  readonly error: Error | EngineErrorCode;
}

/** A request the engine received, as recorded in `calls`. */
export interface ScriptedEngineCall {
  readonly method: 'generate' | 'stream';
  /** A copy taken when the call was made, so later changes to the caller's messages do not show here. */
  readonly messages: readonly Message[];
  readonly options: GenerateOptions;
}

/** What a function reply may answer with: an answer, a failure, or plain text. */
export type ScriptedEngineStaticReply = ScriptedEngineAnswer | ScriptedEngineFailure | string;

/** One step of the script: an answer, a failure, plain text, or a function that computes the reply from the request. */
export type ScriptedEngineReply =
  | ScriptedEngineStaticReply
  | ((call: ScriptedEngineCall) => ScriptedEngineStaticReply | Promise<ScriptedEngineStaticReply>);

/** Options of a `ScriptedEngine`. */
export interface ScriptedEngineOptions {
  /** Default `scripted`. */
  readonly engineId?: string;
  /** What `listModels()` reports; default `['scripted']`. */
  readonly models?: readonly string[];
}

/** Builds an answer with text, and optionally tool calls, reasoning, usage and the rest. */
export function assistantReply(
  text: string,
  extra: ScriptedEngineReplyExtra = {},
): ScriptedEngineAnswer {
  return { type: 'answer', ...extra, content: text };
}

/** Builds an answer without text that calls the given tools. */
export function toolCallReply(...calls: readonly ScriptedEngineToolCall[]): ScriptedEngineAnswer {
  return { type: 'answer', content: '', toolCalls: calls };
}

/** Builds a failure: the error itself, or an `EngineError` with the given code (e.g. `engine_unavailable`). */
export function errorReply(error: Error | EngineErrorCode): ScriptedEngineFailure {
  return { type: 'error', error };
}

/** The engine was called after its script ran out. */
export class UnexpectedEngineCallError extends JarvisError {
  /** The first call beyond the script. */
  readonly call: ScriptedEngineCall;
  /** How many calls came after the script ended. */
  readonly count: number;

  constructor(options: { engineId: string; call: ScriptedEngineCall; count: number }) {
    const calls = options.count === 1 ? 'a call' : `${options.count} calls`;
    super({
      code: 'scripted_engine_unexpected_call',
      message: `ScriptedEngine '${options.engineId}': ${calls} came after the script ended; first: ${describeCall(options.call)}`,
    });
    this.call = options.call;
    this.count = options.count;
  }
}

/** Scripted replies were left over when the test ended. */
export class UnconsumedRepliesError extends JarvisError {
  /** How many replies were never used. */
  readonly remaining: number;

  constructor(options: { engineId: string; remaining: number }) {
    super({
      code: 'scripted_engine_unconsumed_replies',
      message: `ScriptedEngine '${options.engineId}': ${options.remaining} scripted reply(ies) were never used`,
    });
    this.remaining = options.remaining;
  }
}

/** Where a scripted engine says it lives, in error messages. */
const ADDRESS = 'in-process';
const CHARACTERS_PER_TOKEN = 4;

type Turn =
  | {
      readonly kind: 'reply';
      readonly reply: ScriptedEngineReply;
      readonly call: ScriptedEngineCall;
    }
  | { readonly kind: 'failed'; readonly error: Error };

/**
 * A strict in-process engine for tests: each `generate` or `stream` call takes the next scripted reply and
 * records the request in `calls`. A call beyond the script fails with `UnexpectedEngineCallError`, which is
 * also remembered, so `assertAllStepsConsumed()` reports it even when the code under test swallowed it;
 * leftover replies make `assertAllStepsConsumed()` throw `UnconsumedRepliesError`.
 *
 * Usage counts not given in a reply are estimated at one token per 4 characters, rounded up: prompt tokens
 * from the content and tool-call arguments of the messages sent, completion tokens from the reply's reasoning,
 * content and tool-call arguments. Content is returned as scripted (no `<think>` splitting, no text tool-call
 * parsing). `stream` yields reasoning and text one word at a time, then each tool call, then `end`.
 * A call whose signal is already aborted rejects with an `EngineError` of code `engine_cancelled` and uses no reply.
 */
export class ScriptedEngine implements InferenceEngine {
  readonly engineId: string;
  /** Every request, in order, including cancelled ones and those beyond the script. */
  readonly calls: ScriptedEngineCall[] = [];
  readonly #replies: ScriptedEngineReply[];
  readonly #models: readonly string[];
  readonly #unexpected: ScriptedEngineCall[] = [];
  #closed = false;
  #generatedIds = 0;

  constructor(replies: readonly ScriptedEngineReply[] = [], options: ScriptedEngineOptions = {}) {
    this.#replies = [...replies];
    this.engineId = options.engineId ?? 'scripted';
    this.#models = [...(options.models ?? ['scripted'])];
  }

  /** How many scripted replies are still waiting. */
  get remainingReplies(): number {
    return this.#replies.length;
  }

  /** Appends replies to the script. */
  enqueue(...replies: readonly ScriptedEngineReply[]): void {
    this.#replies.push(...replies);
  }

  /** Answers with the next scripted reply. */
  async generate(messages: readonly Message[], options: GenerateOptions): Promise<GenerateResult> {
    const turn = this.#begin('generate', messages, options);
    return this.#answer(turn, options.signal);
  }

  /** Streams the next scripted reply; the reply is taken from the script when `stream()` is called. */
  stream(messages: readonly Message[], options: GenerateOptions): AsyncIterable<StreamChunk> {
    const turn = this.#begin('stream', messages, options);
    return this.#streamTurn(turn, options.signal);
  }

  /** The model names given in the options. */
  async listModels(options: SignalOptions = {}): Promise<readonly string[]> {
    if (options.signal?.aborted) throw this.#cancelled(options.signal);
    return [...this.#models];
  }

  /** True until `close()`. */
  async health(): Promise<boolean> {
    return !this.#closed;
  }

  /** Marks the engine closed; later calls fail with `engine_unavailable`. Calling it twice is harmless. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  /** Throws when a call came after the script ended, or when scripted replies are left over. */
  assertAllStepsConsumed(): void {
    const [first] = this.#unexpected;
    if (first !== undefined) {
      throw new UnexpectedEngineCallError({
        engineId: this.engineId,
        call: first,
        count: this.#unexpected.length,
      });
    }
    if (this.#replies.length > 0) {
      throw new UnconsumedRepliesError({
        engineId: this.engineId,
        remaining: this.#replies.length,
      });
    }
  }

  /** Records the call and takes its reply, or decides why it fails. */
  #begin(
    method: ScriptedEngineCall['method'],
    messages: readonly Message[],
    options: GenerateOptions,
  ): Turn {
    const call: ScriptedEngineCall = {
      method,
      messages: copyMessages(messages),
      options: { ...options },
    };
    this.calls.push(call);
    if (this.#closed)
      return {
        kind: 'failed',
        error: this.#engineError('engine_unavailable', 'the engine is closed'),
      };
    if (options.signal?.aborted) return { kind: 'failed', error: this.#cancelled(options.signal) };
    const reply = this.#replies.shift();
    if (reply !== undefined) return { kind: 'reply', reply, call };
    this.#unexpected.push(call);
    return {
      kind: 'failed',
      error: new UnexpectedEngineCallError({ engineId: this.engineId, call, count: 1 }),
    };
  }

  async #answer(turn: Turn, signal: AbortSignal | undefined): Promise<GenerateResult> {
    if (turn.kind === 'failed') throw turn.error;
    const reply = typeof turn.reply === 'function' ? await turn.reply(turn.call) : turn.reply;
    if (signal?.aborted) throw this.#cancelled(signal);
    const answer = typeof reply === 'string' ? assistantReply(reply) : reply;
    if (answer.type === 'error') throw this.#failure(answer.error);
    return this.#result(answer, turn.call);
  }

  async *#streamTurn(turn: Turn, signal: AbortSignal | undefined): AsyncGenerator<StreamChunk> {
    const result = await this.#answer(turn, signal);
    for (const chunk of streamChunks(result)) {
      if (signal?.aborted) throw this.#cancelled(signal);
      yield chunk;
    }
  }

  #result(answer: ScriptedEngineAnswer, call: ScriptedEngineCall): GenerateResult {
    const toolCalls = (answer.toolCalls ?? []).map((toolCall) => this.#toolCall(toolCall));
    const completionText = `${answer.reasoning ?? ''}${answer.content}${toolCalls.map((c) => c.arguments).join('')}`;
    return {
      content: answer.content,
      toolCalls,
      usage: resolveUsage(answer.usage, promptCharacters(call.messages), completionText.length),
      finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      model: answer.model ?? call.options.model,
      ttftSeconds: answer.ttftSeconds ?? 0,
      ...(answer.reasoning === undefined ? {} : { reasoning: answer.reasoning }),
    };
  }

  #toolCall(toolCall: ScriptedEngineToolCall): ToolCall {
    if (toolCall.id === undefined) this.#generatedIds += 1;
    return {
      id: toolCall.id ?? `call_${this.#generatedIds}`,
      name: toolCall.name,
      arguments: argumentsText(toolCall),
    };
  }

  #failure(error: Error | EngineErrorCode): Error {
    return typeof error === 'string'
      ? this.#engineError(error, `scripted failure (${error})`)
      : error;
  }

  #cancelled(signal: AbortSignal): EngineError {
    return this.#engineError('engine_cancelled', 'the call was cancelled', signal.reason);
  }

  #engineError(code: EngineErrorCode, detail: string, cause?: unknown): EngineError {
    return new EngineError({ code, engineId: this.engineId, address: ADDRESS, detail, cause });
  }
}

/** The chunks of one answer: reasoning and text word by word, the tool calls, then the end. */
function* streamChunks(result: GenerateResult): Generator<StreamChunk> {
  for (const text of splitWords(result.reasoning ?? '')) yield { type: 'reasoning_delta', text };
  for (const text of splitWords(result.content)) yield { type: 'text_delta', text };
  for (const toolCall of result.toolCalls) yield { type: 'tool_call', toolCall };
  yield {
    type: 'end',
    finishReason: result.finishReason,
    usage: result.usage,
    model: result.model,
    ttftSeconds: result.ttftSeconds,
  };
}

/** One piece per word with the whitespace after it (leading whitespace is a piece of its own). */
function splitWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function argumentsText(toolCall: ScriptedEngineToolCall): string {
  if (typeof toolCall.arguments === 'string') return toolCall.arguments;
  try {
    return JSON.stringify(toolCall.arguments);
  } catch (error) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `Scripted tool call '${toolCall.name}' has arguments that cannot be written as JSON`,
      cause: error,
    });
  }
}

function resolveUsage(
  given: Partial<TokenUsage> | undefined,
  promptChars: number,
  completionChars: number,
): TokenUsage {
  const promptTokens = given?.promptTokens ?? Math.ceil(promptChars / CHARACTERS_PER_TOKEN);
  const completionTokens =
    given?.completionTokens ?? Math.ceil(completionChars / CHARACTERS_PER_TOKEN);
  return {
    promptTokens,
    completionTokens,
    totalTokens: given?.totalTokens ?? promptTokens + completionTokens,
  };
}

function promptCharacters(messages: readonly Message[]): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.content.length;
    for (const toolCall of message.toolCalls ?? []) characters += toolCall.arguments.length;
  }
  return characters;
}

function copyMessages(messages: readonly Message[]): readonly Message[] {
  try {
    return structuredClone(messages);
  } catch {
    // Something in `metadata` cannot be cloned (it should be JSON); copy the message shells instead.
    return messages.map((message) => ({
      ...message,
      ...(message.toolCalls === undefined ? {} : { toolCalls: [...message.toolCalls] }),
    }));
  }
}

function describeCall(call: ScriptedEngineCall): string {
  const last = call.messages.at(-1);
  if (last === undefined) return `${call.method}() with no messages`;
  const text = last.content.length > 120 ? `${last.content.slice(0, 120)}…` : last.content;
  return `${call.method}() after ${last.role} message ${JSON.stringify(text)}`;
}
