import type { AgentResult, Message, TokenUsage, ToolResult } from '../core/index.js';
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
  /** The completed exchanges the run reports (`AgentResult.messages` before the final answer). */
  readonly runMessages: readonly Message[];
  readonly publishTurnEnd: PublishTurnEnd;
}

/** The reported messages of a run that ended: its exchanges, then the final answer as an assistant message. */
export function withFinalAnswer(
  runMessages: readonly Message[],
  content: string,
): readonly Message[] {
  const messages = runMessages.slice();
  messages.push({ role: 'assistant', content });
  return messages;
}

/** The result of a run that answered with `content`, after publishing `agent_turn_end` `{ turns, contentLength }`. */
export function answerResult(
  run: RunRecord,
  content: string,
  metadata?: Readonly<Record<string, unknown>>,
): AgentResult {
  run.publishTurnEnd({ turns: run.turns, contentLength: content.length });
  return {
    content,
    toolResults: run.toolResults.slice(),
    turns: run.turns,
    metadata: metadata === undefined ? { usage: run.usage } : { ...metadata, usage: run.usage },
    messages: withFinalAnswer(run.runMessages, content),
  };
}

/** The max-turns result of an engine-backed run (`maxTurnsResult` with its usage), answering with `content` if any. */
export function outOfTurnsResult(run: RunRecord, content: string): AgentResult {
  return maxTurnsResult(run.publishTurnEnd, {
    toolResults: [...run.toolResults],
    turns: run.turns,
    content,
    metadata: { usage: run.usage },
    messages: run.runMessages,
  });
}

/** What `maxTurnsResult` reports: the run so far and the text to answer with (default `MAX_TURNS_MESSAGE`). */
export interface MaxTurnsRecord {
  readonly toolResults: readonly ToolResult[];
  readonly turns: number;
  readonly content?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** The run's completed exchanges; the result reports them followed by its answer (left out when absent). */
  readonly messages?: readonly Message[];
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
  const content = record.content || MAX_TURNS_MESSAGE;
  return {
    content,
    toolResults: record.toolResults,
    turns: record.turns,
    metadata: { ...record.metadata, max_turns_exceeded: true },
    ...(record.messages === undefined
      ? {}
      : { messages: withFinalAnswer(record.messages, content) }),
  };
}
