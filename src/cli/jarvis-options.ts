import type { Command } from 'commander';
import type { Jarvis, JarvisOptions } from '../sdk/index.js';
import type { CliIo } from './cli-io.js';

/** The flags every command that builds a Jarvis accepts. */
export interface JarvisFlags {
  readonly config?: string;
  readonly engine?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly import?: readonly string[];
}

/** Adds `--config`, `--engine`, `--model`, `--base-url` and `--import` to a command. */
export function addJarvisFlags(command: Command, options: { engine?: boolean } = {}): Command {
  command.option(
    '--config <path>',
    'config file (default: $OPENJARVIS_CONFIG or ~/.openjarvis/config.toml)',
  );
  if (options.engine !== false) {
    command
      .option(
        '-e, --engine <key>',
        'engine: ollama, vllm, llamacpp, sglang, lmstudio, openai, embedded',
      )
      .option('-m, --model <name>', 'model name as the engine knows it')
      .option(
        '--base-url <url>',
        "address of an OpenAI-compatible (or the chosen engine's) server",
      );
  }
  return command.option(
    '--import <module>',
    'import a module that registers custom tools or agents (repeatable)',
    (value: string, previous: string[] = []) => [...previous, value],
  );
}

/** Opens the SDK with the flags (heavy modules load here, not at start-up). */
export async function openJarvis(
  flags: JarvisFlags,
  io: CliIo,
  extra: Partial<JarvisOptions> = {},
): Promise<Jarvis> {
  const { Jarvis } = await import('../sdk/index.js');
  const jarvis = new Jarvis({
    env: io.env,
    ...(flags.config === undefined ? {} : { configPath: flags.config }),
    ...(flags.engine === undefined ? {} : { engine: flags.engine }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.import === undefined ? {} : { imports: flags.import }),
    cwd: io.cwd,
    ...extra,
  });
  await jarvis.system();
  for (const warning of jarvis.warnings) {
    const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}`;
    io.stderr.write(`warning: ${where}: ${warning.message}\n`);
  }
  return jarvis;
}
