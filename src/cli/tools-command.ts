import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { ListFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';

const TOOLS_EXAMPLES = `
Examples:
  $ jarvis tools list
  $ jarvis tools list --json
  $ jarvis tools list --import ./my-tools.js
  $ jarvis ask --tools calculator,think "What is 15% of 340?"
`;

/** Registers `jarvis tools list` (also what `jarvis tools` alone runs). */
export function registerToolsCommand(program: Command, io: CliIo): void {
  const tools = program
    .command('tools')
    .description('Inspect the tools agents can use.')
    .addHelpText('after', TOOLS_EXAMPLES);
  const list = tools
    .command('list', { isDefault: true })
    .description(
      'List every tool: name, category, confirmation, cost and latency estimates, description.',
    )
    .option('--json', 'print JSON (snake_case) instead of a table');
  addJarvisFlags(list, { engine: false })
    .addHelpText('after', TOOLS_EXAMPLES)
    .action(async (flags: ListFlags) => {
      const { runToolsList } = await import('./tools-action.js');
      await runToolsList(flags, io);
    });
}
