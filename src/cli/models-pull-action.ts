import { readdir, rm } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import type { CatalogModel, PulledModel, PullProgress } from '../engine/index.js';
import type { ModelHubSettings } from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo, CliStream } from './cli-io.js';
import { untrustedLine } from './cli-output.js';
import type { ModelsFileFlags } from './command-flags.js';
import { loadCliConfig } from './jarvis-options.js';
import { ProgressLine } from './progress.js';

/** `jarvis models pull <model>`: downloads a GGUF into the models folder, then prints its path and size. */
export async function runModelsPull(
  model: string,
  flags: ModelsFileFlags,
  io: CliIo,
): Promise<void> {
  const settings = await hubSettings(flags, io);
  const pulled = await pullWithProgress(model, settings, io);
  const { formatBytes } = await import('../engine/index.js');
  const note = pulled.downloaded ? '' : ' (already there)';
  io.stdout.write(`${untrustedLine(pulled.path)}  ${formatBytes(pulled.sizeBytes)}${note}\n`);
}

/**
 * Pulls `model` into the models folder, showing progress on stderr (a redrawn line on a terminal), installing the
 * embedded runtime first when it is missing (the pull uses its downloader); a Ctrl-C says the partial download is
 * kept. Errors are those of `pullModel`, a bad name or source as a usage error.
 */
export async function pullWithProgress(
  model: string,
  settings: ModelHubSettings,
  io: CliIo,
): Promise<PulledModel> {
  if (settings.home !== undefined) {
    const { ensureEmbeddedRuntime } = await import('./engines-install-action.js');
    await ensureEmbeddedRuntime(settings.home, io);
  }
  const engine = await import('../engine/index.js');
  const reporter = pullReporter(io.stderr, engine.formatBytes);
  io.stderr.write(`Pulling ${untrustedLine(model)} into ${untrustedLine(settings.modelsDir)}\n`);
  try {
    const pulled = await engine.pullModel({
      model,
      modelsDir: settings.modelsDir,
      signal: io.signal,
      onProgress: reporter.update,
      onWaiting: (holder) =>
        io.stderr.write(
          `Waiting for another pull into this folder to finish (process ${holder.pid} on ${untrustedLine(holder.host)})\n`,
        ),
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
      ...(settings.token === undefined ? {} : { token: settings.token }),
    });
    reporter.done();
    return pulled;
  } catch (error) {
    reporter.done();
    if (io.signal.aborted)
      io.stderr.write(
        'Pull stopped; what was downloaded is kept: run the same pull again to resume.\n',
      );
    throw pullFailure(error, io.signal, engine.ModelPullError);
  }
}

/** A cancelled pull ends as the signal says (exit 130); a bad name or source is a usage error (exit 2). */
function pullFailure(
  error: unknown,
  signal: AbortSignal,
  pullError: abstract new (
    ...args: never[]
  ) => { readonly failure: string; readonly message: string },
): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof pullError && ['unknown_model', 'invalid_source'].includes(error.failure))
    return new UsageError(error.message);
  return error;
}

/** How a pull shows its progress: a redrawn line on a terminal, a line per quarter otherwise. */
interface PullReporter {
  readonly update: (progress: PullProgress) => void;
  readonly done: () => void;
}

function pullReporter(stream: CliStream, formatBytes: (bytes: number) => string): PullReporter {
  if (stream.isTTY) {
    const line = new ProgressLine(stream);
    return {
      update: (progress) => line.update(formatPullProgress(progress, formatBytes)),
      done: () => line.clear(),
    };
  }
  let quarter = 0;
  return {
    update: (progress) => {
      const reached = quarterReached(progress);
      if (reached <= quarter) return;
      quarter = reached;
      stream.write(`${formatPullProgress(progress, formatBytes)}\n`);
    },
    done: () => undefined,
  };
}

/** Which quarter (1-4) of the download is complete, 0 when none or the total is unknown. */
export function quarterReached(progress: PullProgress): number {
  if (!(progress.totalBytes > 0)) return 0;
  return Math.min(4, Math.floor((progress.downloadedBytes / progress.totalBytes) * 4));
}

/** One progress line: `4.2 MB / 11.6 MB (36%)  2.1 MB/s  4s left`. */
export function formatPullProgress(
  progress: PullProgress,
  formatBytes: (bytes: number) => string,
): string {
  const total = progress.totalBytes > 0 ? progress.totalBytes : undefined;
  const done = formatBytes(Math.max(0, progress.downloadedBytes));
  const amount =
    total === undefined
      ? done
      : `${done} / ${formatBytes(total)} (${Math.floor((progress.downloadedBytes / total) * 100)}%)`;
  const rate =
    Number.isFinite(progress.bytesPerSecond) && progress.bytesPerSecond > 0
      ? `  ${formatBytes(progress.bytesPerSecond)}/s`
      : '';
  return `${amount}${rate}  ${formatTimeLeft(progress.estimatedTimeLeftMs)}`;
}

/** Longer than this is a guess from the first few bytes (ipull then says hundreds of hours), not an estimate. */
const MAX_SHOWN_TIME_LEFT_MS = 48 * 3_600_000;

/** `45s left`, `3m 05s left`, `1h 02m left`, or `time left unknown` (also while the estimate is wild). */
export function formatTimeLeft(timeLeftMs: number): string {
  if (!Number.isFinite(timeLeftMs) || timeLeftMs < 0 || timeLeftMs > MAX_SHOWN_TIME_LEFT_MS)
    return 'time left unknown';
  const seconds = Math.ceil(timeLeftMs / 1000);
  if (seconds < 60) return `${seconds}s left`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s left`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m left`;
}

/** `jarvis models rm <name>`: deletes one `.gguf` file of the models folder, by file name or catalog name. */
export async function runModelsRm(name: string, flags: ModelsFileFlags, io: CliIo): Promise<void> {
  const settings = await hubSettings(flags, io);
  const { MODEL_CATALOG } = await import('../engine/index.js');
  const present = await localModelFiles(settings.modelsDir);
  const fileName = localFileFor(name, present, MODEL_CATALOG);
  if (fileName === undefined) {
    const there = present.length === 0 ? 'none' : present.join(', ');
    throw new UsageError(`No model '${name}' in ${settings.modelsDir}. Models there: ${there}`);
  }
  await rm(join(settings.modelsDir, fileName));
  io.stdout.write(`Removed ${untrustedLine(join(settings.modelsDir, fileName))}\n`);
}

/**
 * The file of the models folder that `name` means: a file name (with or without `.gguf`), or a catalog name's
 * file as the hub names it or as node-llama-cpp saves it (`hf_<owner>_<file>`). Paths are refused.
 */
export function localFileFor(
  name: string,
  present: readonly string[],
  catalog: readonly CatalogModel[],
): string | undefined {
  if (name === '' || isAbsolute(name) || basename(name) !== name || name.includes('..'))
    throw new UsageError(
      `'${name}' is not a model name: give a file name in the models folder (no folders, no '..')`,
    );
  const entry = catalog.find((model) => model.name === name);
  const owner = entry?.repository.split('/')[0] ?? '';
  const candidates =
    entry === undefined
      ? [name, `${name}.gguf`]
      : [entry.file, `hf_${owner}_${entry.file}`, name, `${name}.gguf`];
  return candidates.find((candidate) => present.includes(candidate));
}

/** The `.gguf` files directly inside `modelsDir` (none when it does not exist), sorted. */
async function localModelFiles(modelsDir: string): Promise<string[]> {
  const entries = await readdir(modelsDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.gguf'))
    .map((entry) => entry.name)
    .sort();
}

/** The models folder and hub settings of the config (`--config`) and the environment; warnings on stderr. */
export async function hubSettings(flags: ModelsFileFlags, io: CliIo): Promise<ModelHubSettings> {
  const config = await loadCliConfig(flags.config, io);
  const { modelHubSettings } = await import('../system/index.js');
  return modelHubSettings(config, io.env);
}
