import type { AgentResult, TokenUsage } from '../core/index.js';

/** OpenAI `usage`. */
export interface OpenAIUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** Why the answer ended, in OpenAI's words. */
export type OpenAIFinishReason = 'stop' | 'length';

/** The identity shared by a completion and its chunks. */
export interface CompletionIdentity {
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly model: string;
}

/** A non-streamed `chat.completion` object. */
export interface ChatCompletion extends CompletionIdentity {
  readonly object: 'chat.completion';
  readonly choices: readonly [
    {
      readonly index: 0;
      readonly message: { readonly role: 'assistant'; readonly content: string };
      readonly finish_reason: OpenAIFinishReason;
    },
  ];
  readonly usage: OpenAIUsage;
}

/** One streamed `chat.completion.chunk` object. */
export interface ChatCompletionChunk extends CompletionIdentity {
  readonly object: 'chat.completion.chunk';
  readonly choices: readonly {
    readonly index: 0;
    readonly delta: { readonly role?: 'assistant'; readonly content?: string };
    readonly finish_reason: OpenAIFinishReason | null;
  }[];
  readonly usage?: OpenAIUsage | null;
}

/** The run's token usage (the agent's `metadata.usage`, summed over its model calls) in OpenAI's shape. */
export function usageOf(result: Pick<AgentResult, 'metadata'>): OpenAIUsage {
  const usage = result.metadata.usage as Partial<TokenUsage> | undefined;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  const prompt = count(usage?.promptTokens);
  const completion = count(usage?.completionTokens);
  const total = count(usage?.totalTokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total > 0 ? total : prompt + completion,
  };
}

/** `length` when the run stopped on its turn limit before a final answer, else `stop`. */
export function finishReasonOf(result: Pick<AgentResult, 'metadata'>): OpenAIFinishReason {
  return result.metadata.max_turns_exceeded === true ? 'length' : 'stop';
}

/** The `chat.completion` answering a finished run. */
export function completionOf(identity: CompletionIdentity, result: AgentResult): ChatCompletion {
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: result.content },
        finish_reason: finishReasonOf(result),
      },
    ],
    usage: usageOf(result),
  };
}

/**
 * `completionOf(identity, result)` as JSON text, written in one pass (no intermediate objects): the body of a
 * non-streamed answer.
 */
export function completionJson(identity: CompletionIdentity, result: AgentResult): string {
  const usage = usageOf(result);
  return (
    `{"id":${JSON.stringify(identity.id)},"object":"chat.completion","created":${jsonNumber(identity.created)},` +
    `"model":${JSON.stringify(identity.model)},"choices":[{"index":0,"message":{"role":"assistant",` +
    `"content":${JSON.stringify(result.content)}},"finish_reason":"${finishReasonOf(result)}"}],` +
    `"usage":{"prompt_tokens":${jsonNumber(usage.prompt_tokens)},"completion_tokens":${jsonNumber(usage.completion_tokens)},` +
    `"total_tokens":${jsonNumber(usage.total_tokens)}}}`
  );
}

/** A number as `JSON.stringify` writes it (`null` for NaN and infinities). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** A chunk with one choice: the role (first chunk), a content delta, or the finish reason (last). */
export function chunkOf(
  identity: CompletionIdentity,
  delta: ChatCompletionChunk['choices'][number]['delta'],
  finishReason: OpenAIFinishReason | null = null,
  withUsage = false,
): ChatCompletionChunk {
  return {
    ...identity,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(withUsage ? { usage: null } : {}),
  };
}

/** The last chunk when `stream_options.include_usage` is set: no choices, the run's usage. */
export function usageChunkOf(
  identity: CompletionIdentity,
  usage: OpenAIUsage,
): ChatCompletionChunk {
  return { ...identity, object: 'chat.completion.chunk', choices: [], usage };
}
