import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelDownloader, ModelDownloaderOptions } from 'node-llama-cpp';
import { type Clock, describeError, systemClock, untilAborted } from '../../core/index.js';
import {
  isModuleNotFound,
  loadNodeLlamaCpp,
  type NodeLlamaCppModule,
} from '../embedded/node-llama-cpp-loader.js';
import { type CatalogModel, MODEL_CATALOG } from './catalog.js';
import {
  coalesceDownloaderWrites,
  completedRanges,
  finishWritesBeforeClosing,
  observeDownloaderWrites,
  oneStreamUnlessResuming,
  preferChunksInOrder,
  throttleDownloaderProgress,
} from './downloader-hooks.js';
import { sha256OfLargeFile } from './file-sha256.js';
import {
  ChunkAgents,
  fetchChunksOverHttp,
  keepAuthorizationOnOrigin,
} from './http-chunk-transport.js';
import { IncrementalFileHash } from './incremental-hash.js';
import {
  ensureDiskRoom,
  type FetchLike,
  fetchRemoteFileFacts,
  formatBytes,
  type RemoteFileFacts,
} from './model-file-checks.js';
import { ModelPullError } from './model-pull-error.js';
import { type ModelSource, resolveModelSource } from './model-source.js';
import { type PullLockHolder, withPullLock } from './pull-lock.js';
import { StallWatchdog } from './stall-watchdog.js';

/** node-llama-cpp, whose downloader a pull uses; missing, the pull fails saying how to install it. */
async function loadRuntime(model: string): Promise<NodeLlamaCppModule> {
  try {
    return await loadNodeLlamaCpp();
  } catch (error) {
    throw new ModelPullError(
      'runtime_missing',
      isModuleNotFound(error)
        ? `cannot pull ${model}: the embedded runtime (node-llama-cpp) is not installed; run \`jarvis engines install embedded\` first`
        : `cannot pull ${model}: the embedded runtime (node-llama-cpp) could not be loaded: ${describeError(error)}`,
      error,
    );
  }
}

/** Progress of a pull, as node-llama-cpp's downloader reports it. */
export interface PullProgress {
  readonly totalBytes: number;
  readonly downloadedBytes: number;
  readonly bytesPerSecond: number;
  /** Estimated time left as ipull reports it (milliseconds), `Infinity` when unknown. */
  readonly estimatedTimeLeftMs: number;
}

/** Options of `pullModel`. */
export interface PullModelOptions {
  /** Catalog name, `hf:owner/repo/file.gguf`, `hf:owner/repo:quant`, or a URL. */
  readonly model: string;
  /** Directory the finished `.gguf` lands in; unfinished downloads stay in its `.partial/` folder. */
  readonly modelsDir: string;
  /** Hugging Face endpoint (what `HF_ENDPOINT` holds; default `https://huggingface.co/`). */
  readonly endpoint?: string;
  /** Hugging Face token (what `HF_TOKEN` holds) for gated models; env and token files are never read here. */
  readonly token?: string;
  /** Cancels the pull; the partial download is kept and resumed by the next pull. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: PullProgress) => void;
  /**
   * Least time between two progress reports (default 100 ms; the end and a cancel are always reported); 0
   * reports every network read, which costs much of a fast download's time.
   */
  readonly progressIntervalMs?: number;
  /** Time source of the progress interval (default `systemClock`). */
  readonly clock?: Clock;
  /** Called when another process is pulling into the same models folder and this pull waits for it. */
  readonly onWaiting?: (holder: PullLockHolder) => void;
  /** The catalog of short names (default `MODEL_CATALOG`). */
  readonly catalog?: readonly CatalogModel[];
  /** `fetch` used for the hub's metadata HEAD request (default global `fetch`). */
  readonly fetch?: FetchLike;
  /**
   * How long a pull waits for data (the hub's answer, the next bytes) before it fails as stalled; the partial
   * download is kept for the next pull (default 60 s).
   */
  readonly stallTimeoutMs?: number;
  /**
   * Hash the download on a worker thread that reads the file back (from the page cache) as its written prefix
   * grows, so the hash never takes turns with the download on this thread. Default false: hash on this thread from
   * the written bytes themselves as they are written, in file order (a fresh pull arrives in order over one
   * connection, so nothing is held back or copied), with no read-back and no thread: on 2 cores shared with a
   * local server that was 15-37% less CPU per pull and a faster pull with its SHA-256 in three A/B runs; a worker
   * pays off only where this thread is the bottleneck and a core is idle.
   */
  readonly hashOnWorker?: boolean;
  /** Free-space probe (default `fs.statfs`). */
  readonly statfs?: (path: string) => Promise<{ bavail: number; bsize: number }>;
}

/** A model file that is complete and verified in `modelsDir`. */
export interface PulledModel {
  readonly path: string;
  readonly fileName: string;
  readonly sizeBytes: number;
  /** The SHA-256 the file was checked against, when one was known (catalog or hub headers). */
  readonly sha256: string | undefined;
  /** False when the file was already there and nothing was downloaded. */
  readonly downloaded: boolean;
}

const DEFAULT_ENDPOINT = 'https://huggingface.co/';
const PARTIAL_DIR = '.partial';
const IPULL_SUFFIX = '.ipull';
const DEFAULT_STALL_TIMEOUT_MS = 60_000;
const DEFAULT_PROGRESS_INTERVAL_MS = 100;
const inFlight = new Map<string, Promise<PulledModel>>();

/**
 * Downloads a GGUF model into `modelsDir` with node-llama-cpp's downloader (resumable), verifies its size and
 * SHA-256, and only then renames it into place; concurrent pulls of one model in this process share one download.
 */
export function pullModel(options: PullModelOptions): Promise<PulledModel> {
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
  let source: ModelSource;
  try {
    source = resolveModelSource(options.model, options.catalog ?? MODEL_CATALOG, endpoint);
  } catch (error) {
    return Promise.reject(error);
  }
  const key = `${resolve(options.modelsDir)}\0${source.uri}`;
  const running = inFlight.get(key);
  if (running !== undefined) return running;
  const pull = runPull(options, source, endpoint).finally(() => inFlight.delete(key));
  inFlight.set(key, pull);
  return pull;
}

/** What one pull runs under: the caller's signal, and a watchdog that ends a pull no data arrives for. */
interface PullRun {
  readonly options: PullModelOptions;
  readonly source: ModelSource;
  readonly endpoint: string;
  readonly watchdog: StallWatchdog;
  /** Aborted by the caller's signal or by the watchdog. */
  readonly signal: AbortSignal;
  /** The connections the download's ranged GETs use, closed when the pull ends. */
  readonly agents: ChunkAgents;
}

async function runPull(
  options: PullModelOptions,
  source: ModelSource,
  endpoint: string,
): Promise<PulledModel> {
  throwIfAborted(options.signal);
  const stagingDir = join(options.modelsDir, PARTIAL_DIR);
  await mkdir(stagingDir, { recursive: true });
  try {
    return await withPullLock(stagingDir, () => watchedPull(options, source, endpoint), {
      signal: options.signal,
      onWaiting: options.onWaiting,
    });
  } catch (error) {
    throwIfAborted(options.signal);
    throw error;
  }
}

/** One pull, ended by the caller's signal or when no data arrives for the stall timeout. */
async function watchedPull(
  options: PullModelOptions,
  source: ModelSource,
  endpoint: string,
): Promise<PulledModel> {
  const watchdog = new StallWatchdog(options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS);
  const signals = options.signal === undefined ? [] : [options.signal];
  const signal = AbortSignal.any([...signals, watchdog.signal]);
  const agents = new ChunkAgents();
  try {
    return await pullWatched({ options, source, endpoint, watchdog, signal, agents });
  } catch (error) {
    throwIfAborted(options.signal);
    if (watchdog.stalled) throw stalledError(source, endpoint, watchdog.timeoutMs, error);
    throw error;
  } finally {
    watchdog.stop();
    agents.destroy();
  }
}

async function pullWatched(run: PullRun): Promise<PulledModel> {
  const { options } = run;
  const expected = await expectedFacts(run);
  const stagingDir = join(options.modelsDir, PARTIAL_DIR);
  await restorePartials(stagingDir);
  const downloader = await createDownloader(run, stagingDir);
  const fileName = downloader.entrypointFilename;
  const finalPath = join(options.modelsDir, fileName);
  const sizeBytes =
    expected.sizeBytes ?? (downloader.totalSize > 0 ? downloader.totalSize : undefined);
  if (sizeBytes !== undefined && (await fileSize(finalPath)) === sizeBytes) {
    await downloader.cancel({ deleteTempFile: false });
    return { path: finalPath, fileName, sizeBytes, sha256: expected.sha256, downloaded: false };
  }
  await checkRoom(options, downloader, stagingDir, fileName, sizeBytes);
  const stagedPath = join(stagingDir, fileName);
  const facts = { sha256: expected.sha256, sizeBytes };
  const hashed = await downloadHashing(run, downloader, stagedPath, facts);
  const verified = await verify(stagedPath, facts, options.model, hashed);
  await rename(stagedPath, finalPath);
  return {
    path: finalPath,
    fileName,
    sizeBytes: verified.sizeBytes,
    sha256: expected.sha256,
    downloaded: true,
  };
}

/** The pull ran out of time without data; what is downloaded so far stays for the next pull. */
function stalledError(
  source: ModelSource,
  endpoint: string,
  timeoutMs: number,
  cause: unknown,
): ModelPullError {
  const origin = new URL(source.fileUrl ?? endpoint).origin;
  return new ModelPullError(
    'stalled',
    `no data from ${origin} for ${Math.round(timeoutMs / 1000)} s: the server stopped answering; check the connection (and HF_ENDPOINT), then run the same pull again to resume`,
    cause,
  );
}

/** Size and SHA-256 the file must have: the pinned catalog entry wins, else what the hub's headers say. */
async function expectedFacts({ options, source, signal }: PullRun): Promise<RemoteFileFacts> {
  if (source.catalog?.pinned === true) {
    return { sha256: source.catalog.sha256, sizeBytes: source.catalog.sizeBytes };
  }
  if (source.fileUrl === undefined) return { sha256: undefined, sizeBytes: undefined };
  return fetchRemoteFileFacts(source.fileUrl, options.token, options.fetch ?? fetch, signal);
}

/**
 * node-llama-cpp's downloader for the source (it asks the hub for the file's name and size first). Waiting for
 * it ends with the run's signal: a downloader that arrives later is cancelled.
 */
async function createDownloader(run: PullRun, stagingDir: string): Promise<ModelDownloader> {
  const { createModelDownloader } = await loadRuntime(run.options.model);
  const creating = createModelDownloader(downloaderOptions(run, stagingDir));
  creating.then(
    async (late) => {
      if (run.signal.aborted) await late.cancel({ deleteTempFile: false }).catch(() => undefined);
    },
    () => undefined,
  );
  try {
    const downloader = await untilAborted(creating, run.signal);
    run.watchdog.touch();
    const { progressIntervalMs = DEFAULT_PROGRESS_INTERVAL_MS, clock = systemClock } = run.options;
    throttleDownloaderProgress(downloader, progressIntervalMs, clock);
    coalesceDownloaderWrites(downloader);
    finishWritesBeforeClosing(downloader);
    fetchChunksOverHttp(downloader, run.agents);
    oneStreamUnlessResuming(downloader);
    await keepTokenOnEndpoint(run, downloader);
    if (downloader.totalFiles !== 1) {
      await downloader.cancel({ deleteTempFile: false });
      throw new ModelPullError(
        'invalid_source',
        `${run.options.model} is split into ${downloader.totalFiles} files; split GGUF models are not supported yet`,
      );
    }
    return downloader;
  } catch (error) {
    if (error instanceof ModelPullError || run.signal.aborted) throw error;
    throw new ModelPullError(
      'download_failed',
      `cannot download ${run.options.model}: ${describeError(error)}`,
      error,
    );
  }
}

/**
 * Keeps the token off hosts other than the endpoint's (the CDN the hub redirects a download to). A downloader this
 * cannot be done for is refused when there is a token, rather than letting it send the token wherever it is sent.
 */
async function keepTokenOnEndpoint(run: PullRun, downloader: ModelDownloader): Promise<void> {
  const origin = new URL(run.endpoint).origin;
  if (keepAuthorizationOnOrigin(downloader, origin)) return;
  if (run.options.token === undefined) return;
  await downloader.cancel({ deleteTempFile: false });
  throw new ModelPullError(
    'download_failed',
    `cannot pull ${run.options.model} with HF_TOKEN: this version of node-llama-cpp's downloader could not be kept from sending the token to hosts other than ${origin}; install the node-llama-cpp version this package pins`,
  );
}

/** The downloader's options: staging folder, our token and endpoint only, progress that feeds the watchdog. */
function downloaderOptions(run: PullRun, stagingDir: string): ModelDownloaderOptions {
  const { options, watchdog } = run;
  let lastBytes = -1;
  return {
    modelUri: run.source.uri,
    dirPath: stagingDir,
    skipExisting: true,
    deleteTempFileOnCancel: false,
    parallelDownloads: 1,
    // `null` keeps node-llama-cpp from reading HF_TOKEN or ~/.cache/huggingface/token itself.
    // (its types say `string | undefined`, but its code documents and checks for `null`).
    tokens: { huggingFace: options.token ?? (null as unknown as string) },
    endpoints: { huggingFace: run.endpoint },
    onProgress: (status) => {
      if (status.downloadedSize !== lastBytes) watchdog.touch();
      lastBytes = status.downloadedSize;
      options.onProgress?.(toProgress(status));
    },
  };
}

function toProgress(status: {
  totalSize: number;
  downloadedSize: number;
  estimatedTimeLeft: number;
  averageSpeed: number;
}): PullProgress {
  return {
    totalBytes: status.totalSize,
    downloadedBytes: status.downloadedSize,
    bytesPerSecond: status.averageSpeed,
    estimatedTimeLeftMs: status.estimatedTimeLeft,
  };
}

/** Refuses before downloading when the disk cannot hold what is left to download. */
async function checkRoom(
  options: PullModelOptions,
  downloader: ModelDownloader,
  stagingDir: string,
  fileName: string,
  sizeBytes: number | undefined,
): Promise<void> {
  if (sizeBytes === undefined) return;
  const partialBytes = (await fileSize(join(stagingDir, fileName + IPULL_SUFFIX))) ?? 0;
  try {
    await ensureDiskRoom(stagingDir, Math.max(0, sizeBytes - partialBytes), options.statfs);
  } catch (error) {
    await downloader.cancel({ deleteTempFile: false });
    throw error;
  }
}

/**
 * Downloads, and when a SHA-256 is expected hashes the file while it is written; returns that digest, or
 * undefined when there is none to compare (no SHA-256 expected, or the incremental hash was not possible).
 */
async function downloadHashing(
  run: PullRun,
  downloader: ModelDownloader,
  stagedPath: string,
  expected: RemoteFileFacts,
): Promise<string | undefined> {
  const partialPath = stagedPath + IPULL_SUFFIX;
  let hasher: IncrementalFileHash | undefined;
  if (expected.sha256 !== undefined && expected.sizeBytes !== undefined) {
    const worker = run.options.hashOnWorker ?? false;
    const candidate = new IncrementalFileHash({
      paths: [partialPath, stagedPath],
      sizeBytes: expected.sizeBytes,
      worker,
      // On a worker the thread reads every byte back: no copies nor a message per write on this thread.
      ...(worker ? { holdBytes: 0 } : {}),
    });
    const observed = observeDownloaderWrites(downloader, (position, bytes) =>
      candidate.written(position, bytes),
    );
    if (observed && preferChunksInOrder(downloader)) hasher = candidate;
    else await candidate.close();
    for (const [start, end] of completedRanges(downloader)) hasher?.present(start, end);
  }
  try {
    await download(downloader, run.signal, partialPath);
  } catch (error) {
    await hasher?.close();
    throw error;
  }
  run.watchdog.stop();
  return hasher?.finish();
}

async function download(
  downloader: ModelDownloader,
  signal: AbortSignal | undefined,
  partialPath: string,
): Promise<void> {
  // The signal is not handed to node-llama-cpp: its abort listener calls `cancel()` without waiting for it or
  // catching it, so a failure of ipull's closing rename became an unhandled rejection (seen in CI). Our own
  // listener cancels, and `stopped` waits for that cancel, which is the one that closes the file.
  let cancelling: Promise<void> | undefined;
  const onAbort = (): void => {
    cancelling = cancelQuietly(downloader);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted === true) onAbort();
    else await downloader.download();
  } catch (error) {
    await stopped(downloader, partialPath, cancelling);
    throwIfAborted(signal);
    throw new ModelPullError(
      'download_failed',
      `download interrupted: ${describeError(error)}; run the same pull again to resume`,
      error,
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted === true) {
    // ipull can resolve an aborted download and rename its file afterwards: wait for that as after a failure.
    await stopped(downloader, partialPath, cancelling);
    throwIfAborted(signal);
  }
}

function cancelQuietly(downloader: ModelDownloader): Promise<void> {
  return downloader.cancel({ deleteTempFile: false }).catch(() => undefined);
}

/**
 * Cancels a stopped download and waits until ipull has closed its partial file: the first cancel is the one that
 * renames it (a later one returns at once), then `partialClosed` in case ipull closed it on its own.
 */
async function stopped(
  downloader: ModelDownloader,
  partialPath: string,
  cancelling?: Promise<void>,
): Promise<void> {
  await (cancelling ?? cancelQuietly(downloader));
  await partialClosed(partialPath);
}

/** How long a stopped download may take to close its partial file. */
const PARTIAL_CLOSE_WAIT_MS = 2_000;

/**
 * Waits until ipull has closed a stopped download: it renames the `.ipull` file after its cancel has returned,
 * and a pull that went on before that (the next pull's restore, the caller deleting the folder) would make that
 * late rename fail as an unhandled rejection inside ipull. Gives up after a short while.
 */
async function partialClosed(partialPath: string): Promise<void> {
  for (let waitedMs = 0; waitedMs < PARTIAL_CLOSE_WAIT_MS; waitedMs += 20) {
    if ((await fileSize(partialPath)) === undefined) return;
    await sleep(20);
  }
}

/**
 * ipull renames its `.ipull` file to the final name when a download is closed unfinished (progress record still
 * appended, and possibly after the cancelled call has returned); a staged file without its `.ipull` twin is
 * renamed back so ipull resumes it. A staged file that is in fact complete is then simply downloaded again.
 */
async function restorePartials(stagingDir: string): Promise<void> {
  const names = new Set(await readdir(stagingDir));
  for (const name of names) {
    if (!/\.gguf$/i.test(name) || names.has(name + IPULL_SUFFIX)) continue;
    await rename(join(stagingDir, name), join(stagingDir, name + IPULL_SUFFIX)).catch(
      () => undefined,
    );
  }
}

/** Checks the staged file; a wrong one is deleted so nothing that looks like a model is left behind. */
async function verify(
  stagedPath: string,
  expected: RemoteFileFacts,
  model: string,
  hashedWhileDownloading: string | undefined,
): Promise<{ sizeBytes: number }> {
  const actualSize = (await fileSize(stagedPath)) ?? 0;
  if (expected.sizeBytes !== undefined && actualSize !== expected.sizeBytes) {
    await rm(stagedPath, { force: true });
    throw new ModelPullError(
      'size_mismatch',
      `downloaded ${model} is ${formatBytes(actualSize)} but should be ${formatBytes(expected.sizeBytes)} (${expected.sizeBytes} bytes); the file was deleted — pull again`,
    );
  }
  if (expected.sha256 !== undefined) {
    // A digest computed during the download is trusted only when it matches; any other answer is checked
    // against the file itself, so a flaw in the incremental hash can cost time but never pass a wrong file.
    const actual =
      hashedWhileDownloading === expected.sha256
        ? hashedWhileDownloading
        : await sha256OfLargeFile(stagedPath);
    if (actual !== expected.sha256) {
      await rm(stagedPath, { force: true });
      throw new ModelPullError(
        'checksum_mismatch',
        `downloaded ${model} failed its SHA-256 check (expected ${expected.sha256}, got ${actual}); the file was deleted — pull again, and if it repeats the source or a mirror is serving a different file`,
      );
    }
  }
  return { sizeBytes: actualSize };
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted !== true) return;
  throw new ModelPullError(
    'cancelled',
    'model pull cancelled; run the same pull again to resume',
    signal.reason,
  );
}
