import type { Message } from '../core/index.js';
import type { SessionInfo, SessionTurn } from '../sessions/index.js';
import { formatInstant } from './scheduler-format.js';

/**
 * A session as a Markdown document for people (`jarvis sessions export --format md`): a header with the
 * session's facts, the running summary, then each turn with the question, tool calls with their arguments and
 * results in code blocks, and the answer. Stored text is kept as it is (the caller makes it safe for a terminal).
 */
export function sessionMarkdown(info: SessionInfo, turns: readonly SessionTurn[]): string {
  const title = info.name === undefined ? info.id : `${info.name} (${info.id})`;
  const parts = [
    `# Session ${oneLine(title)}`,
    [
      `- Title: ${oneLine(info.title) || '(no turns yet)'}`,
      `- Turns: ${info.turnCount}`,
      `- Created: ${formatInstant(info.createdMs)}`,
      `- Updated: ${formatInstant(info.updatedMs)}`,
    ].join('\n'),
  ];
  if (info.summary !== undefined) {
    parts.push(`## Summary of turns 1-${info.summary.throughSeq}`, info.summary.text.trim());
  }
  for (const turn of turns) parts.push(...turnMarkdown(turn));
  return `${parts.join('\n\n')}\n`;
}

function turnMarkdown(turn: SessionTurn): string[] {
  const usage =
    turn.usage.totalTokens > 0
      ? ` · ${turn.usage.totalTokens} tokens (${turn.usage.promptTokens} prompt, ${turn.usage.completionTokens} answer)`
      : '';
  const status = turn.status === 'completed' ? '' : ` · **${turn.status}**`;
  const parts = [
    `## Turn ${turn.seq}`,
    `*${formatInstant(turn.startedMs)} · ${oneLine(turn.agent)} · ${oneLine(turn.model)} on ${oneLine(turn.engine)}${usage}*${status}`,
  ];
  for (const message of turn.messages) parts.push(...messageMarkdown(message));
  return parts;
}

function messageMarkdown(message: Message): string[] {
  switch (message.role) {
    case 'user':
      return ['**You:**', message.content.trim()];
    case 'tool':
      return ['**Result:**', codeBlock(message.content, '')];
    case 'system':
      return ['**System:**', message.content.trim()];
    default: {
      const parts = message.content.trim() === '' ? [] : ['**Jarvis:**', message.content.trim()];
      for (const call of message.toolCalls ?? [])
        parts.push(`**Tool call** \`${oneLine(call.name)}\`:`, codeBlock(call.arguments, 'json'));
      return parts;
    }
  }
}

/** A fenced code block whose fence is longer than any run of backticks in `text`. */
export function codeBlock(text: string, language: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text.replace(/\n+$/, '')}\n${fence}`;
}

/** Text on one line (for headings and list items). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
