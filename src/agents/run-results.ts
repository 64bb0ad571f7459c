import type { AgentResult, TokenUsage, ToolResult } from '../core/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';

/** Publishes `agent_turn_end` with the given data (the agent adds `agent`). */
export type PublishTurnEnd = (data: Readonly<Record<string, unknown>>) => void;

/** What an engine-backed run has done, as its result reports it, and where it reports its end. */
export interface RunRecord {
  readonly toolResults: readonly ToolResult[];
  /** Completed turns. */
  readonly turns: number;
  /** Usage over the run's engine calls, reported in `metadata.usage`. */
  readonly usage: TokenUsage;
  readonly publishTurnEnd: PublishTurnEnd;
}

/** The result of a run that answered with `content`, after publishing `agent_turn_end` `{ turns, contentLength }`. */
export function answerResult(
  run: RunRecord,
  content: string,
  metadata: Readonly<Record<string, unknown>> = {},
): AgentResult {
  run.publishTurnEnd({ turns: run.turns, contentLength: content.length });
  return {
    content,
    toolResults: [...run.toolResults],
    turns: run.turns,
    metadata: { ...metadata, usage: run.usage },
  };
}

/** The max-turns result of an engine-backed run (`maxTurnsResult` with its usage), answering with `content` if any. */
export function outOfTurnsResult(run: RunRecord, content: string): AgentResult {
  return maxTurnsResult(run.publishTurnEnd, {
    toolResults: [...run.toolResults],
    turns: run.turns,
    content,
    metadata: { usage: run.usage },
  });
}

/** What `maxTurnsResult` reports: the run so far and the text to answer with (default `MAX_TURNS_MESSAGE`). */
export interface MaxTurnsRecord {
  readonly toolResults: readonly ToolResult[];
  readonly turns: number;
  readonly content?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/**
 * The documented result of a run that hit its turn limit (`metadata.max_turns_exceeded`, content the given text
 * or `MAX_TURNS_MESSAGE`), after publishing `agent_turn_end` `{ turns, maxTurnsExceeded: true }`.
 */
export function maxTurnsResult(
  publishTurnEnd: PublishTurnEnd,
  record: MaxTurnsRecord,
): AgentResult {
  publishTurnEnd({ turns: record.turns, maxTurnsExceeded: true });
  return {
    content: record.content || MAX_TURNS_MESSAGE,
    toolResults: record.toolResults,
    turns: record.turns,
    metadata: { ...record.metadata, max_turns_exceeded: true },
  };
}
