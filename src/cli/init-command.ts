import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { InitFlags } from './command-flags.js';

const INIT_EXAMPLES = `
The file is written to --path, else $OPENJARVIS_CONFIG, else ~/.openjarvis/config.toml ($OPENJARVIS_HOME).
Every setting in it is commented out and shows its default.

Examples:
  $ jarvis init
  $ jarvis init --path ./jarvis.toml && jarvis ask --config ./jarvis.toml "Hi"
  $ jarvis init --force      # replace an existing config with the starter one
`;

/** Registers `jarvis init`. */
export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description('Write a commented starter config file.')
    .option('--path <file>', 'where to write it')
    .option('--config <file>', 'same as --path')
    .option('-f, --force', 'replace the file when it exists')
    .addHelpText('after', INIT_EXAMPLES)
    .action(async (flags: InitFlags) => {
      const { runInit } = await import('./init-action.js');
      await runInit(flags, io);
    });
}
