import { withAdvice } from './ask-advice.js';
import { runChatCommand } from './chat-commands.js';
import { ChatConversation } from './chat-conversation.js';
import type { ChatFlags } from './chat-flags.js';
import { chatHistoryPath, loadChatHistory, saveChatHistory } from './chat-history-file.js';
import type { ChatInput } from './chat-input.js';
import { LinesInput } from './chat-lines-input.js';
import { runChatLoop } from './chat-loop.js';
import { TerminalInput, type TerminalStdin } from './chat-terminal-input.js';
import { CliExit, ExitCode, formatError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { untrustedLine } from './cli-output.js';
import { sessionLabel, turnCount } from './sessions-format.js';

/**
 * `jarvis chat`: a conversation kept as a session. On a terminal: a banner, a line editor with history (kept
 * in `<home>/chat_history`), streamed answers, slash commands, Ctrl-C cancelling the answer in progress.
 * Through a pipe: each line (or continued input) is a question answered in turn, no prompt; exit 1 at the
 * end when an answer failed. A failed answer prints one error line and the chat goes on.
 */
export async function runChat(flags: ChatFlags, io: CliIo): Promise<void> {
  const terminal = io.stdin.isTTY === true;
  const input = terminal
    ? new TerminalInput({ stdin: io.stdin as TerminalStdin, output: io.stderr, signal: io.signal })
    : new LinesInput(io.stdin);
  let chat: ChatConversation | undefined;
  let historyPath: string | undefined;
  try {
    chat = await ChatConversation.open(flags, io, input);
    if (input instanceof TerminalInput) {
      historyPath = chatHistoryPath((await chat.system()).config.home);
      input.useHistory(await loadChatHistory(historyPath));
      await writeBanner(chat, flags, io);
    }
    const current = chat;
    const outcome = await runChatLoop({
      input,
      stderr: io.stderr,
      signal: io.signal,
      handlers: {
        answer: (question, signal) => current.answer(question, signal),
        command: (command) => runChatCommand(current, command, io),
      },
    });
    if (io.signal.aborted) throw io.signal.reason;
    if (!terminal && outcome.failures > 0) throw new CliExit(ExitCode.failure);
  } finally {
    await keepHistory(input, historyPath, io);
    input.close();
    await chat?.close();
  }
}

/** `Chat in session ses_… (trip, 3 turns) · qwen3:8b on ollama · /help for commands, Ctrl-D to leave`. */
async function writeBanner(chat: ChatConversation, flags: ChatFlags, io: CliIo): Promise<void> {
  const info = await chat.sessionInfo();
  const session =
    info === undefined
      ? 'a new session'
      : `session ${sessionLabel(info)}, ${turnCount(info.turnCount)}`;
  let model = '';
  try {
    const engine = await chat.engine();
    model = ` · ${untrustedLine(engine.model)} on ${untrustedLine(engine.key)}`;
  } catch (error) {
    if (!(await offeredModel(error, chat, flags, io)))
      io.stderr.write(formatError(withAdvice(error), io.session?.redactor));
  }
  io.stderr.write(`Chat in ${session}${model} · /help for commands, Ctrl-D to leave\n`);
}

/** No engine and no model on a first run: offers to download one (as `jarvis ask` does); true when it did. */
async function offeredModel(
  error: unknown,
  chat: ChatConversation,
  flags: ChatFlags,
  io: CliIo,
): Promise<boolean> {
  const { NoModelError } = await import('../system/index.js');
  const missing = NoModelError.find(error);
  if (missing === undefined || io.signal.aborted) return false;
  const { offerFirstModel } = await import('./first-run.js');
  if (!(await offerFirstModel(missing, flags, io))) return true;
  await chat.useModel(undefined);
  return true;
}

/** Saves the line editor's history (without secrets) into the home; a failure is only a warning. */
async function keepHistory(input: ChatInput, path: string | undefined, io: CliIo): Promise<void> {
  if (!(input instanceof TerminalInput) || path === undefined) return;
  await saveChatHistory(path, input.history, io.session?.redactor).catch((error: unknown) => {
    io.stderr.write(
      `warning: could not save the chat history: ${formatError(error).replace(/^error: /, '')}`,
    );
  });
}
