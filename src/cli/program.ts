import { Command, CommanderError, Help } from 'commander';
import { CliExit, ExitCode, exitCodeOf } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { CliSession } from './cli-session.js';
import { COMMAND_TABLE, loadCommands, type RegisterCommand } from './command-table.js';
import { packageVersion } from './package-version.js';

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

/**
 * Builds the `jarvis` program: the commands of `built` (see loadCommands) in full, every other command as a
 * light entry (name and description, for the root's help and suggestions) that commander never runs. Every
 * command's work loads lazily inside its action.
 */
export function createProgram(cliIo: CliIo, built: ReadonlyMap<string, RegisterCommand>): Command {
  const session = cliIo.session ?? new CliSession();
  const io = withSession(cliIo, session);
  const lightTerms = new Map<Command, string>();
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
    .configureHelp({
      subcommandTerm(this: Help, command: Command): string {
        return lightTerms.get(command) ?? Help.prototype.subcommandTerm.call(this, command);
      },
    })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  for (const entry of COMMAND_TABLE) {
    const register = built.get(entry.name);
    if (register !== undefined) register(program, io);
    else lightTerms.set(program.command(entry.name).description(entry.description), entry.term);
  }
  return program;
}

/**
 * `cliIo` with `session`. Its properties are copied as they are defined, so that a getter stays a getter (the
 * process's stdin is made only when a command reads it; a spread would read it).
 */
function withSession(cliIo: CliIo, session: CliSession): CliIo {
  return Object.defineProperties(
    {},
    {
      ...Object.getOwnPropertyDescriptors(cliIo),
      session: { value: session, enumerable: true, writable: false, configurable: true },
    },
  ) as CliIo;
}

/** True when `jarvis` without a command should open a chat: a person at a terminal (stdin and stdout). */
export function opensChatByDefault(argv: readonly string[], io: CliIo): boolean {
  return argv.length === 0 && io.stdin.isTTY === true && io.stdout.isTTY;
}

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit code; never throws. With `--json`, a
 * failure also prints `{"error": {"code", "message"}}` on stdout, so that stdout always holds one JSON object.
 */
export async function runCli(argv: readonly string[], cliIo: CliIo): Promise<number> {
  const session = cliIo.session ?? new CliSession();
  const io = withSession(cliIo, session);
  // `jarvis` alone on a terminal opens a chat; piped, it prints the help as before.
  const args = opensChatByDefault(argv, io) ? ['chat'] : argv;
  const program = createProgram(io, await loadCommands(args));
  program.commands.forEach((command) => {
    command.exitOverride();
  });
  try {
    await program.parseAsync([...args], { from: 'user' });
    return ExitCode.ok;
  } catch (thrown) {
    if (thrown instanceof CommanderError && commanderExit(thrown) === ExitCode.ok)
      return ExitCode.ok;
    return reportFailure(thrown, argv, io);
  }
}

/**
 * Prints a failure (on stdout too as JSON with `--json`) and returns its exit code. The code that words and
 * redacts errors loads only now: a command that succeeds never loads it.
 */
async function reportFailure(thrown: unknown, argv: readonly string[], io: CliIo): Promise<number> {
  const [{ errorJson, formatError }, { explainMissingPackage }] = await Promise.all([
    import('./cli-error.js'),
    import('./optional-packages.js'),
  ]);
  const redactor = io.session?.redactor;
  const error = explainMissingPackage(thrown);
  const code = error instanceof CommanderError ? commanderExit(error) : undefined;
  if (code === ExitCode.ok) return code;
  if (wantsJson(argv) && !(error instanceof CliExit))
    io.stdout.write(errorJson(commanderUsage(error), redactor));
  if (code !== undefined) return code;
  io.stderr.write(formatError(error, redactor));
  return exitCodeOf(error, io.signal);
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
