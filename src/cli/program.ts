import { Command, CommanderError } from 'commander';
import { registerAgentsCommand } from './agents-command.js';
import { registerAskCommand } from './ask-command.js';
import { ExitCode, exitCodeOf, formatError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { registerDoctorCommand } from './doctor-command.js';
import { registerEnginesCommand } from './engines-command.js';
import { registerInitCommand } from './init-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerMemoryCommand } from './memory-command.js';
import { packageVersion } from './package-version.js';
import { registerSchedulerCommand } from './scheduler-command.js';
import { registerTelemetryCommand } from './telemetry-command.js';
import { registerToolsCommand } from './tools-command.js';

const EXAMPLES = `
Examples:
  $ jarvis ask "What is the capital of France?"
  $ jarvis ask --agent orchestrator --tools calculator,think "What is 15% of 340?"
  $ echo "Summarise: ..." | jarvis ask --json
  $ jarvis ask --engine openai --base-url http://127.0.0.1:8000/v1 --model my-model "Hi"
  $ jarvis memory index ./docs && jarvis ask "What do the docs say about X?"
  $ jarvis scheduler create "Summarise the news" --type cron --value "0 9 * * *" --tools web_search
  $ jarvis doctor
`;

/** Builds the `jarvis` program; every command's work loads lazily inside its action. */
export function createProgram(io: CliIo): Command {
  const program = new Command('jarvis')
    .description('OpenJarvis: a local-first agent and tool runtime.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  for (const register of [
    registerAskCommand,
    registerToolsCommand,
    registerAgentsCommand,
    registerEnginesCommand,
    registerMemoryCommand,
    registerTelemetryCommand,
    registerSchedulerCommand,
    registerMcpCommand,
    registerDoctorCommand,
    registerInitCommand,
  ]) {
    register(program, io);
  }
  return program;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  program.commands.forEach((command) => {
    command.exitOverride();
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error);
    io.stderr.write(formatError(error));
    return exitCodeOf(error);
  }
}

/** Help and version exit 0; commander's own parse errors (already printed) are usage errors. */
function commanderExit(error: CommanderError): number {
  if (error.exitCode === 0) return ExitCode.ok;
  if (error.code === 'commander.help' || error.code === 'commander.helpDisplayed')
    return ExitCode.ok;
  if (error.code === 'commander.version') return ExitCode.ok;
  return ExitCode.usage;
}
