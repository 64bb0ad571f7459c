import type { ToolErrorCode } from './error-codes.js';
import type { JsonValue } from './json.js';
import type { TokenUsage } from './usage.js';

export type { ToolErrorCode } from './error-codes.js';

interface ToolResultFields {
  /** Name of the tool that was called. */
  readonly toolName: string;
  /** What the model reads on its next turn, for failures too. */
  readonly content: string;
  /** Token usage (for tools that call a model). */
  readonly usage: Partial<TokenUsage>;
  /** Actual cost of the invocation in US dollars. */
  readonly costUsd: number;
  /** Measured execution latency in seconds. */
  readonly latencySeconds: number;
  readonly metadata: Readonly<Record<string, JsonValue>>;
}

/** The outcome of one tool call: `success: true`, or `success: false` with an `errorCode`. */
export type ToolResult =
  | (ToolResultFields & { readonly success: true })
  | (ToolResultFields & { readonly success: false; readonly errorCode: ToolErrorCode });

/** Optional fields of a result; defaults are `usage: {}`, zero cost and latency, `metadata: {}`. */
export type ToolResultExtra = Partial<
  Pick<ToolResultFields, 'usage' | 'costUsd' | 'latencySeconds' | 'metadata'>
>;

/** Builds a successful result. */
export function toolSuccess(
  toolName: string,
  content: string,
  extra: ToolResultExtra = {},
): ToolResult {
  return {
    toolName,
    content,
    success: true,
    usage: extra.usage ?? {},
    costUsd: extra.costUsd ?? 0,
    latencySeconds: extra.latencySeconds ?? 0,
    metadata: extra.metadata ?? {},
  };
}

/** Builds a failed result the model can read and act on. */
export function toolFailure(
  toolName: string,
  errorCode: ToolErrorCode,
  content: string,
  extra: ToolResultExtra = {},
): ToolResult {
  return {
    toolName,
    content,
    success: false,
    errorCode,
    usage: extra.usage ?? {},
    costUsd: extra.costUsd ?? 0,
    latencySeconds: extra.latencySeconds ?? 0,
    metadata: extra.metadata ?? {},
  };
}
