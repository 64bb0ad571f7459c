import type { Command } from 'commander';
import { UsageError } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type { EnginesFlags, ModelsFileFlags } from './command-flags.js';
import type { EnginesInstallFlags } from './engines-install-action.js';
import { addJarvisFlags } from './jarvis-flags.js';

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

const INSTALL_EXAMPLES = `
Examples:
  $ jarvis engines install embedded                # llama.cpp for this machine (CUDA if an NVIDIA driver is found)
  $ jarvis engines install embedded --gpu cpu      # the CPU build only (about 80 MB)
  $ jarvis engines install embedded --gpu vulkan

Installs node-llama-cpp with npm into <home>/runtime (default ~/.openjarvis/runtime), with only the llama.cpp
build this machine needs; run it again to switch builds. Servers (ollama, vllm, ...) are installed on their own.
`;

/** The builds `--gpu` accepts (the same list as the system's `EMBEDDED_RUNTIME_GPUS`, kept here so help loads nothing). */
const GPU_CHOICES = ['auto', 'cpu', 'cuda', 'vulkan'] as const;

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

/** Registers `jarvis engines` (every engine, reachable or not) and `jarvis engines install`. */
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
  registerEngineInstall(engines, io);
}

/** Registers `jarvis models` (the chosen engine's models) with `models pull` and `models rm`. */
export function registerModelsCommand(program: Command, io: CliIo): void {
  const models = program
    .command('models')
    .description(
      'List the models of the engine a question would use (or of --engine), then the local GGUF files.',
    );
  addEngineFlags(models, 'how long engine discovery waits for engines to answer', 1000)
    .addHelpText('after', MODELS_EXAMPLES)
    .action(async (flags: EnginesFlags) => {
      const { runModels } = await import('./engines-action.js');
      await runModels(flags, io);
    });
  registerModelFileCommands(models, io);
}

/** `jarvis engines install embedded [--gpu auto|cpu|cuda|vulkan] [--json]`. */
function registerEngineInstall(engines: Command, io: CliIo): void {
  engines
    .command('install')
    .description(
      "Install an engine's runtime: embedded installs llama.cpp (node-llama-cpp) into the OpenJarvis home.",
    )
    .argument('<engine>', 'the engine to install: embedded')
    .option(
      '--gpu <build>',
      'llama.cpp build: auto (CUDA when an NVIDIA driver is found, else CPU), cpu, cuda or vulkan',
      parseGpuFlag,
      'auto',
    )
    .option('--json', 'print JSON (snake_case)')
    .addHelpText('after', INSTALL_EXAMPLES)
    .action(async (engine: string, _flags: unknown, command: Command) => {
      const { runEnginesInstall } = await import('./engines-install-action.js');
      await runEnginesInstall(engine, installFlags(command), io);
    });
}

function parseGpuFlag(value: string): EnginesInstallFlags['gpu'] {
  const choice = GPU_CHOICES.find((gpu) => gpu === value);
  if (choice === undefined)
    throw new UsageError(`--gpu must be one of ${GPU_CHOICES.join(', ')} (got '${value}')`);
  return choice;
}

/** The flags of `engines install`; `--config` and `--json` may be given anywhere (commander gives them to `engines`). */
function installFlags(command: Command): EnginesInstallFlags {
  const { config, json, gpu } = command.optsWithGlobals<{
    config?: string;
    json?: boolean;
    gpu?: EnginesInstallFlags['gpu'];
  }>();
  return {
    gpu: gpu ?? 'auto',
    ...(config === undefined ? {} : { config }),
    ...(json === true ? { json } : {}),
  };
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
