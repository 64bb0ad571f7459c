import { unknownNameMessage } from '../core/index.js';

/** A slash command typed in the chat: its name (without `/`) and the rest of the line. */
export interface SlashCommand {
  readonly name: string;
  /** The text after the name, trimmed ('' when none). */
  readonly argument: string;
}

/** The chat's commands with their one-line help, in the order `/help` lists them. */
export const CHAT_COMMANDS: readonly { readonly usage: string; readonly help: string }[] = [
  { usage: '/help', help: 'show these commands' },
  { usage: '/new', help: 'start a new session' },
  {
    usage: '/sessions',
    help: 'list recent sessions (turns, title, how many are folded into a summary)',
  },
  { usage: '/resume <name|id>', help: 'continue an earlier session' },
  { usage: '/tools [a,b|none]', help: 'show the tools, or set the tools of the next answers' },
  { usage: '/agent [name]', help: 'show the agent, or answer with another one' },
  { usage: '/model [name]', help: 'show the model, or answer with another one' },
  { usage: '/clear', help: 'clear the screen (the session is kept)' },
  { usage: '/export [path]', help: 'the session as Markdown: printed, or written to a file' },
  { usage: '/exit', help: 'leave the chat (also Ctrl-D)' },
];

/** The command names, without `/`. */
export const CHAT_COMMAND_NAMES: readonly string[] = CHAT_COMMANDS.map(
  (command) => command.usage.slice(1).split(' ')[0] ?? '',
);

/**
 * The slash command an input is, or undefined for a question: `/word` at the very start followed by the end or
 * whitespace (`/usr/bin is what?` is a question). The name is matched case-insensitively.
 */
export function parseSlashCommand(text: string): SlashCommand | undefined {
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (match === null) return undefined;
  return { name: (match[1] ?? '').toLowerCase(), argument: (match[2] ?? '').trim() };
}

/** What `/help` prints, and the keys to know. */
export function chatHelpText(): string {
  const width = Math.max(...CHAT_COMMANDS.map((command) => command.usage.length));
  const lines = CHAT_COMMANDS.map((command) => `  ${command.usage.padEnd(width)}  ${command.help}`);
  return [
    'Commands:',
    ...lines,
    'Keys: Ctrl-C stops an answer; Ctrl-C twice or Ctrl-D leaves; up/down recall earlier lines.',
    'A line ending in \\ continues on the next; """ starts a block that runs to the next """.',
    '',
  ].join('\n');
}

/** The message for a command the chat does not know, naming the known ones (and the closest). */
export function unknownCommandMessage(name: string): string {
  return `${unknownNameMessage(
    'command',
    `/${name}`,
    CHAT_COMMAND_NAMES.map((known) => `/${known}`),
  )} (/help explains them)`;
}
