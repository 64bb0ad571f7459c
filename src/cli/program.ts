import { Command, CommanderError } from 'commander';
import { registerAgentsCommand } from './agents-command.js';
import { registerAskCommand } from './ask-command.js';
import { opensChatByDefault, registerChatCommand } from './chat-command.js';
import { CliExit, ExitCode, errorJson, exitCodeOf, formatError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { CliSession } from './cli-output.js';
import { registerDoctorCommand } from './doctor-command.js';
import { registerEnginesCommand } from './engines-command.js';
import { registerInitCommand } from './init-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerMemoryCommand } from './memory-command.js';
import { explainMissingPackage } from './optional-packages.js';
import { packageVersion } from './package-version.js';
import { registerSchedulerCommand } from './scheduler-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerSessionsCommand } from './sessions-command.js';
import { registerTelemetryCommand } from './telemetry-command.js';
import { registerToolsCommand } from './tools-command.js';

const EXAMPLES = `
Examples:
  $ jarvis ask "What is the capital of France?"
  $ jarvis ask --agent orchestrator --tools calculator,think "What is 15% of 340?"
  $ echo "Summarise: ..." | jarvis ask --json
  $ jarvis chat --tools calculator,think
  $ jarvis ask --session trip "Plan three days in Lisbon" && jarvis ask --continue "Cheaper?"
  $ jarvis ask --engine openai --base-url http://127.0.0.1:8000/v1 --model my-model "Hi"
  $ jarvis memory index ./docs && jarvis ask "What do the docs say about X?"
  $ jarvis scheduler create "Summarise the news" --type cron --value "0 9 * * *" --tools web_search
  $ jarvis doctor
`;

/** Builds the `jarvis` program; every command's work loads lazily inside its action. */
export function createProgram(cliIo: CliIo): Command {
  const session = cliIo.session ?? new CliSession();
  const io: CliIo = { ...cliIo, session };
  const program = new Command('jarvis')
    .description('OpenJarvis: a local-first agent and tool runtime.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option(
      '--verbose',
      'show every HTTP request (method, address, status, time) on stderr; also OPENJARVIS_LOG=debug',
    )
    .hook('preAction', () => {
      session.setVerbose(program.opts<{ verbose?: boolean }>().verbose === true);
    })
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
    registerChatCommand,
    registerSessionsCommand,
    registerToolsCommand,
    registerAgentsCommand,
    registerEnginesCommand,
    registerMemoryCommand,
    registerTelemetryCommand,
    registerSchedulerCommand,
    registerMcpCommand,
    registerServeCommand,
    registerDoctorCommand,
    registerInitCommand,
  ]) {
    register(program, io);
  }
  return program;
}

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit code; never throws. With `--json`, a
 * failure also prints `{"error": {"code", "message"}}` on stdout, so that stdout always holds one JSON object.
 */
export async function runCli(argv: readonly string[], cliIo: CliIo): Promise<number> {
  const session = cliIo.session ?? new CliSession();
  const io: CliIo = { ...cliIo, session };
  const program = createProgram(io);
  program.commands.forEach((command) => {
    command.exitOverride();
  });
  try {
    // `jarvis` alone on a terminal opens a chat; piped, it prints the help as before.
    const args = opensChatByDefault(argv, io) ? ['chat'] : argv;
    await program.parseAsync([...args], { from: 'user' });
    return ExitCode.ok;
  } catch (thrown) {
    const error = explainMissingPackage(thrown);
    const code = error instanceof CommanderError ? commanderExit(error) : undefined;
    if (code === ExitCode.ok) return code;
    if (wantsJson(argv) && !(error instanceof CliExit))
      io.stdout.write(errorJson(commanderUsage(error), session.redactor));
    if (code !== undefined) return code;
    io.stderr.write(formatError(error, session.redactor));
    return exitCodeOf(error, io.signal);
  }
}

/** True when `--json` was given (before a `--` that ends the options). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** Commander's parse errors carry `commander.*` codes; in JSON they are usage errors with the bare message. */
function commanderUsage(error: unknown): unknown {
  if (!(error instanceof CommanderError)) return error;
  return Object.assign(new Error(error.message.replace(/^error: /, '')), { code: 'usage' });
}

/** Help and version exit 0; commander's own parse errors (already printed) are usage errors. */
function commanderExit(error: CommanderError): number {
  if (error.exitCode === 0) return ExitCode.ok;
  if (error.code === 'commander.help' || error.code === 'commander.helpDisplayed')
    return ExitCode.ok;
  if (error.code === 'commander.version') return ExitCode.ok;
  return ExitCode.usage;
}
