import { type ChatInput, readChatInput } from './chat-input.js';
import { parseSlashCommand, type SlashCommand } from './chat-slash.js';
import type { CliStream } from './cli-io.js';

/** What the loop says after a first Ctrl-C at an empty prompt. */
export const LEAVE_HINT = '(press Ctrl-C again or Ctrl-D to leave)\n';

/** What the chat does with each input: answer a question, or run a slash command. */
export interface ChatHandlers {
  /** Answers a question; resolves false when the answer failed (the failure is already printed). */
  answer(question: string, signal: AbortSignal): Promise<boolean>;
  /** Runs a slash command; `exit` ends the chat. */
  command(command: SlashCommand): Promise<'continue' | 'exit'>;
}

/** Options of `runChatLoop`. */
export interface ChatLoopOptions {
  readonly input: ChatInput;
  readonly handlers: ChatHandlers;
  /** Where the loop's own notices go (the Ctrl-C hint). */
  readonly stderr: CliStream;
  /** The program's signal (SIGINT/SIGTERM through a pipe): the chat ends when it is aborted. */
  readonly signal: AbortSignal;
}

/** How a chat ended. */
export interface ChatLoopOutcome {
  /** Questions whose answer failed. */
  readonly failures: number;
}

/**
 * The read-answer loop: reads complete inputs, runs slash commands, and answers the rest with a Ctrl-C
 * (a key on a terminal) cancelling only the answer in progress. At an empty prompt a first Ctrl-C prints the
 * hint and a second one in a row leaves, as Ctrl-D and the end of piped input do.
 */
export async function runChatLoop(options: ChatLoopOptions): Promise<ChatLoopOutcome> {
  const { input, handlers, stderr, signal } = options;
  let failures = 0;
  let armed = false;
  while (!signal.aborted) {
    const event = await readChatInput(input);
    if (event.type === 'end' || signal.aborted) break;
    if (event.type === 'interrupt') {
      if (!event.hadText && armed) break;
      armed = !event.hadText;
      if (armed) stderr.write(LEAVE_HINT);
      continue;
    }
    armed = false;
    if (event.text.trim() === '') continue;
    const command = parseSlashCommand(event.text);
    if (command !== undefined) {
      if ((await handlers.command(command)) === 'exit') break;
      continue;
    }
    if (!(await answerOnce(input, handlers, event.text, signal))) failures += 1;
  }
  return { failures };
}

/** Answers one question; Ctrl-C while it runs aborts only this answer. */
async function answerOnce(
  input: ChatInput,
  handlers: ChatHandlers,
  question: string,
  signal: AbortSignal,
): Promise<boolean> {
  const controller = new AbortController();
  const stop = input.watchInterrupt(() => controller.abort(cancelled()));
  try {
    return await handlers.answer(question, AbortSignal.any([signal, controller.signal]));
  } finally {
    stop();
  }
}

/** The reason an answer is aborted with when the person pressed Ctrl-C. */
function cancelled(): Error {
  const error = new Error('Cancelled by Ctrl-C');
  error.name = 'AbortError';
  return error;
}
