import { JarvisError, type TokenUsage, type ToolResult, ZERO_USAGE } from '../core/index.js';
import type { RunRequest, SystemRunResult } from '../system/index.js';

/** Per-question options of `ask`, `askFull` and `stream`: the system's `RunRequest`. */
export type AskOptions = RunRequest;

/** What `askFull` returns; `metadata` keeps the agent's keys (`max_turns_exceeded`, `usage`, …). */
export interface AskResult {
  readonly content: string;
  readonly turns: number;
  readonly toolResults: readonly ToolResult[];
  readonly usage: TokenUsage;
  readonly model: string;
  readonly engine: string;
  readonly agent: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The SDK's view of a finished run. */
export function toAskResult(run: SystemRunResult): AskResult {
  const { result } = run;
  return {
    content: result.content,
    turns: result.turns,
    toolResults: result.toolResults,
    usage: usageOf(result.metadata),
    model: run.model,
    engine: run.engineKey,
    agent: run.agentName,
    metadata: result.metadata,
  };
}

/** The question, refused when it is not a non-empty string. */
export function requireQuery(query: string): string {
  if (typeof query !== 'string' || query.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: 'The question is empty: pass the text to ask',
    });
  }
  return query;
}

function usageOf(metadata: Readonly<Record<string, unknown>>): TokenUsage {
  const usage = metadata.usage as Partial<TokenUsage> | undefined;
  if (usage === undefined || typeof usage !== 'object') return ZERO_USAGE;
  return {
    promptTokens: Number(usage.promptTokens ?? 0),
    completionTokens: Number(usage.completionTokens ?? 0),
    totalTokens: Number(usage.totalTokens ?? 0),
  };
}
