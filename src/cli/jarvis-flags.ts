import type { Command } from 'commander';

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
