/** Token counts of one or more model calls. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** Usage of nothing at all. */
export const ZERO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Adds token counts, e.g. over every engine call of an agent run. */
export function addUsage(left: TokenUsage, right: Partial<TokenUsage>): TokenUsage {
  const promptTokens = left.promptTokens + (right.promptTokens ?? 0);
  const completionTokens = left.completionTokens + (right.completionTokens ?? 0);
  return {
    promptTokens,
    completionTokens,
    totalTokens:
      left.totalTokens +
      (right.totalTokens ?? (right.promptTokens ?? 0) + (right.completionTokens ?? 0)),
  };
}
