import {
  bestScore,
  formatRelevance,
  type MemoryResult,
  relativeRelevance,
  safeForTerminal,
} from '../core/index.js';
import { type JarvisSystem, memoryResultJson } from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { MemoryFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { canAsk, promptYesNo } from './prompt-yes-no.js';
import { outputWidth, truncate } from './table.js';

const EMPTY_ADVICE = 'Memory is empty: index files first with `jarvis memory index <path>`.\n';

/** Opens the SDK for a memory command, runs `work` with its system, and closes everything. */
async function withSystem(
  flags: MemoryFlags,
  io: CliIo,
  work: (system: JarvisSystem) => Promise<void>,
): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    await work(await jarvis.system());
  } finally {
    await jarvis.close();
  }
}

/** `jarvis memory search <query>`: the best-matching chunks with score and source (never creates a database). */
export function runMemorySearch(query: string, flags: MemoryFlags, io: CliIo): Promise<void> {
  if (query.trim() === '')
    throw new UsageError('memory search needs a query: the words to look for');
  return withSystem(flags, io, async (system) => {
    const memory = system.memoryIfPresent();
    const results =
      memory === undefined
        ? []
        : await memory.retrieve(query, { topK: flags.topK ?? 5, signal: io.signal });
    if (flags.json === true) {
      const best = bestScore(results);
      const json = results.map((result) => resultJson(result, best));
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return;
    }
    if (memory === undefined) io.stderr.write(EMPTY_ADVICE);
    else if (results.length === 0) io.stderr.write(`Nothing in memory matches '${query}'.\n`);
    io.stdout.write(formatResults(results, io));
  });
}

/**
 * One search result as JSON (`metadata` keeps the keys it was stored with, snake_case): `score` is the raw BM25
 * value, `relevance` the score relative to the best result of the search (1 for the best). The same objects
 * as the server's /api/memory.
 */
export const resultJson = memoryResultJson;

/**
 * `1. 100%  /docs/a.md` and an indented one-line excerpt per result: the relevance relative to the best
 * result (BM25 values mean nothing on their own). On a terminal, what the files hold is shown escape-safe.
 */
export function formatResults(results: readonly MemoryResult[], io: CliIo): string {
  const width = outputWidth(io.stdout);
  const excerptWidth = width === undefined ? 200 : Math.max(width - 4, 20);
  const shown = (text: string): string =>
    io.stdout.isTTY ? safeForTerminal(text, { singleLine: true }) : text;
  const best = bestScore(results);
  return results
    .map((result, index) => {
      const excerpt = truncate(shown(result.content.replace(/\s+/g, ' ').trim()), excerptWidth);
      const source = result.source === '' ? '(no source)' : shown(result.source);
      const relevance = formatRelevance(relativeRelevance(result.score, best));
      return `${index + 1}. ${relevance.padStart(4)}  ${source}\n   ${excerpt}\n`;
    })
    .join('');
}

/** `jarvis memory stats`: backend, database path and chunk count (0 when no database exists yet). */
export function runMemoryStats(flags: MemoryFlags, io: CliIo): Promise<void> {
  return withSystem(flags, io, async (system) => {
    const { backend, location: dbPath } = system.memoryLocation();
    const memory = system.memoryIfPresent();
    const count = memory === undefined ? 0 : await memory.count();
    if (flags.json === true) {
      const json = { backend, db_path: dbPath, exists: memory !== undefined, count };
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return;
    }
    const where = memory === undefined ? `${dbPath} (not created yet)` : dbPath;
    io.stdout.write(`backend   ${backend}\ndatabase  ${where}\nchunks    ${count}\n`);
  });
}

/** `jarvis memory clear`: deletes every chunk after a yes on a terminal, or with `--yes`. */
export function runMemoryClear(flags: MemoryFlags, io: CliIo): Promise<void> {
  if (flags.yes !== true && !canAsk(io)) {
    throw new UsageError(
      'memory clear deletes every stored chunk and there is no terminal to ask: run `jarvis memory clear --yes` to confirm',
    );
  }
  return withSystem(flags, io, async (system) => {
    const memory = system.memoryIfPresent();
    const count = memory === undefined ? 0 : await memory.count();
    const dbPath = system.memoryLocation().location;
    if (memory === undefined || count === 0) {
      io.stdout.write(`Memory is already empty (${dbPath}).\n`);
      return;
    }
    const chunks = count === 1 ? '1 chunk' : `${count} chunks`;
    if (flags.yes !== true && !(await promptYesNo(`Delete all ${chunks} from ${dbPath}?`, io))) {
      io.stderr.write('Nothing was deleted.\n');
      return;
    }
    await memory.clear();
    io.stdout.write(`Deleted ${chunks} from ${dbPath}.\n`);
  });
}
