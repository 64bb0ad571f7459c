import type { Message, TokenUsage } from '../core/index.js';

/** How a turn ended: answered, stopped by the person (Ctrl-C), or failed (engine or model error). */
export type SessionTurnStatus = 'completed' | 'cancelled' | 'failed';

/**
 * One exchange of a session: the person's message, then the assistant's messages and tool results of the run,
 * tool calls always paired with their results (see `pairToolCalls`). Written whole or not at all.
 */
export interface SessionTurn {
  /** Position in the session, from 1, in the order turns were written. */
  readonly seq: number;
  /** The user message first, then what the run added (assistant messages with their tool calls, tool results). */
  readonly messages: readonly Message[];
  /** Registry key of the agent that answered. */
  readonly agent: string;
  /** The model as the engine reported it (or as asked for, when the turn failed before an answer). */
  readonly model: string;
  /** Registry key of the engine. */
  readonly engine: string;
  /** Tokens over every engine call of the turn. */
  readonly usage: TokenUsage;
  readonly status: SessionTurnStatus;
  /** Wall-clock milliseconds since the epoch. */
  readonly startedMs: number;
  readonly endedMs: number;
}

/** A turn as the caller hands it to the store: the store assigns `seq`. */
export type NewSessionTurn = Omit<SessionTurn, 'seq'>;

/** The running summary of the turns that no longer fit a model's context. */
export interface SessionSummary {
  /** The summary text, written by the session's model. */
  readonly text: string;
  /** The summary covers turns 1 to `throughSeq`; the history sent to the model starts after it. */
  readonly throughSeq: number;
  readonly updatedMs: number;
}

/** A session as listed: identity, size and the summary, without its turns. */
export interface SessionInfo {
  /** Stable id (`ses_` and 16 hex digits). */
  readonly id: string;
  /** Optional unique name a person chose (`--session work`). */
  readonly name: string | undefined;
  /** The start of the first user message (up to 80 characters), '' for a session without turns. */
  readonly title: string;
  readonly turnCount: number;
  readonly createdMs: number;
  /** When the last turn was written (or the session created). */
  readonly updatedMs: number;
  readonly summary: SessionSummary | undefined;
}

/** Options of `SessionStore.create`. */
export interface CreateSessionOptions {
  /** A unique name: 1-64 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
  readonly name?: string | undefined;
}

/** Options of `SessionStore.list`. */
export interface ListSessionsOptions {
  /** At most this many, most recently updated first (default 50). */
  readonly limit?: number | undefined;
}

/** Options of `SessionStore.turns`. */
export interface SessionTurnsOptions {
  /** Only turns after this `seq` (default 0: all). */
  readonly afterSeq?: number | undefined;
}
