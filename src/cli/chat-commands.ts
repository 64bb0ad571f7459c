import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { unknownNameMessage } from '../core/index.js';
import type { SessionInfo } from '../sessions/index.js';
import type { ChatConversation } from './chat-conversation.js';
import {
  type CHAT_COMMANDS,
  chatHelpText,
  type SlashCommand,
  unknownCommandMessage,
} from './chat-slash.js';
import { formatError, UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { parseNameList } from './cli-options.js';
import { terminalText, untrustedLine } from './cli-output.js';
import { sessionLabel, turnCount, turnsCell } from './sessions-format.js';
import { sessionMarkdown } from './sessions-markdown.js';

/** How many sessions `/sessions` lists. */
export const LISTED_SESSIONS = 10;

/** What `/clear` writes on a terminal: erase the screen and its scrollback, cursor home. */
const CLEAR_SCREEN = '\u001b[H\u001b[2J\u001b[3J';

type Reply = 'continue' | 'exit';
type Handler = (chat: ChatConversation, argument: string, io: CliIo) => Promise<Reply | undefined>;

/** The handler of each command (`CHAT_COMMANDS` names them for `/help`). */
const HANDLERS: Readonly<Record<string, Handler>> = {
  help: async (_chat, _argument, io) => say(io, chatHelpText()),
  exit: async () => 'exit',
  quit: async () => 'exit',
  new: async (chat, _argument, io) => {
    chat.startNewSession();
    return note(io, 'New session: it is stored with your next question.');
  },
  sessions: listSessions,
  resume: resumeSession,
  tools: tools,
  agent: agent,
  model: model,
  clear: async (_chat, _argument, io) => {
    if (io.stdout.isTTY) io.stdout.write(CLEAR_SCREEN);
    return 'continue';
  },
  export: exportSession,
};

/** Runs one slash command; a mistake (unknown name, bad value) prints one error line and the chat goes on. */
export async function runChatCommand(
  chat: ChatConversation,
  command: SlashCommand,
  io: CliIo,
): Promise<Reply> {
  const handler = HANDLERS[command.name];
  try {
    if (handler === undefined) throw new UsageError(unknownCommandMessage(command.name));
    return (await handler(chat, command.argument, io)) ?? 'continue';
  } catch (error) {
    io.stderr.write(formatError(error, io.session?.redactor));
    return 'continue';
  }
}

/** Checks that every command `/help` lists has a handler (for the tests). */
export function handledCommands(commands: typeof CHAT_COMMANDS): readonly string[] {
  return commands
    .map((command) => command.usage.slice(1).split(' ')[0] ?? '')
    .filter((name) => HANDLERS[name] !== undefined);
}

function say(io: CliIo, text: string): Reply {
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return 'continue';
}

function note(io: CliIo, text: string): Reply {
  io.stderr.write(`${text}\n`);
  return 'continue';
}

/** `/sessions`: the recent sessions, the current one marked `*`, with turns (and folded ones) and title. */
async function listSessions(chat: ChatConversation, _argument: string, io: CliIo): Promise<Reply> {
  const store = (await chat.system()).sessions();
  const sessions = await store.list({ limit: LISTED_SESSIONS });
  if (sessions.length === 0) return note(io, 'No sessions yet: the first question starts one.');
  const lines = sessions.map((info) => {
    const mark = info.id === chat.sessionId ? '*' : ' ';
    const title = info.title === '' ? '(no turns yet)' : untrustedLine(info.title);
    return `${mark} ${sessionLabel(info)} · ${turnsLabel(info)} · ${title}`;
  });
  return say(io, lines.join('\n'));
}

/** `3 turns`, `12 turns (8 in summary)`. */
function turnsLabel(info: SessionInfo): string {
  const cell = turnsCell(info);
  return cell.replace(/^\d+/, turnCount(info.turnCount));
}

async function resumeSession(chat: ChatConversation, argument: string, io: CliIo): Promise<Reply> {
  if (argument === '')
    throw new UsageError('/resume needs a session: /resume <name|id> (/sessions lists them)');
  const info = await chat.resume(argument);
  return note(io, `Resumed session ${sessionLabel(info)} (${turnsLabel(info)}).`);
}

/** `/tools`: the tools of the next answers and the available ones; `/tools a,b` sets them, `/tools none` clears. */
async function tools(chat: ChatConversation, argument: string, io: CliIo): Promise<Reply> {
  const system = await chat.system();
  const available = system.toolNames();
  if (argument === '') {
    const current = chat.settings.tools ?? system.config.agent.tools;
    return say(
      io,
      `Tools: ${current.length === 0 ? 'none' : current.map(untrustedLine).join(', ')}\nAvailable: ${available.join(', ')}`,
    );
  }
  const names = argument.toLowerCase() === 'none' ? [] : parseNameList('/tools')(argument);
  const prefixes = system.config.mcp.servers.map((server) => server.prefix);
  for (const name of names) {
    const remote = prefixes.some((prefix) => name.startsWith(prefix) && name !== prefix);
    if (!available.includes(name) && !remote)
      throw new UsageError(unknownNameMessage('tool', name, available));
  }
  chat.configure({ tools: names });
  return note(io, `Tools for the next answers: ${names.length === 0 ? 'none' : names.join(', ')}.`);
}

/** `/agent`: the agent of the next answers; `/agent name` switches. */
async function agent(chat: ChatConversation, argument: string, io: CliIo): Promise<Reply> {
  const system = await chat.system();
  const available = system.agentNames();
  if (argument === '') {
    const { agent: chosen, tools: chosenTools } = chat.settings;
    const current =
      chosen ??
      ((chosenTools ?? system.config.agent.tools).length > 0
        ? 'orchestrator'
        : system.config.agent.default);
    return say(io, `Agent: ${untrustedLine(current)}\nAvailable: ${available.join(', ')}`);
  }
  if (!available.includes(argument))
    throw new UsageError(unknownNameMessage('agent', argument, available));
  chat.configure({ agent: argument });
  return note(io, `Agent for the next answers: ${argument}.`);
}

/** `/model`: the model and engine of the next answers; `/model name` switches the model. */
async function model(chat: ChatConversation, argument: string, io: CliIo): Promise<Reply> {
  if (argument !== '') {
    await chat.useModel(argument);
    const engine = await chat.engine();
    return note(io, `Model for the next answers: ${untrustedLine(engine.model)} on ${engine.key}.`);
  }
  const engine = await chat.engine();
  return say(io, `Model: ${untrustedLine(engine.model)} on ${untrustedLine(engine.key)}`);
}

/** `/export [path]`: the session as Markdown, printed (made terminal-safe) or written to a file. */
async function exportSession(chat: ChatConversation, argument: string, io: CliIo): Promise<Reply> {
  const info = await chat.sessionInfo();
  if (info === undefined)
    return note(io, 'Nothing to export yet: the session starts with your first question.');
  const turns = await (await chat.system()).sessions().turns(info.id);
  const markdown = sessionMarkdown(info, turns);
  if (argument === '') return say(io, terminalText(markdown, io.stdout));
  const path = resolve(io.cwd, argument);
  await writeFile(path, markdown, 'utf8');
  return note(
    io,
    `Wrote ${sessionLabel(info)} (${turnCount(turns.length)}) to ${untrustedLine(path)}`,
  );
}
