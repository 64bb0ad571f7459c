import type { ToolResult } from '../core/index.js';
import type { AskResult, SessionAskResult } from '../sdk/index.js';
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
  /** Only with `--session`/`--continue`: the session and the turn the question became. */
  readonly session?: SessionJson;
  /** Only with `--session`/`--continue`: how the earlier turns were fitted into the model's context. */
  readonly history?: HistoryJson;
}

/** The session a `jarvis ask --session` turn went to, as `--json` prints it. */
export interface SessionJson {
  readonly id: string;
  /** `null` for an unnamed session. */
  readonly name: string | null;
  /** The stored turn's position in the session, from 1. */
  readonly turn: number;
}

/** The history report of a session turn, as `--json` prints it (`null` where the size is not known). */
export interface HistoryJson {
  /** Earlier turns sent whole. */
  readonly kept_turns: number;
  /** Earlier turns covered by the running summary instead. */
  readonly folded_turns: number;
  /** Whether the summary was rewritten before this turn. */
  readonly summary_updated: boolean;
  readonly prompt_tokens: number | null;
  readonly context_tokens: number | null;
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
 * stopped before a final answer also carries its `stop_reason`, and a session turn its `session` and `history`.
 */
export function formatAskJson(
  result: AskResult | SessionAskResult,
  stopReason?: StopReason,
): string {
  const json: AskResultJson = {
    ...askResultJson(result),
    ...(stopReason === undefined ? {} : { stop_reason: stopReason }),
    ...('session' in result ? sessionTurnJson(result) : {}),
  };
  return jsonText(json);
}

/** The `session` and `history` fields of a session turn's `--json` output. */
export function sessionTurnJson(
  result: SessionAskResult,
): Pick<Required<AskResultJson>, 'session' | 'history'> {
  const { history } = result;
  return {
    session: { id: result.session.id, name: result.session.name ?? null, turn: result.turn },
    history: {
      kept_turns: history.keptTurns,
      folded_turns: history.foldedTurns,
      summary_updated: history.summaryUpdated,
      prompt_tokens: history.promptTokens ?? null,
      context_tokens: history.contextTokens ?? null,
    },
  };
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
