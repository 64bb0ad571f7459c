import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type { MemoryFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';

const MEMORY_EXAMPLES = `
Examples:
  $ jarvis memory index ./docs
  $ jarvis memory search "release checklist" --top-k 3
  $ jarvis memory stats --json
  $ jarvis memory clear --yes
  $ jarvis ask "What do the docs say about releases?"    # memory adds what it finds
`;

/** Registers `jarvis memory index|search|stats|clear`. */
export function registerMemoryCommand(program: Command, io: CliIo): void {
  const memory = program
    .command('memory')
    .description('Index files into memory, search it, count and clear it.')
    .addHelpText('after', MEMORY_EXAMPLES);
  registerIndex(memory, io);
  registerSearch(memory, io);
  registerStats(memory, io);
  registerClear(memory, io);
}

/** `--config` and `--import` (no engine flags: no memory command talks to a model). */
function withConfigFlags(command: Command): Command {
  return addJarvisFlags(command, { engine: false });
}

function registerIndex(memory: Command, io: CliIo): void {
  const index = memory
    .command('index')
    .description(
      'Index a file or a folder tree (unchanged files are skipped, changed ones replaced).',
    )
    .argument('<path>', 'file or folder to index')
    .option('--json', 'print the summary as JSON (snake_case)');
  withConfigFlags(index).action(async (path: string, flags: MemoryFlags) => {
    const { runMemoryIndex } = await import('./memory-index-action.js');
    await runMemoryIndex(path, flags, io);
  });
}

function registerSearch(memory: Command, io: CliIo): void {
  const search = memory
    .command('search')
    .description('Show the stored chunks that best match a query, with score and source.')
    .argument('<query...>', 'what to look for')
    .option('-k, --top-k <n>', 'results to show (1 to 100)', parseIntegerFlag('--top-k', 1, 100), 5)
    .option('--json', 'print JSON (snake_case)');
  withConfigFlags(search).action(async (words: string[], flags: MemoryFlags) => {
    const { runMemorySearch } = await import('./memory-action.js');
    await runMemorySearch(words.join(' '), flags, io);
  });
}

function registerStats(memory: Command, io: CliIo): void {
  const stats = memory
    .command('stats')
    .description('Show the memory backend, its database and how many chunks it holds.')
    .option('--json', 'print JSON (snake_case)');
  withConfigFlags(stats).action(async (flags: MemoryFlags) => {
    const { runMemoryStats } = await import('./memory-action.js');
    await runMemoryStats(flags, io);
  });
}

function registerClear(memory: Command, io: CliIo): void {
  const clear = memory
    .command('clear')
    .description('Delete every stored chunk (asks first on a terminal; elsewhere needs --yes).')
    .option('-y, --yes', 'delete without asking');
  withConfigFlags(clear).action(async (flags: MemoryFlags) => {
    const { runMemoryClear } = await import('./memory-action.js');
    await runMemoryClear(flags, io);
  });
}
