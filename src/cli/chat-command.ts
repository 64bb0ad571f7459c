import type { Command } from 'commander';
import type { ChatFlags } from './chat-flags.js';
import type { CliIo } from './cli-io.js';
import { addJarvisFlags } from './jarvis-flags.js';
import { addRunFlags } from './run-flags.js';

const CHAT_EXAMPLES = `
Examples:
  $ jarvis chat
  $ jarvis chat --session trip
  $ jarvis chat --continue --tools calculator,think
  $ printf 'My name is Ada.\\nWhat is my name?\\n' | jarvis chat

In the chat: /help lists the commands (/new, /sessions, /resume, /tools, /agent, /model, /clear, /export,
/exit). Ctrl-C stops the answer in progress; Ctrl-C twice or Ctrl-D leaves. A line ending in \\ continues on
the next line; """ starts a block that runs to the next """. Up and down recall earlier lines (kept in
<home>/chat_history, without secrets). Every question and answer is a turn of the session
(\`jarvis sessions list\`). Through a pipe every line is a question, answered in turn; the exit code is 1 when
an answer failed.
`;

/** What `jarvis --help` says `jarvis chat` does. */
export const CHAT_DESCRIPTION =
  'Hold a conversation (kept as a session); questions from stdin when it is a pipe.';

/** Registers `jarvis chat`: an interactive conversation kept as a session. */
export function registerChatCommand(program: Command, io: CliIo): void {
  const command = addRunFlags(program.command('chat').description(CHAT_DESCRIPTION), 'each answer')
    .option('--no-context', 'do not add what memory knows about each question')
    .option('--session <name|id>', 'continue this session (a new name starts one)')
    .option('-c, --continue', 'continue the most recently updated session')
    .option('-y, --yes', 'approve every tool call that needs confirmation');
  addJarvisFlags(command).addHelpText('after', CHAT_EXAMPLES);
  command.action(async (flags: ChatFlags) => {
    const { runChat } = await import('./chat-action.js');
    await runChat(flags, io);
  });
}
