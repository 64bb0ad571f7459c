import { isPlainObject, type Message, type ToolCall } from '../core/index.js';
import type { SessionInfo, SessionTurn, SessionTurnStatus } from './session-types.js';

/** A `sessions` row as SQL returns it (the same columns in every backend). */
export interface SessionRow {
  readonly id: string;
  readonly name: string | null;
  readonly title: string;
  readonly turn_count: number;
  readonly created_ms: number;
  readonly updated_ms: number;
  readonly summary_text: string | null;
  readonly summary_through: number | null;
  readonly summary_ms: number | null;
}

/** A `session_turns` row as SQL returns it. */
export interface TurnRow {
  readonly seq: number;
  readonly messages: string;
  readonly agent: string;
  readonly model: string;
  readonly engine: string;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly status: string;
  readonly started_ms: number;
  readonly ended_ms: number;
}

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);
const STATUSES: ReadonlySet<string> = new Set(['completed', 'cancelled', 'failed']);
/** Characters of the first user message kept as a session's title. */
export const TITLE_LENGTH = 80;

/** A session as the store returns it. */
export function toSessionInfo(row: SessionRow): SessionInfo {
  const summary =
    row.summary_text === null
      ? undefined
      : {
          text: row.summary_text,
          throughSeq: Number(row.summary_through ?? 0),
          updatedMs: Number(row.summary_ms ?? 0),
        };
  return {
    id: row.id,
    name: row.name ?? undefined,
    title: row.title,
    turnCount: Number(row.turn_count),
    createdMs: Number(row.created_ms),
    updatedMs: Number(row.updated_ms),
    summary,
  };
}

/** A turn as the store returns it; a row whose messages are not readable is an `Error` naming what is wrong. */
export function toSessionTurn(row: TurnRow): SessionTurn {
  const status = STATUSES.has(row.status) ? (row.status as SessionTurnStatus) : 'failed';
  return {
    seq: Number(row.seq),
    messages: decodeMessages(row.messages),
    agent: row.agent,
    model: row.model,
    engine: row.engine,
    usage: {
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      totalTokens: Number(row.total_tokens),
    },
    status,
    startedMs: Number(row.started_ms),
    endedMs: Number(row.ended_ms),
  };
}

/** The stored text of a turn's messages (only the fields a message has, so nothing else is kept). */
export function encodeMessages(messages: readonly Message[]): string {
  return JSON.stringify(messages.map(checkedMessage));
}

/** The messages of a stored turn; throws an `Error` saying what is wrong when the text is not such a list. */
export function decodeMessages(text: string): Message[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error('its messages are not a list');
  return value.map(checkedMessage);
}

/** A copy of `value` with only a message's fields, or an `Error` naming the first wrong field. */
export function checkedMessage(value: unknown, index: number): Message {
  if (!isPlainObject(value)) throw new Error(`message ${index + 1} is not an object`);
  const { role, content, name, toolCalls, toolCallId, metadata } = value;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw new Error(
      `message ${index + 1} has role ${JSON.stringify(role)}; accepted: ${[...ROLES].join(', ')}`,
    );
  }
  if (typeof content !== 'string') throw new Error(`message ${index + 1} has no text content`);
  return {
    role: role as Message['role'],
    content,
    ...(typeof name === 'string' ? { name } : {}),
    ...(Array.isArray(toolCalls) && toolCalls.length > 0
      ? { toolCalls: toolCalls.map((call, at) => checkedCall(call, index, at)) }
      : {}),
    ...(typeof toolCallId === 'string' ? { toolCallId } : {}),
    ...(isPlainObject(metadata) ? { metadata: metadata as Message['metadata'] & object } : {}),
  };
}

function checkedCall(value: unknown, message: number, index: number): ToolCall {
  if (
    !isPlainObject(value) ||
    typeof value.id !== 'string' ||
    typeof value.name !== 'string' ||
    typeof value.arguments !== 'string'
  ) {
    throw new Error(
      `tool call ${index + 1} of message ${message + 1} needs string id, name and arguments`,
    );
  }
  return { id: value.id, name: value.name, arguments: value.arguments };
}

/** The title a session gets from its first user message: spaces folded, at most `TITLE_LENGTH` characters. */
export function titleOf(messages: readonly Message[]): string {
  const first = messages.find((message) => message.role === 'user')?.content ?? '';
  const folded = first.replace(/\s+/g, ' ').trim();
  return folded.length <= TITLE_LENGTH ? folded : `${folded.slice(0, TITLE_LENGTH - 1)}…`;
}
