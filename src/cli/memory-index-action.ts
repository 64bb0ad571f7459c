import { resolve } from 'node:path';
import { safeForTerminal } from '../core/index.js';
import type { IndexProgress, IndexSummary } from '../memory/index.js';
import type { CliIo } from './cli-io.js';
import type { MemoryFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { ProgressLine } from './progress.js';

/**
 * `jarvis memory index <path>`: a progress bar on stderr on a terminal, a warning on stderr for each file that
 * could not be indexed (the rest is indexed all the same), then a one-line summary.
 */
export async function runMemoryIndex(path: string, flags: MemoryFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  const progress = new ProgressLine(io.stderr);
  let chunks = 0;
  try {
    const system = await jarvis.system();
    const summary = await system.indexMemory(resolve(io.cwd, path), {
      signal: io.signal,
      onProgress: (step: IndexProgress) => {
        chunks += step.chunks;
        const path = safeForTerminal(step.path, { singleLine: true });
        progress.update(`${step.filesSeen} files, ${chunks} chunks  ${path}`);
      },
    });
    progress.clear();
    io.stderr.write(failureWarnings(summary));
    io.stdout.write(flags.json === true ? summaryJson(summary) : `${summaryLine(summary)}\n`);
  } finally {
    progress.clear();
    await jarvis.close();
  }
}

/** `Indexed 3 files: 7 chunks written, 1 unchanged, 2 skipped (1 binary, 1 hidden).` (reasons sorted). */
export function summaryLine(summary: IndexSummary): string {
  const files = summary.files === 1 ? '1 file' : `${summary.files} files`;
  const chunks = summary.chunks === 1 ? '1 chunk' : `${summary.chunks} chunks`;
  const reasons = new Map<string, number>();
  for (const skipped of summary.skipped)
    reasons.set(skipped.reason, (reasons.get(skipped.reason) ?? 0) + 1);
  const why = [...reasons]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([reason, count]) => `${count} ${reason.replaceAll('_', ' ')}`);
  const skipped =
    summary.skipped.length === 0
      ? '0 skipped'
      : `${summary.skipped.length} skipped (${why.join(', ')})`;
  return `Indexed ${files}: ${chunks} written, ${summary.unchanged} unchanged, ${skipped}.`;
}

/** `warning: could not index <path> (<error>); skipped it.` for each file whose indexing failed, escape-safe. */
export function failureWarnings(summary: IndexSummary): string {
  return summary.skipped
    .filter((skipped) => skipped.reason === 'failed')
    .map((skipped) => {
      const path = safeForTerminal(skipped.path, { singleLine: true });
      const why = safeForTerminal(skipped.detail ?? 'unknown error', { singleLine: true });
      return `warning: could not index ${path} (${why}); skipped it.\n`;
    })
    .join('');
}

/** The summary as JSON with snake_case keys; skipped paths with their reasons. */
export function summaryJson(summary: IndexSummary): string {
  const json = {
    files: summary.files,
    chunks: summary.chunks,
    unchanged: summary.unchanged,
    skipped: summary.skipped.map((skipped) => ({
      path: skipped.path,
      reason: skipped.reason,
      ...(skipped.detail === undefined ? {} : { detail: skipped.detail }),
    })),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}
