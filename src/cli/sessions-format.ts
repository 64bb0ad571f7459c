import { type Message, safeForTerminal } from '../core/index.js';
import type { SessionInfo, SessionTurn } from '../sessions/index.js';
import { formatInstant, formatTable, safeCell, truncate } from './scheduler-format.js';

/** How many characters of a tool call's arguments or result `sessions show` prints. */
const SHOWN_TOOL_CHARS = 200;

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
