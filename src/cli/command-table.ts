import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';

/** Builds one top-level command on `program` with every option and subcommand. */
export type RegisterCommand = (program: Command, io: CliIo) => void;

/**
 * One top-level command of `jarvis`: its line in `jarvis --help` (the term and description commander prints
 * for the fully built command) and how to load the function that builds it.
 */
export interface CommandEntry {
  readonly name: string;
  /** Commander's `subcommandTerm` of the built command: name, ` [options]` when it has options, its arguments. */
  readonly term: string;
  readonly description: string;
  /**
   * Imports the command's module (a chunk of its own in the bundle, loaded only when the command line names
   * the command) and returns its register function.
   */
  readonly load: () => Promise<RegisterCommand>;
}

/**
 * The top-level commands in the order `jarvis --help` lists them. Building all of them (some 200 options and
 * subcommands) is most of what `jarvis --help` costs above Node's start, so a run loads and builds only the
 * command it names and lists the others from here; src/cli/command-table.test.ts checks each line against the
 * built command.
 */
export const COMMAND_TABLE: readonly CommandEntry[] = [
  {
    name: 'ask',
    term: 'ask [options] [query...]',
    description: 'Ask a question (the words of the query, or stdin when none are given).',
    load: async () => (await import('./ask-command.js')).registerAskCommand,
  },
  {
    name: 'chat',
    term: 'chat [options]',
    description: 'Hold a conversation (kept as a session); questions from stdin when it is a pipe.',
    load: async () => (await import('./chat-command.js')).registerChatCommand,
  },
  {
    name: 'sessions',
    term: 'sessions',
    description: 'List, show, export and delete stored conversations (`jarvis ask --session`).',
    load: async () => (await import('./sessions-command.js')).registerSessionsCommand,
  },
  {
    name: 'tools',
    term: 'tools',
    description: 'Inspect the tools agents can use.',
    load: async () => (await import('./tools-command.js')).registerToolsCommand,
  },
  {
    name: 'agents',
    term: 'agents',
    description: 'Inspect the agents that can answer questions.',
    load: async () => (await import('./agents-command.js')).registerAgentsCommand,
  },
  {
    name: 'engines',
    term: 'engines [options]',
    description: 'Show each engine: its address, whether it answers, and its models.',
    load: async () => (await import('./engines-command.js')).registerEnginesCommand,
  },
  {
    name: 'models',
    term: 'models [options]',
    description:
      'List the models of the engine a question would use (or of --engine), then the local GGUF files.',
    load: async () => (await import('./engines-command.js')).registerModelsCommand,
  },
  {
    name: 'memory',
    term: 'memory',
    description: 'Index files into memory, search it, count and clear it.',
    load: async () => (await import('./memory-command.js')).registerMemoryCommand,
  },
  {
    name: 'telemetry',
    term: 'telemetry',
    description: 'Inspect the recorded model calls (telemetry).',
    load: async () => (await import('./telemetry-command.js')).registerTelemetryCommand,
  },
  {
    name: 'scheduler',
    term: 'scheduler',
    description: 'Create, list, change and run scheduled tasks (cron, interval, once).',
    load: async () => (await import('./scheduler-command.js')).registerSchedulerCommand,
  },
  {
    name: 'mcp',
    term: 'mcp',
    description: 'Serve OpenJarvis tools to any MCP client.',
    load: async () => (await import('./mcp-command.js')).registerMcpCommand,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'Serve the agent and its tools as an OpenAI-compatible API.',
    load: async () => (await import('./serve-command.js')).registerServeCommand,
  },
  {
    name: 'doctor',
    term: 'doctor [options]',
    description: 'Check the setup and say how to fix what does not work.',
    load: async () => (await import('./doctor-command.js')).registerDoctorCommand,
  },
  {
    name: 'init',
    term: 'init [options]',
    description: 'Write a commented starter config file.',
    load: async () => (await import('./init-command.js')).registerInitCommand,
  },
];

/**
 * The top-level command `argv` runs or asks help for: its first operand (the root's options take no values),
 * or the one after `help`. Undefined when argv names none (root help, an unknown command).
 */
export function requestedCommand(argv: readonly string[]): string | undefined {
  const operands = argv.filter((arg) => !arg.startsWith('-'));
  const name = operands[0] === 'help' ? operands[1] : operands[0];
  return COMMAND_TABLE.some((entry) => entry.name === name) ? name : undefined;
}

/**
 * The register functions of the commands `argv` builds in full: the one it names (see requestedCommand), none
 * when it names none; every command when `argv` is undefined.
 */
export async function loadCommands(
  argv?: readonly string[],
): Promise<ReadonlyMap<string, RegisterCommand>> {
  const wanted = argv === undefined ? undefined : requestedCommand(argv);
  const entries = COMMAND_TABLE.filter((entry) => argv === undefined || entry.name === wanted);
  return new Map(
    await Promise.all(entries.map(async (entry) => [entry.name, await entry.load()] as const)),
  );
}
