import { JarvisError, type Message, type OpenAIFunctionTool } from '../../core/index.js';

/** Tokens kept free for the answer when a call sets no `maxTokens`. */
export const DEFAULT_ANSWER_TOKENS = 1024;
/** The smallest context window asked for unless configured otherwise. */
export const DEFAULT_MIN_CONTEXT_TOKENS = 4096;
/** The largest context window asked for unless configured otherwise. */
export const DEFAULT_MAX_CONTEXT_TOKENS = 32_768;
/** Context windows are asked for in steps of this size, so that small changes do not reload the model. */
export const CONTEXT_STEP_TOKENS = 2048;
/** Chat-template tokens around each message (role markers, separators). */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** Bytes per token assumed: conservative for English, about right for code and CJK (3 UTF-8 bytes each). */
const BYTES_PER_TOKEN = 3;

/** What a call sends, as far as its size is concerned. */
export interface ContextRequest {
  readonly messages: readonly Message[];
  readonly tools?: readonly OpenAIFunctionTool[] | undefined;
  /** The answer budget; `DEFAULT_ANSWER_TOKENS` when absent. */
  readonly maxTokens?: number | undefined;
}

/** Bounds of the context window. */
export interface ContextLimits {
  /** Never ask for less; an explicit floor also overrides `maxContextTokens`. Default 4096 (or the cap, if lower). */
  readonly minContextTokens?: number | undefined;
  /** Never ask for more (default 32768); prompts beyond it get truncated by the server. */
  readonly maxContextTokens?: number | undefined;
}

/**
 * Estimates the prompt size in tokens without a tokenizer: UTF-8 bytes of the messages (content, tool-call
 * names and arguments) and of the tool definitions, divided by 3 and rounded up, plus a few tokens per message.
 */
export function estimatePromptTokens(
  messages: readonly Message[],
  tools: readonly OpenAIFunctionTool[] = [],
): number {
  let bytes = tools.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(tools), 'utf8');
  for (const message of messages) {
    bytes += Buffer.byteLength(message.content, 'utf8');
    for (const call of message.toolCalls ?? []) {
      bytes += Buffer.byteLength(call.name, 'utf8') + Buffer.byteLength(call.arguments, 'utf8');
    }
  }
  return Math.ceil(bytes / BYTES_PER_TOKEN) + messages.length * MESSAGE_OVERHEAD_TOKENS;
}

/**
 * The context window (Ollama's `num_ctx`) a call needs: the estimated prompt plus the answer budget, rounded up
 * to a multiple of 2048, at least the floor and at most the cap.
 */
export function chooseContextTokens(request: ContextRequest, limits: ContextLimits = {}): number {
  const cap = limits.maxContextTokens ?? DEFAULT_MAX_CONTEXT_TOKENS;
  const floor = limits.minContextTokens ?? Math.min(DEFAULT_MIN_CONTEXT_TOKENS, cap);
  const answer =
    request.maxTokens !== undefined && request.maxTokens > 0
      ? Math.ceil(request.maxTokens)
      : DEFAULT_ANSWER_TOKENS;
  const needed = estimatePromptTokens(request.messages, request.tools) + answer;
  const rounded = Math.ceil(needed / CONTEXT_STEP_TOKENS) * CONTEXT_STEP_TOKENS;
  return Math.max(floor, Math.min(rounded, cap));
}

/** Checks configured context bounds: positive whole numbers. */
export function checkContextLimits(limits: ContextLimits): void {
  for (const key of ['minContextTokens', 'maxContextTokens'] as const) {
    const value = limits[key];
    if (value === undefined || (Number.isSafeInteger(value) && value > 0)) continue;
    throw new JarvisError({
      code: 'invalid_argument',
      message: `Invalid ${key} ${String(value)}: expected a positive whole number of tokens, such as 8192`,
    });
  }
}
