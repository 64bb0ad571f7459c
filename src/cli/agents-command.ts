import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { ListFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';

const AGENTS_EXAMPLES = `
Examples:
  $ jarvis agents list
  $ jarvis agents list --json
  $ jarvis ask --agent orchestrator --tools calculator "What is 2**10?"
`;

/** Registers `jarvis agents list` (also what `jarvis agents` alone runs). */
export function registerAgentsCommand(program: Command, io: CliIo): void {
  const agents = program
    .command('agents')
    .description('Inspect the agents that can answer questions.')
    .addHelpText('after', AGENTS_EXAMPLES);
  const list = agents
    .command('list', { isDefault: true })
    .description('List every agent: its key and the class behind it.')
    .option('--json', 'print JSON (snake_case) instead of a table');
  addJarvisFlags(list, { engine: false })
    .addHelpText('after', AGENTS_EXAMPLES)
    .action(async (flags: ListFlags) => {
      const { runAgentsList } = await import('./agents-action.js');
      await runAgentsList(flags, io);
    });
}
