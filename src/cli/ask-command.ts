import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { AskFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';
import { addRunFlags } from './run-flags.js';

const ASK_EXAMPLES = `
Examples:
  $ jarvis ask "What is the capital of France?"
  $ jarvis ask What is 2+2
  $ jarvis ask --agent orchestrator --tools calculator,think "What is 15% of 340?"
  $ echo "Summarise: ..." | jarvis ask --json
  $ jarvis ask --session trip "Plan three days in Lisbon"
  $ jarvis ask --continue "Make day two cheaper"
  $ jarvis ask --engine openai --base-url http://127.0.0.1:8000/v1 --model my-model "Hi"

Answers go to stdout; tool activity, warnings and errors to stderr. Ctrl-C cancels.
With --session or --continue the question and answer are stored as the session's next turn and the earlier
turns go to the model as history (\`jarvis sessions list\` shows the sessions); without them nothing is stored.
Exit codes: 0 answered, 1 failed, 2 usage error, 3 stopped before a final answer (turn limit or
loop guard; what the model said is printed, the reason goes to stderr), 130 Ctrl-C, 143 SIGTERM.
`;

/** Registers `jarvis ask [query...]`. */
export function registerAskCommand(program: Command, io: CliIo): void {
  const command = addRunFlags(
    program
      .command('ask')
      .description('Ask a question (the words of the query, or stdin when none are given).')
      .argument('[query...]', 'the question; read from stdin when left out'),
    'the question',
  )
    .option('--json', 'print the whole result as one JSON object (no token streaming)')
    .option('--no-stream', 'print the answer when it is complete instead of token by token')
    .option('--no-context', 'do not add what memory knows about the question')
    .option(
      '--session <name|id>',
      'add the question to this session (a new name starts one; see `jarvis sessions list`)',
    )
    .option(
      '-c, --continue',
      'add the question to the most recently updated session (starts one when there is none)',
    )
    .option(
      '-y, --yes',
      'approve every tool call that needs confirmation; on a first run with no engine, download the recommended model without asking',
    );
  addJarvisFlags(command).addHelpText('after', ASK_EXAMPLES);
  command.action(async (words: string[], flags: AskFlags) => {
    const { runAsk } = await import('./ask-action.js');
    await runAsk(words, flags, io);
  });
}
