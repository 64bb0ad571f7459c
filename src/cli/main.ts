#!/usr/bin/env node
import { createRequire } from 'node:module';
import { Command } from 'commander';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

/** Builds the `jarvis` command line program. */
export function createProgram(): Command {
  return new Command('jarvis')
    .description(
      'OpenJarvis: a local-first agent and tool runtime.\n' +
        'This release ships the tool runtime as a library; the ask, tools, memory, scheduler and mcp commands arrive in later releases.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .action(function showHelp(this: Command) {
      this.outputHelp();
    });
}

await createProgram().parseAsync(process.argv);
