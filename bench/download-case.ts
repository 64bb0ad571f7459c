// One Node-side case of the model download benchmark (bench/download.bench.ts), run in a process of its own: the
// bench forks this module once per case per round, so no case inherits another's heap, JIT state, loaded modules
// or garbage-collection debt. The process loads what its case needs first (the built engine and node-llama-cpp
// for a pull, ipull for ipull alone), says it is ready, downloads once when told (the timed part), replies with its
// sample and ends when the bench disconnects. A user's `jarvis models pull` is such a process too: one download,
// cold JIT.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type * as Engine from '../src/engine/index.js';
import { answerCommands, endWithParent } from './role-process.js';

/** The flag this module is forked with; its arguments follow: case key, hub URL, file URL, dist folder, size. */
export const DOWNLOAD_CASE_FLAG = '--download-case';

/** The Node-side cases, by the key the bench passes. */
export const NODE_CASES = [
  'pull',
  'pull-no-sha',
  'pull-worker',
  'fetch',
  'http',
  'http-sha',
  'ipull',
] as const;

/** A Node-side case's key. */
export type NodeCaseKey = (typeof NODE_CASES)[number];

/** What the case process measured of its one download. */
export interface NodeCaseSample {
  readonly wallMs: number;
  /** CPU time of every thread of the process (main, V8's, libuv's, workers) during the download. */
  readonly cpuMs: number;
  /** CPU time of the main thread (the event loop the download runs on), from /proc; NaN elsewhere. */
  readonly mainCpuMs: number;
  readonly majorGcs: number;
  readonly minorGcs: number;
  /** Time the garbage collections took on the main thread (pauses, as V8 reports them). */
  readonly gcMs: number;
}

/** The command the bench sends: download into `directory`. */
interface RunCommand {
  readonly directory: string;
}

/** The repository and file the hub serves, as the bench names them. */
export const REPOSITORY = 'bench/random-model';
export const FILE_NAME = 'bench-256mib.gguf';

/**
 * User + system CPU time from a /proc `stat` file (a process's, or one thread's under `task/`), in ms (Linux,
 * 100 ticks per second); NaN elsewhere.
 */
export function procCpuMs(statPath: string): number {
  try {
    const fields = readFileSync(statPath, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** CPU time of this process's main thread (see procCpuMs). */
const mainThreadCpuMs = (): number => procCpuMs(`/proc/self/task/${process.pid}/stat`);

/** Counts garbage collections by kind while it is on. */
class GcCounter {
  majorGcs = 0;
  minorGcs = 0;
  gcMs = 0;
  readonly #observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) this.majorGcs += 1;
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) this.minorGcs += 1;
      this.gcMs += entry.duration;
    }
  });

  start(): void {
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  /** Stops counting once the entries of collections so far are delivered (they arrive a turn later). */
  async stop(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#observer.disconnect();
  }
}

/** Times `work` with this process's CPU time, its main thread's, and the collections it caused. */
async function measure(work: () => Promise<void>): Promise<NodeCaseSample> {
  const gcs = new GcCounter();
  gcs.start();
  const mainBefore = mainThreadCpuMs();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const mainCpuMs = mainThreadCpuMs() - mainBefore;
  await gcs.stop();
  return {
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    mainCpuMs,
    majorGcs: gcs.majorGcs,
    minorGcs: gcs.minorGcs,
    gcMs: gcs.gcMs,
  };
}

/** Node's own `fetch` (undici) writing each read at its position, what any Node downloader builds on. */
async function fetchToFile(url: string, path: string, sizeBytes: number): Promise<void> {
  const response = await fetch(url);
  if (!response.ok || response.body === null) throw new Error(`fetch answered ${response.status}`);
  const file = await open(path, 'w');
  try {
    let position = 0;
    for await (const chunk of response.body) {
      await file.write(chunk, 0, chunk.length, position);
      position += chunk.length;
    }
    if (position !== sizeBytes) throw new Error(`fetch wrote ${position} bytes`);
  } finally {
    await file.close();
  }
}

/** A GET with `node:http` that follows one redirect; resolves with the response to read. */
async function httpGet(url: string): Promise<import('node:http').IncomingMessage> {
  const { get } = await import('node:http');
  return new Promise((resolve, reject) => {
    get(url, (redirect) => {
      redirect.resume();
      const location = redirect.headers.location;
      if (location === undefined) return resolve(redirect);
      get(new URL(location, url), resolve).once('error', reject);
    }).once('error', reject);
  });
}

/**
 * A bare `node:http` GET (the transport a pull's chunks use under ipull) whose reads are gathered into 4 MiB
 * batches, each written with one `writev` while the next is read: what Node itself reaches. With `hash`, every
 * read is hashed on this thread as it arrives too (what a pull with its SHA-256 does at the least).
 */
async function httpToFile(
  url: string,
  path: string,
  sizeBytes: number,
  hash: boolean,
): Promise<void> {
  const content = await httpGet(url);
  const digest = hash ? createHash('sha256') : undefined;
  const file = await open(path, 'w');
  try {
    let batch: Uint8Array[] = [];
    let batchBytes = 0;
    let position = 0;
    let writing: Promise<unknown> = Promise.resolve();
    for await (const chunk of content as AsyncIterable<Uint8Array>) {
      digest?.update(chunk);
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes < 4 * 1024 * 1024) continue;
      await writing;
      writing = file.writev(batch, position);
      position += batchBytes;
      batch = [];
      batchBytes = 0;
    }
    await writing;
    await file.writev(batch, position);
    if (position + batchBytes !== sizeBytes) throw new Error('node:http wrote a short file');
    digest?.digest('hex');
  } finally {
    await file.close();
  }
}

/** ipull's own `downloadFile` (what node-llama-cpp's downloader wraps), with its defaults and no hooks. */
async function ipullAlone(url: string, directory: string, sizeBytes: number): Promise<void> {
  const { downloadFile } = await import('ipull');
  const downloader = await downloadFile({ url, directory, fileName: FILE_NAME });
  await downloader.download();
  if (statSync(join(directory, FILE_NAME)).size !== sizeBytes)
    throw new Error('ipull wrote a short file');
}

/** A HEAD that tells nothing, so `pullModel` knows no SHA-256 (nor size) and skips the verification. */
const blindFetch: NonNullable<Engine.PullModelOptions['fetch']> = () =>
  Promise.resolve(new Response(null, { status: 200 }));

/** `pullModel` into a fresh models folder, timed until the file is verified and in place. */
async function pullOnce(
  engine: typeof Engine,
  endpoint: string,
  directory: string,
  sizeBytes: number,
  key: 'pull' | 'pull-no-sha' | 'pull-worker',
): Promise<void> {
  const verify = key !== 'pull-no-sha';
  const pulled = await engine.pullModel({
    model: `hf:${REPOSITORY}/${FILE_NAME}`,
    modelsDir: directory,
    endpoint,
    ...(verify ? {} : { fetch: blindFetch }),
    ...(key === 'pull-worker' ? { hashOnWorker: true } : {}),
  });
  if (!pulled.downloaded || pulled.sizeBytes !== sizeBytes)
    throw new Error(`pullModel did not download the whole file: ${JSON.stringify(pulled)}`);
  if (verify !== (pulled.sha256 !== undefined))
    throw new Error(`pullModel ${verify ? 'did not verify' : 'verified'} the SHA-256`);
}

/** Loads what the case needs before it is timed; returns the download to time. */
async function prepare(
  key: NodeCaseKey,
  hubUrl: string,
  fileUrl: string,
  dist: string,
  sizeBytes: number,
): Promise<(directory: string) => Promise<void>> {
  const path = (directory: string) => join(directory, FILE_NAME);
  switch (key) {
    case 'pull':
    case 'pull-no-sha':
    case 'pull-worker': {
      const engine = (await import(
        pathToFileURL(join(dist, 'engine', 'index.js')).href
      )) as typeof Engine;
      // The pull loads node-llama-cpp on its first use; loaded here, its import is not part of the download.
      await import('node-llama-cpp');
      return (directory) => pullOnce(engine, hubUrl, directory, sizeBytes, key);
    }
    case 'fetch':
      return (directory) => fetchToFile(fileUrl, path(directory), sizeBytes);
    case 'http':
    case 'http-sha':
      return (directory) => httpToFile(fileUrl, path(directory), sizeBytes, key === 'http-sha');
    case 'ipull':
      await import('ipull');
      return (directory) => ipullAlone(fileUrl, directory, sizeBytes);
  }
}

/** In the case process: prepares, says so, and answers each `RunCommand` with a sample. */
export async function runDownloadCase(args: readonly string[]): Promise<void> {
  const [key, hubUrl, fileUrl, dist, size] = args;
  if (!NODE_CASES.includes(key as NodeCaseKey) || hubUrl === undefined || fileUrl === undefined)
    throw new Error(`bad download case arguments: ${args.join(' ')}`);
  const download = await prepare(key as NodeCaseKey, hubUrl, fileUrl, dist ?? 'dist', Number(size));
  endWithParent();
  answerCommands<RunCommand>((command) => measure(() => download(command.directory)));
  process.send?.({ ready: true });
}

const argv = process.argv;
const flagAt = argv.indexOf(DOWNLOAD_CASE_FLAG);
if (flagAt >= 0 && import.meta.url === pathToFileURL(argv[1] ?? '').href)
  await runDownloadCase(argv.slice(flagAt + 1));
