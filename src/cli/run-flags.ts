import type { Command } from 'commander';
import { parseIntegerFlag, parseNameList, parseNumberFlag } from './cli-options.js';

/**
 * Adds the flags that shape an agent run (`--agent`, `--tools`, `--max-turns`, `--temperature`, `--max-tokens`,
 * `--system`) to a command that runs agents (`ask`, `chat`, `serve`); `each` says what one run answers (`the
 * question`, `each answer`), for the help text.
 */
export function addRunFlags(command: Command, each: string): Command {
  return command
    .option('-a, --agent <name>', 'agent to answer with (see `jarvis agents list`)')
    .option(
      '-t, --tools <names>',
      'comma-separated tool names (see `jarvis tools list`)',
      parseNameList('--tools'),
    )
    .option(
      '--max-turns <n>',
      `most model turns of the agent for ${each}`,
      parseIntegerFlag('--max-turns', 1, 1000),
    )
    .option(
      '--temperature <t>',
      'sampling temperature from 0 to 2',
      parseNumberFlag('--temperature', 0, 2),
    )
    .option(
      '--max-tokens <n>',
      'most tokens per model answer',
      parseIntegerFlag('--max-tokens', 1, 1_000_000),
    )
    .option('-s, --system <prompt>', 'system prompt');
}
