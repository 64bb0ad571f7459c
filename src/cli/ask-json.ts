import type { ToolResult } from '../core/index.js';
import type { AskResult } from '../sdk/index.js';
import type { StopReason } from './ask-stop.js';
import { jsonText } from './cli-output.js';

/** One tool result as `jarvis ask --json` prints it. */
export interface ToolResultJson {
  readonly tool_name: string;
  readonly content: string;
  readonly success: boolean;
  readonly error_code?: string;
  readonly latency_seconds: number;
}

/** The `askFull` result in snake_case, as `jarvis ask --json` prints it. */
export interface AskResultJson {
  readonly content: string;
  readonly turns: number;
  readonly tool_results: readonly ToolResultJson[];
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  };
  readonly model: string;
  readonly engine: string;
  readonly agent: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Only for a run stopped before a final answer: `max_turns` or `loop_detected`. */
  readonly stop_reason?: StopReason;
}

/** Converts an `askFull` result to its snake_case JSON shape (metadata keys are snake_cased too). */
export function askResultJson(result: AskResult): AskResultJson {
  return {
    content: result.content,
    turns: result.turns,
    tool_results: result.toolResults.map(toolResultJson),
    usage: {
      prompt_tokens: result.usage.promptTokens,
      completion_tokens: result.usage.completionTokens,
      total_tokens: result.usage.totalTokens,
    },
    model: result.model,
    engine: result.engine,
    agent: result.agent,
    metadata: snakeKeys(result.metadata) as Record<string, unknown>,
  };
}

/**
 * The JSON text printed by `jarvis ask --json`: pretty-printed with two spaces, ending with a newline; a run
 * stopped before a final answer also carries its `stop_reason`.
 */
export function formatAskJson(result: AskResult, stopReason?: StopReason): string {
  const json = askResultJson(result);
  return jsonText(stopReason === undefined ? json : { ...json, stop_reason: stopReason });
}

function toolResultJson(result: ToolResult): ToolResultJson {
  return {
    tool_name: result.toolName,
    content: result.content,
    success: result.success,
    ...(result.success ? {} : { error_code: result.errorCode }),
    latency_seconds: result.latencySeconds,
  };
}

/** `promptTokens` → `prompt_tokens`, `HTTPStatus` → `http_status`; snake_case keys stay as they are. */
export function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (typeof value !== 'object' || value === null) return value;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [snakeCase(key), snakeKeys(item)]),
  );
}
