import { type Message, safeForTerminal } from '../core/index.js';
import { formatIsoInstant } from '../scheduler/index.js';
import type { SessionInfo, SessionSummary, SessionTurn } from '../sessions/index.js';
import { formatInstant, formatTable, safeCell, truncate } from './scheduler-format.js';

/** The `format` value of an exported session document. */
export const SESSION_DOCUMENT_FORMAT = 'openjarvis.session';
/** The version of the exported session document's shape (raised only when a field changes meaning). */
export const SESSION_DOCUMENT_VERSION = 1;

/** How many characters of a tool call's arguments or result `sessions show` prints. */
const SHOWN_TOOL_CHARS = 200;

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

function turnJson(turn: SessionTurn): TurnJson {
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

/** `12`, or `12 (8 in summary)` when the oldest turns are folded into the running summary. */
export function turnsCell(info: SessionInfo): string {
  const folded = info.summary?.throughSeq ?? 0;
  return folded > 0 ? `${info.turnCount} (${folded} in summary)` : String(info.turnCount);
}

/** The `jarvis sessions list` table: id, name, turns, last update, title (cut to the width). */
export function formatSessionTable(
  sessions: readonly SessionInfo[],
  widthColumns: number | undefined,
): string {
  return formatTable(
    ['ID', 'NAME', 'TURNS', 'UPDATED', 'TITLE'],
    sessions.map((info) => [
      info.id,
      info.name ?? '-',
      turnsCell(info),
      formatInstant(info.updatedMs),
      info.title === '' ? '(no turns yet)' : info.title,
    ]),
    widthColumns,
  );
}

/** A session's name for people: `ses_… (name)` or the bare id; escapes made visible. */
export function sessionLabel(info: SessionInfo): string {
  return info.name === undefined
    ? safeCell(info.id)
    : `${safeCell(info.id)} (${safeCell(info.name)})`;
}

/** `1 turn`, `3 turns`. */
export function turnCount(count: number): string {
  return count === 1 ? '1 turn' : `${count} turns`;
}

/**
 * The conversation as `jarvis sessions show` prints it: a header, the running summary when there is one, then
 * every turn (questions, tool calls with their arguments and results shortened, answers, the status of a turn
 * that failed or was cancelled, agent, model and usage). Stored text is shown with escapes made visible.
 */
export function formatSessionShow(info: SessionInfo, turns: readonly SessionTurn[]): string {
  const lines = [
    `Session ${sessionLabel(info)}: ${turnCount(info.turnCount)}, created ${formatInstant(info.createdMs)}, updated ${formatInstant(info.updatedMs)}`,
  ];
  if (info.summary !== undefined) {
    lines.push(
      '',
      `Summary of turns 1-${info.summary.throughSeq} (updated ${formatInstant(info.summary.updatedMs)}):`,
      indented(info.summary.text, '  '),
    );
  }
  if (turns.length === 0) lines.push('', 'No turns yet.');
  for (const turn of turns) lines.push('', ...showTurn(turn));
  return `${lines.join('\n')}\n`;
}

function showTurn(turn: SessionTurn): string[] {
  const lines = [`── Turn ${turn.seq} · ${turnFacts(turn)}`];
  for (const message of turn.messages) lines.push(...showMessage(message));
  if (turn.status !== 'completed' && !turn.messages.some((m) => m.role === 'assistant'))
    lines.push(`  (${turn.status} before an answer)`);
  return lines;
}

/** `2026-12-01T12:00:00+00:00 · orchestrator · qwen3:8b on ollama · 48 tokens (40 prompt, 8 answer) · failed`. */
export function turnFacts(turn: SessionTurn): string {
  const { usage } = turn;
  const tokens =
    usage.totalTokens > 0
      ? ` · ${usage.totalTokens} tokens (${usage.promptTokens} prompt, ${usage.completionTokens} answer)`
      : '';
  const status = turn.status === 'completed' ? '' : ` · ${turn.status.toUpperCase()}`;
  return `${formatInstant(turn.startedMs)} · ${safeCell(turn.agent)} · ${safeCell(turn.model)} on ${safeCell(turn.engine)}${tokens}${status}`;
}

function showMessage(message: Message): string[] {
  if (message.role === 'user') return [`you: ${indented(message.content, '     ').trimStart()}`];
  if (message.role === 'tool')
    return [`    ↳ ${truncate(message.content, SHOWN_TOOL_CHARS) || '(empty result)'}`];
  if (message.role === 'system') return [`system: ${truncate(message.content, SHOWN_TOOL_CHARS)}`];
  const lines = (message.toolCalls ?? []).map(
    (call) => `  → ${safeCell(call.name)} ${truncate(call.arguments, SHOWN_TOOL_CHARS)}`,
  );
  if (message.content.trim() !== '')
    lines.unshift(`jarvis: ${indented(message.content, '        ').trimStart()}`);
  return lines;
}

/** Multi-line stored text, escapes made visible, every line after `prefix`. */
function indented(text: string, prefix: string): string {
  return safeForTerminal(text.trimEnd())
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}
