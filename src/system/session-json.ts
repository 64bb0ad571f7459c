import type { Message } from '../core/index.js';
import { formatIsoInstant } from '../scheduler/index.js';
import type { SessionInfo, SessionSummary, SessionTurn } from '../sessions/index.js';

// The JSON of sessions, shared by `jarvis sessions --json` / `export --format json` and the server's /api.

/** The `format` value of an exported session document. */
export const SESSION_DOCUMENT_FORMAT = 'openjarvis.session';
/** The version of the exported session document's shape (raised only when a field changes meaning). */
export const SESSION_DOCUMENT_VERSION = 1;

/** A session's running summary as JSON. */
export interface SummaryJson {
  readonly text: string;
  /** The summary covers turns 1 to this one. */
  readonly through_turn: number;
  readonly updated_at: string;
}

/** A session (without its turns) as `sessions list --json` and the exported document print it. */
export interface SessionInfoJson {
  readonly id: string;
  readonly name: string | null;
  readonly title: string;
  readonly turns: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly summary: SummaryJson | null;
}

/** A stored message as JSON (the OpenAI chat shape in snake_case). */
export interface MessageJson {
  readonly role: string;
  readonly content: string;
  readonly name?: string;
  readonly tool_calls?: readonly { id: string; name: string; arguments: string }[];
  readonly tool_call_id?: string;
  readonly metadata?: unknown;
}

/** A stored turn as JSON. */
export interface TurnJson {
  readonly turn: number;
  readonly status: string;
  readonly agent: string;
  readonly model: string;
  readonly engine: string;
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  };
  readonly started_at: string;
  readonly ended_at: string;
  readonly messages: readonly MessageJson[];
}

/** A whole session as `sessions show --json` and `sessions export --format json` print it. */
export interface SessionDocument {
  readonly format: typeof SESSION_DOCUMENT_FORMAT;
  readonly version: typeof SESSION_DOCUMENT_VERSION;
  readonly session: SessionInfoJson;
  readonly turns: readonly TurnJson[];
}

/** A session's identity, size and summary in snake_case JSON. */
export function sessionInfoJson(info: SessionInfo): SessionInfoJson {
  return {
    id: info.id,
    name: info.name ?? null,
    title: info.title,
    turns: info.turnCount,
    created_at: formatIsoInstant(info.createdMs),
    updated_at: formatIsoInstant(info.updatedMs),
    summary: info.summary === undefined ? null : summaryJson(info.summary),
  };
}

function summaryJson(summary: SessionSummary): SummaryJson {
  return {
    text: summary.text,
    through_turn: summary.throughSeq,
    updated_at: formatIsoInstant(summary.updatedMs),
  };
}

/** The complete, stable JSON document of a session and its turns. */
export function sessionDocument(info: SessionInfo, turns: readonly SessionTurn[]): SessionDocument {
  return {
    format: SESSION_DOCUMENT_FORMAT,
    version: SESSION_DOCUMENT_VERSION,
    session: sessionInfoJson(info),
    turns: turns.map(turnJson),
  };
}

/** A stored turn with its messages in snake_case JSON. */
export function turnJson(turn: SessionTurn): TurnJson {
  return {
    turn: turn.seq,
    status: turn.status,
    agent: turn.agent,
    model: turn.model,
    engine: turn.engine,
    usage: {
      prompt_tokens: turn.usage.promptTokens,
      completion_tokens: turn.usage.completionTokens,
      total_tokens: turn.usage.totalTokens,
    },
    started_at: formatIsoInstant(turn.startedMs),
    ended_at: formatIsoInstant(turn.endedMs),
    messages: turn.messages.map(messageJson),
  };
}

function messageJson(message: Message): MessageJson {
  return {
    role: message.role,
    content: message.content,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.toolCalls === undefined || message.toolCalls.length === 0
      ? {}
      : {
          tool_calls: message.toolCalls.map(({ id, name, arguments: args }) => ({
            id,
            name,
            arguments: args,
          })),
        }),
    ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
    ...(message.metadata === undefined ? {} : { metadata: message.metadata }),
  };
}
