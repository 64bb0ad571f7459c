// Model download benchmark (issue 15): `pullModel` (node-llama-cpp's downloader, ipull under it, the SHA-256
// computed from the written bytes as they are written, then the size and digest checks) next to `curl` fetching the same file from the same local scripted hub, in the same run. Goal: >= 0.9x
// curl's throughput. The hub runs in a child process so that neither side shares its event loop with the server.
// Fairness: one file of 256 MiB, one hub process for every case, every side writes into a fresh folder of the same
// disk (`-o`, never /dev/null), no compression anywhere (the hub sends none; curl asks for none without
// `--compressed`). curl uses one connection; a pull a size probe plus one ranged GET of the whole file (ipull splits
// it into its 5 MiB chunks; a resume would fetch the chunks left one ranged GET each, 3 at a time). curl verifies nothing, so `curl, then sha256sum` is the reference for a pull that checks the SHA-256, and
// `undici fetch -> file` (Node's `fetch`, no ipull) and `node:http GET -> file` (the transport a pull's chunks use
// under ipull, reads written in 4 MiB batches) show what a Node process reaches on the same machine, and `ipull
// downloadFile alone` what ipull reaches as its README calls it (its defaults: 3 streams, 5 MiB chunks, every
// network read reported and formatted, over `fetch`), with neither node-llama-cpp nor our hooks around it.
// CPU time per case (curl's from the shell's `times`, a pull's from `process.cpuUsage`, both without the hub) tells
// the cost per byte apart from the load of a shared machine, and a pull's main-thread CPU time (from /proc) what
// its event loop spent; the hub's own CPU time per case (from /proc, Linux)
// shows what each client makes the server do on the same 2 cores (a pull: a size probe whose body it never reads,
// then one ranged GET; ipull alone: 3 connections, one ranged GET per 5 MiB chunk; curl: one GET).
// `pullModel, SHA-256 on a worker thread` is the same pull with `hashOnWorker: true` (a thread hashes the file
// read back from the page cache as its prefix grows: the download's thread does not hash, but more CPU in all).
// Run alone: `npm run build && node --import tsx bench/download.bench.ts [--quick] [--dist=<dir>]` (`--dist`: the
// build to measure, default the repository's dist; for an A/B copy a build aside and run once per copy).
import { type ChildProcess, fork, spawn, spawnSync } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Engine from '../src/engine/index.js';
import { testing } from './library.js';

/** Options of `downloadBench`. */
export interface DownloadBenchOptions {
  /** Fewer samples. */
  readonly quick?: boolean;
}

const FILE_BYTES = 256 * 1024 * 1024;
const REPOSITORY = 'bench/random-model';
const FILE_NAME = 'bench-256mib.gguf';
const HUB_CHILD_FLAG = '--hub-child';
const RATE_FLAG = '--rate=';
/** The link speed of the second run: about a gigabit connection, faster than most users' downloads. */
const LINK_BYTES_PER_SECOND = 100 * 1000 * 1000;
const MB = 1e6;

/** The `--dist=<dir>` argument: the build to measure (default: the repository's dist). */
function distArgument(argv: readonly string[]): string | undefined {
  return argv.find((arg) => arg.startsWith('--dist='))?.slice('--dist='.length);
}

/**
 * The built engine folder (`pullModel` is not exported from the package entry yet), loaded on first use so that
 * the hub process, which runs this file too, does not load it.
 */
let engineModule: Promise<typeof Engine> | undefined;
function builtEngine(): Promise<typeof Engine> {
  const dist = distArgument(process.argv);
  const url =
    dist === undefined
      ? new URL('../dist/engine/index.js', import.meta.url).href
      : pathToFileURL(join(dist, 'engine', 'index.js')).href;
  engineModule ??= import(url) as Promise<typeof Engine>;
  return engineModule;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Child process: serves one random file of FILE_BYTES from the scripted hub and reports its URL. */
async function serveHub(): Promise<void> {
  const content = new Uint8Array(FILE_BYTES);
  randomFillSync(content);
  const rate = Number(
    process.argv.find((arg) => arg.startsWith(RATE_FLAG))?.slice(RATE_FLAG.length),
  );
  const hub = await testing.startScriptedModelHub({
    files: [{ repository: REPOSITORY, path: FILE_NAME, content }],
    ...(Number.isFinite(rate) && rate > 0 ? { bytesPerSecond: rate } : {}),
  });
  process.send?.({ url: hub.url });
  process.on('disconnect', () => void hub.close().then(() => process.exit(0)));
}

/** Forks this file as the hub process and waits for its URL. */
function startHubProcess(bytesPerSecond?: number): Promise<{ url: string; child: ChildProcess }> {
  const rate = bytesPerSecond === undefined ? [] : [`${RATE_FLAG}${bytesPerSecond}`];
  const child = fork(fileURLToPath(import.meta.url), [HUB_CHILD_FLAG, ...rate], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ url: (message as { url: string }).url, child }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the hub process exited early (code ${code})`)));
  });
}

function curlAvailable(): boolean {
  const probe = spawnSync('curl', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

/** Wall time and CPU time (all threads of the measured process, not the hub) of one sample. */
interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** CPU time of this process's main thread (the event loop the download runs on); NaN for curl. */
  readonly mainCpuMs: number;
}

/** A sample with the hub process's CPU time during it (NaN where /proc cannot tell). */
interface HubSample extends Sample {
  readonly hubCpuMs: number;
}

/**
 * User + system CPU time of a process (or with `thread`, one of its threads) from /proc (Linux, 100 ticks per
 * second), NaN elsewhere.
 */
function processCpuMs(pid: number | undefined, thread?: number): number {
  try {
    const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Runs one case in a fresh folder and adds the hub's CPU time spent meanwhile. */
async function measureCase(c: Case, hubPid: number | undefined): Promise<HubSample> {
  const hubBefore = processCpuMs(hubPid);
  const sample = await inFreshFolder(c.run);
  return { ...sample, hubCpuMs: processCpuMs(hubPid) - hubBefore };
}

/** Seconds of bash's `times` line (`0m0.123s 0m0.045s`: user and system) as milliseconds, summed. */
function parseTimesLine(line: string | undefined): number {
  let totalMs = 0;
  for (const match of (line ?? '').matchAll(/(\d+)m([\d.]+)s/g))
    totalMs += (Number(match[1]) * 60 + Number(match[2])) * 1000;
  return totalMs;
}

/**
 * Side A: `curl -s -S -f -L -o <file> <url>` (one connection, no compression), optionally followed by
 * `sha256sum <file>`, run by bash so that its `times` reports the children's CPU time; timed from spawn to exit.
 */
function curlOnce(url: string, directory: string, hash: boolean): Promise<Sample> {
  const target = join(directory, FILE_NAME);
  const script = `curl -s -S -f -L -o "$1" "$2"${hash ? ' && sha256sum "$1" > /dev/null' : ''} && times`;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn('bash', ['-c', script, 'bash', target, url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`curl exited with ${code}`));
      if (statSync(target).size !== FILE_BYTES) return reject(new Error('curl wrote a short file'));
      resolve({
        wallMs,
        cpuMs: parseTimesLine(output.trim().split('\n')[1]),
        mainCpuMs: Number.NaN,
      });
    });
  });
}

/** Runs `work` in this process, timing it and counting this process's CPU time (main thread, workers, libuv). */
async function inProcess(work: () => Promise<void>): Promise<Sample> {
  const mainBefore = processCpuMs(process.pid, process.pid);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const mainCpuMs = processCpuMs(process.pid, process.pid) - mainBefore;
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, mainCpuMs };
}

/** Reference: Node's own `fetch` (undici) writing each read at its position, what any Node downloader builds on. */
async function fetchToFile(url: string, directory: string): Promise<void> {
  const response = await fetch(url);
  if (!response.ok || response.body === null) throw new Error(`fetch answered ${response.status}`);
  const file = await open(join(directory, FILE_NAME), 'w');
  try {
    let position = 0;
    for await (const chunk of response.body) {
      await file.write(chunk, 0, chunk.length, position);
      position += chunk.length;
    }
    if (position !== FILE_BYTES) throw new Error(`fetch wrote ${position} bytes`);
  } finally {
    await file.close();
  }
}

/**
 * Reference: a bare `node:http` GET (the transport a pull's chunks now use under ipull) whose reads are gathered
 * into 4 MiB batches, each written with one `writev` while the next is read: what Node itself reaches.
 */
async function httpToFile(url: string, directory: string): Promise<void> {
  const { get } = await import('node:http');
  const content = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    get(url, (redirect) => {
      redirect.resume();
      const location = redirect.headers.location;
      if (location === undefined) return resolve(redirect);
      get(new URL(location, url), resolve).once('error', reject);
    }).once('error', reject);
  });
  const file = await open(join(directory, FILE_NAME), 'w');
  try {
    let batch: Uint8Array[] = [];
    let batchBytes = 0;
    let position = 0;
    let writing: Promise<unknown> = Promise.resolve();
    for await (const chunk of content as AsyncIterable<Uint8Array>) {
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
    if (position + batchBytes !== FILE_BYTES) throw new Error('node:http wrote a short file');
  } finally {
    await file.close();
  }
}

/** Reference: ipull's own `downloadFile` (what node-llama-cpp's downloader wraps), with its defaults and no hooks. */
async function ipullAlone(url: string, directory: string): Promise<void> {
  const { downloadFile } = await import('ipull');
  const downloader = await downloadFile({ url, directory, fileName: FILE_NAME });
  await downloader.download();
  if (statSync(join(directory, FILE_NAME)).size !== FILE_BYTES)
    throw new Error('ipull wrote a short file');
}

/** A HEAD that tells nothing, so `pullModel` knows no SHA-256 (nor size) and skips the verification. */
const blindFetch: NonNullable<Engine.PullModelOptions['fetch']> = () =>
  Promise.resolve(new Response(null, { status: 200 }));

/**
 * Side B: `pullModel` into a fresh models folder, timed until the file is verified and in place; `onWorker` hashes
 * on a worker thread (`hashOnWorker: true`).
 */
async function pullOnce(
  endpoint: string,
  directory: string,
  verify: boolean,
  onWorker = false,
): Promise<void> {
  const engine = await builtEngine();
  const pulled = await engine.pullModel({
    model: `hf:${REPOSITORY}/${FILE_NAME}`,
    modelsDir: directory,
    endpoint,
    ...(verify ? {} : { fetch: blindFetch }),
    ...(onWorker ? { hashOnWorker: true } : {}),
  });
  if (!pulled.downloaded || pulled.sizeBytes !== FILE_BYTES)
    throw new Error(`pullModel did not download the whole file: ${JSON.stringify(pulled)}`);
  if (verify !== (pulled.sha256 !== undefined))
    throw new Error(`pullModel ${verify ? 'did not verify' : 'verified'} the SHA-256`);
}

/** Runs `measure` in a fresh temporary folder that is removed afterwards. */
async function inFreshFolder<T>(measure: (directory: string) => Promise<T>): Promise<T> {
  const directory = mkdtempSync(join(tmpdir(), 'jarvis-download-bench-'));
  try {
    return await measure(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Time to hash a file of the same size once it is on disk (what the verification step costs). */
async function hashOnlyMs(): Promise<number> {
  return inFreshFolder(async (directory) => {
    const { writeFileSync } = await import('node:fs');
    const path = join(directory, 'hash.bin');
    writeFileSync(path, randomFillSync(new Uint8Array(FILE_BYTES)));
    const started = performance.now();
    const hash = createHash('sha256');
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
      for (let read = 1; read > 0; ) {
        ({ bytesRead: read } = await file.read(buffer, 0, buffer.length, null));
        hash.update(buffer.subarray(0, read));
      }
    } finally {
      await file.close();
    }
    hash.digest('hex');
    return performance.now() - started;
  });
}

/** The machine's load average, which these timings depend on (the SHA-256 runs beside the download). */
function formatLoad(): string {
  return loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');
}

interface Case {
  readonly name: string;
  readonly run: (directory: string) => Promise<Sample>;
}

/**
 * One row per case: median throughput and its ratio to the first case (curl), median CPU time and its ratio, and
 * the hub's median CPU time during the case.
 */
function formatReport(cases: readonly Case[], samples: ReadonlyMap<string, HubSample[]>): string {
  const wallMs = (name: string) => median((samples.get(name) ?? []).map((s) => s.wallMs));
  const cpuMs = (name: string) => median((samples.get(name) ?? []).map((s) => s.cpuMs));
  const hubMs = (name: string) => median((samples.get(name) ?? []).map((s) => s.hubCpuMs));
  const mainMs = (name: string) => median((samples.get(name) ?? []).map((s) => s.mainCpuMs));
  const rate = (name: string) => FILE_BYTES / MB / (wallMs(name) / 1000);
  const first = cases[0]?.name ?? '';
  const rows = cases.map((c) => {
    const ratio = `${(rate(c.name) / rate(first)).toFixed(3)}x`;
    const cpuRatio = `${(cpuMs(c.name) / cpuMs(first)).toFixed(1)}x`;
    const hub = Number.isNaN(hubMs(c.name)) ? '-' : hubMs(c.name).toFixed(0);
    const main = Number.isNaN(mainMs(c.name)) ? '-' : mainMs(c.name).toFixed(0);
    return `${c.name.padEnd(44)}  ${rate(c.name).toFixed(1).padStart(8)}  ${wallMs(c.name).toFixed(0).padStart(9)}  ${ratio.padStart(6)}  ${cpuMs(c.name).toFixed(0).padStart(6)}  ${cpuRatio.padStart(6)}  ${main.padStart(7)}  ${hub.padStart(6)}`;
  });
  return [
    `${'case'.padEnd(44)}  ${'MB/s'.padStart(8)}  ${'median ms'.padStart(9)}  ${'ratio'.padStart(6)}  ${'CPU ms'.padStart(6)}  ${'CPU x'.padStart(6)}  ${'main ms'.padStart(7)}  ${'hub ms'.padStart(6)}`,
    ...rows,
  ].join('\n');
}

/** Starts the hub process, measures curl and pullModel interleaved and returns the report text. */
export async function downloadBench(options: DownloadBenchOptions = {}): Promise<string> {
  const title = `## Model download: ${(FILE_BYTES / MB).toFixed(1)} MB from the scripted hub on 127.0.0.1 (302 redirect, Range)`;
  if (!curlAvailable()) return `${title}\nskipped: curl not installed`;
  const samples = options.quick === true ? 3 : 7;
  const loadBefore = formatLoad();
  const unlimited = await measureAgainstCurl(undefined, samples, true);
  const linked = await measureAgainstCurl(LINK_BYTES_PER_SECOND, Math.min(samples, 5), false);
  const hashMs = await hashOnlyMs();
  return [
    `${title}, interleaved samples`,
    `loopback, no limit (${samples} samples per case):`,
    unlimited,
    `over a ${LINK_BYTES_PER_SECOND / MB} MB/s link shared by all connections (${Math.min(samples, 5)} samples per case):`,
    linked,
    `SHA-256 of a ${(FILE_BYTES / MB).toFixed(1)} MB file already on disk alone: ${hashMs.toFixed(0)} ms`,
    `build measured: ${distArgument(process.argv) ?? 'dist'}`,
    `load average (1, 5, 15 min) before: ${loadBefore}; after: ${formatLoad()} (${cpus().length} cores)`,
    'goal: pullModel (with SHA-256) >= 0.9x curl throughput; ratio = MB/s over curl, CPU x = CPU time over curl,',
    'main ms = CPU time of the pulling main thread (which hashes too, except on a worker), hub ms = CPU time of the hub',
    'process during the case (the server shares the cores with the client)',
  ].join('\n');
}

/** One hub process (optionally rate-limited), curl and pullModel interleaved on it; the table. */
async function measureAgainstCurl(
  bytesPerSecond: number | undefined,
  samples: number,
  withFetchReference: boolean,
): Promise<string> {
  const hub = await startHubProcess(bytesPerSecond);
  const url = `${hub.url}${REPOSITORY}/resolve/main/${FILE_NAME}`;
  const cases: Case[] = [
    { name: 'curl -s -S -f -L -o', run: (directory) => curlOnce(url, directory, false) },
    { name: 'curl -o, then sha256sum', run: (directory) => curlOnce(url, directory, true) },
    {
      name: 'pullModel (download + SHA-256)',
      run: (d) => inProcess(() => pullOnce(hub.url, d, true)),
    },
    {
      name: 'pullModel without SHA-256 (HEAD says none)',
      run: (d) => inProcess(() => pullOnce(hub.url, d, false)),
    },
    ...(withFetchReference
      ? [
          {
            name: 'pullModel, SHA-256 on a worker thread',
            run: (d: string) => inProcess(() => pullOnce(hub.url, d, true, true)),
          },
          {
            name: 'undici fetch -> file (no ipull, no SHA-256)',
            run: (d: string) => inProcess(() => fetchToFile(url, d)),
          },
          {
            name: 'node:http GET -> file (no ipull, no SHA-256)',
            run: (d: string) => inProcess(() => httpToFile(url, d)),
          },
          {
            name: 'ipull downloadFile alone (no SHA-256)',
            run: (d: string) => inProcess(() => ipullAlone(url, d)),
          },
        ]
      : []),
  ];
  try {
    const measured = new Map<string, HubSample[]>(cases.map((c) => [c.name, []]));
    for (const c of cases) await inFreshFolder(c.run); // warm up: page cache, JIT, the hub's first connection
    for (let sample = 0; sample < samples; sample += 1) {
      // Rotated each sample, so no case always follows the same one (the case after curl + sha256sum ran with
      // the page cache curl's file left behind and always came out dearer).
      const order = cases.map((_, i) => cases[(i + sample) % cases.length] as Case);
      for (const c of order) measured.get(c.name)?.push(await measureCase(c, hub.child.pid));
    }
    return formatReport(cases, measured);
  } finally {
    hub.child.removeAllListeners('exit');
    hub.child.kill();
  }
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain && process.argv.includes(HUB_CHILD_FLAG)) await serveHub();
else if (isMain) console.log(await downloadBench({ quick: process.argv.includes('--quick') }));
