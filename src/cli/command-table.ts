import type { Command } from 'commander';
import { registerAgentsCommand } from './agents-command.js';
import { registerAskCommand } from './ask-command.js';
import { CHAT_DESCRIPTION, registerChatCommand } from './chat-command.js';
import type { CliIo } from './cli-io.js';
import { registerDoctorCommand } from './doctor-command.js';
import { registerEnginesCommand, registerModelsCommand } from './engines-command.js';
import { registerInitCommand } from './init-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerMemoryCommand } from './memory-command.js';
import { registerSchedulerCommand } from './scheduler-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerSessionsCommand } from './sessions-command.js';
import { registerTelemetryCommand } from './telemetry-command.js';
import { registerToolsCommand } from './tools-command.js';

/**
 * One top-level command of `jarvis`: its line in `jarvis --help` (the term and description commander prints
 * for the fully built command) and the function that builds it with every option and subcommand.
 */
export interface CommandEntry {
  readonly name: string;
  /** Commander's `subcommandTerm` of the built command: name, ` [options]` when it has options, its arguments. */
  readonly term: string;
  readonly description: string;
  readonly register: (program: Command, io: CliIo) => void;
}

/**
 * The top-level commands in the order `jarvis --help` lists them. Building all of them (some 200 options and
 * subcommands) is most of what `jarvis --help` costs above Node's start, so a run builds only the command it
 * names and lists the others from here; src/cli/command-table.test.ts checks each line against the built command.
 */
export const COMMAND_TABLE: readonly CommandEntry[] = [
  {
    name: 'ask',
    term: 'ask [options] [query...]',
    description: 'Ask a question (the words of the query, or stdin when none are given).',
    register: registerAskCommand,
  },
  {
    name: 'chat',
    term: 'chat [options]',
    description: CHAT_DESCRIPTION,
    register: registerChatCommand,
  },
  {
    name: 'sessions',
    term: 'sessions',
    description: 'List, show, export and delete stored conversations (`jarvis ask --session`).',
    register: registerSessionsCommand,
  },
  {
    name: 'tools',
    term: 'tools',
    description: 'Inspect the tools agents can use.',
    register: registerToolsCommand,
  },
  {
    name: 'agents',
    term: 'agents',
    description: 'Inspect the agents that can answer questions.',
    register: registerAgentsCommand,
  },
  {
    name: 'engines',
    term: 'engines [options]',
    description: 'Show each engine: its address, whether it answers, and its models.',
    register: registerEnginesCommand,
  },
  {
    name: 'models',
    term: 'models [options]',
    description:
      'List the models of the engine a question would use (or of --engine), then the local GGUF files.',
    register: registerModelsCommand,
  },
  {
    name: 'memory',
    term: 'memory',
    description: 'Index files into memory, search it, count and clear it.',
    register: registerMemoryCommand,
  },
  {
    name: 'telemetry',
    term: 'telemetry',
    description: 'Inspect the recorded model calls (telemetry).',
    register: registerTelemetryCommand,
  },
  {
    name: 'scheduler',
    term: 'scheduler',
    description: 'Create, list, change and run scheduled tasks (cron, interval, once).',
    register: registerSchedulerCommand,
  },
  {
    name: 'mcp',
    term: 'mcp',
    description: 'Serve OpenJarvis tools to any MCP client.',
    register: registerMcpCommand,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'Serve the agent and its tools as an OpenAI-compatible API.',
    register: registerServeCommand,
  },
  {
    name: 'doctor',
    term: 'doctor [options]',
    description: 'Check the setup and say how to fix what does not work.',
    register: registerDoctorCommand,
  },
  {
    name: 'init',
    term: 'init [options]',
    description: 'Write a commented starter config file.',
    register: registerInitCommand,
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
