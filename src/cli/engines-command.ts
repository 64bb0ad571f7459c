import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type { EnginesFlags, ModelsFileFlags } from './command-flags.js';
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
  $ jarvis models pull qwen3-1.7b                          # download a GGUF for --engine embedded
  $ jarvis models pull hf:Qwen/Qwen3-4B-GGUF:Q4_K_M
  $ jarvis models rm Qwen3-1.7B-Q8_0.gguf
`;

const PULL_EXAMPLES = `
Examples:
  $ jarvis models pull qwen3-1.7b                          # a name of the built-in catalog
  $ jarvis models pull hf:Qwen/Qwen3-4B-GGUF:Q4_K_M         # a repository and quantization
  $ jarvis models pull hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf
  $ HF_ENDPOINT=https://hf-mirror.example HF_TOKEN=hf_... jarvis models pull <model>

Files land in [engine.embedded] models_dir (default ~/.openjarvis/models). Ctrl-C keeps the partial
download; the same pull resumes it.
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
  registerModelFileCommands(models, io);
}

/** `jarvis models pull` and `jarvis models rm`; `--config` may be given before or after the subcommand. */
function registerModelFileCommands(models: Command, io: CliIo): void {
  models
    .command('pull')
    .description(
      'Download a GGUF model (catalog name, hf: URI or https:// URL) into the models folder.',
    )
    .argument(
      '<model>',
      'catalog name, hf:<owner>/<repo>/<file>.gguf, hf:<owner>/<repo>:<quant> or URL',
    )
    .addHelpText('after', PULL_EXAMPLES)
    .action(async (model: string, _flags: ModelsFileFlags, command: Command) => {
      const { runModelsPull } = await import('./models-pull-action.js');
      await runModelsPull(model, fileFlags(command), io);
    });
  models
    .command('rm')
    .description('Delete a downloaded .gguf file from the models folder (by file or catalog name).')
    .argument('<name>', 'file name in the models folder, or a catalog name')
    .action(async (name: string, _flags: ModelsFileFlags, command: Command) => {
      const { runModelsRm } = await import('./models-pull-action.js');
      await runModelsRm(name, fileFlags(command), io);
    });
}

/** The `--config` of `jarvis models` (commander gives it to the parent wherever it appears). */
function fileFlags(command: Command): ModelsFileFlags {
  const { config } = command.optsWithGlobals<{ config?: string }>();
  return config === undefined ? {} : { config };
}
