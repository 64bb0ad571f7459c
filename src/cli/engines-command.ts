import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type { EnginesFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-options.js';

const ENGINES_EXAMPLES = `
Examples:
  $ jarvis engines
  $ jarvis engines --base-url http://127.0.0.1:8000/v1      # the openai engine at that server
  $ jarvis engines --engine ollama --timeout-ms 2000 --json
`;

const MODELS_EXAMPLES = `
Examples:
  $ jarvis models
  $ jarvis models --engine ollama
  $ jarvis models --engine openai --base-url http://127.0.0.1:8000/v1 --json
`;

/** Adds `--engine`, `--base-url`, `--timeout-ms` and `--json` (and `--config`, `--import`). */
function addEngineFlags(command: Command, timeoutHelp: string, defaultMs: number): Command {
  return addJarvisFlags(command, { engine: false })
    .option(
      '-e, --engine <key>',
      'engine: ollama, vllm, llamacpp, sglang, lmstudio, openai, embedded',
    )
    .option(
      '--base-url <url>',
      "server address of --engine (or of the configured engine, else 'openai')",
    )
    .option(
      '--timeout-ms <n>',
      timeoutHelp,
      parseIntegerFlag('--timeout-ms', 1, 600_000),
      defaultMs,
    )
    .option('--json', 'print JSON (snake_case)');
}

/** Registers `jarvis engines` (every engine, reachable or not) and `jarvis models` (the chosen engine's models). */
export function registerEnginesCommand(program: Command, io: CliIo): void {
  const engines = program
    .command('engines')
    .description('Show each engine: its address, whether it answers, and its models.');
  addEngineFlags(engines, 'how long to wait for each engine to answer', 500)
    .addHelpText('after', ENGINES_EXAMPLES)
    .action(async (flags: EnginesFlags) => {
      const { runEngines } = await import('./engines-action.js');
      await runEngines(flags, io);
    });
  const models = program
    .command('models')
    .description('List the models of the engine a question would use (or of --engine).');
  addEngineFlags(models, 'how long engine discovery waits for engines to answer', 1000)
    .addHelpText('after', MODELS_EXAMPLES)
    .action(async (flags: EnginesFlags) => {
      const { runModels } = await import('./engines-action.js');
      await runModels(flags, io);
    });
}
