import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type { DoctorFlags } from './command-flags.js';

const DOCTOR_EXAMPLES = `
Checks: Node.js version, config file, engines, SQLite with FTS5, code sandbox, home folder.
Exit code 0 when every required check passes (warnings allowed), 1 otherwise.

Examples:
  $ jarvis doctor
  $ jarvis doctor --base-url http://127.0.0.1:8000/v1
  $ jarvis doctor --json
`;

/** Registers `jarvis doctor`. */
export function registerDoctorCommand(program: Command, io: CliIo): void {
  program
    .command('doctor')
    .description('Check the setup and say how to fix what does not work.')
    .option(
      '--config <path>',
      'config file (default: $OPENJARVIS_CONFIG or ~/.openjarvis/config.toml)',
    )
    .option(
      '-e, --engine <key>',
      'the engine --base-url belongs to (default: the configured one, else openai)',
    )
    .option('--base-url <url>', 'also check the server at this address')
    .option(
      '--timeout-ms <n>',
      'how long to wait for each engine to answer',
      parseIntegerFlag('--timeout-ms', 1, 600_000),
      500,
    )
    .option('--json', 'print JSON (snake_case)')
    .addHelpText('after', DOCTOR_EXAMPLES)
    .action(async (flags: DoctorFlags) => {
      const { runDoctor } = await import('./doctor-action.js');
      await runDoctor(flags, io);
    });
}
