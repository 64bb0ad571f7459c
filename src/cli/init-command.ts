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
  $ jarvis init --yes        # and download the recommended model when no engine answers

With no engine running and no model downloaded, init offers (on a terminal) to download the model recommended
for this machine, so that \`jarvis ask\` answers in-process.
`;

/** Registers `jarvis init`. */
export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description('Write a commented starter config file.')
    .option('--path <file>', 'where to write it')
    .option('--config <file>', 'same as --path')
    .option('-f, --force', 'replace the file when it exists')
    .option(
      '-y, --yes',
      'when no engine answers and no model is there, download the recommended one',
    )
    .addHelpText('after', INIT_EXAMPLES)
    .action(async (flags: InitFlags) => {
      const { runInit } = await import('./init-action.js');
      await runInit(flags, io);
    });
}
