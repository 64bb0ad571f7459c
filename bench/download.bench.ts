// Model download benchmark (issue 15): `pullModel` (node-llama-cpp's downloader, ipull under it, the SHA-256
// computed on a worker thread while the file is written, then the size and digest checks) next to `curl` fetching the same file
// from the same local scripted hub, in the same run. Goal: >= 0.9x curl's
// throughput. The hub runs in a child process so that neither side shares its event loop with the server.
// Run alone: `npm run build && node --import tsx bench/download.bench.ts [--quick]`.
import { type ChildProcess, fork, spawn, spawnSync } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
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

const FILE_BYTES = 200 * 1024 * 1024;
const REPOSITORY = 'bench/random-model';
const FILE_NAME = 'bench-200mb.gguf';
const HUB_CHILD_FLAG = '--hub-child';
const RATE_FLAG = '--rate=';
/** The link speed of the second run: about a gigabit connection, faster than most users' downloads. */
const LINK_BYTES_PER_SECOND = 100 * 1000 * 1000;
const MB = 1e6;

// `pullModel` is not exported from the package entry yet; the bench takes it from the built engine folder.
const engine = (await import(
  new URL('../dist/engine/index.js', import.meta.url).href
)) as typeof Engine;

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

/** Side A: `curl -s -L -o <file> <url>`, timed from spawn to exit. */
function curlOnce(url: string, directory: string): Promise<number> {
  const target = join(directory, FILE_NAME);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-s', '-S', '-f', '-L', '-o', target, url], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => {
      const elapsedMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`curl exited with ${code}`));
      if (statSync(target).size !== FILE_BYTES) return reject(new Error('curl wrote a short file'));
      resolve(elapsedMs);
    });
  });
}

/** A HEAD that tells nothing, so `pullModel` knows no SHA-256 (nor size) and skips the verification. */
const blindFetch: NonNullable<Engine.PullModelOptions['fetch']> = () =>
  Promise.resolve(new Response(null, { status: 200 }));

/** Side B: `pullModel` into a fresh models folder, timed until the file is verified and in place. */
async function pullOnce(endpoint: string, directory: string, verify: boolean): Promise<number> {
  const started = performance.now();
  const pulled = await engine.pullModel({
    model: `hf:${REPOSITORY}/${FILE_NAME}`,
    modelsDir: directory,
    endpoint,
    ...(verify ? {} : { fetch: blindFetch }),
  });
  const elapsedMs = performance.now() - started;
  if (!pulled.downloaded || pulled.sizeBytes !== FILE_BYTES)
    throw new Error(`pullModel did not download the whole file: ${JSON.stringify(pulled)}`);
  if (verify !== (pulled.sha256 !== undefined))
    throw new Error(`pullModel ${verify ? 'did not verify' : 'verified'} the SHA-256`);
  return elapsedMs;
}

/** Runs `measure` in a fresh temporary folder that is removed afterwards. */
async function inFreshFolder(measure: (directory: string) => Promise<number>): Promise<number> {
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
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
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
  readonly run: (directory: string) => Promise<number>;
}

function formatReport(cases: readonly Case[], timesMs: ReadonlyMap<string, number[]>): string {
  const rate = (name: string) => FILE_BYTES / MB / (median(timesMs.get(name) ?? []) / 1000);
  const baseline = rate(cases[0]?.name ?? '');
  const rows = cases.map((c, index) => {
    const ratio = index === 0 ? '1.00x (baseline)' : `${(rate(c.name) / baseline).toFixed(3)}x`;
    const ms = median(timesMs.get(c.name) ?? []).toFixed(0);
    return `${c.name.padEnd(44)}  ${rate(c.name).toFixed(1).padStart(8)}  ${ms.padStart(9)}  ${ratio}`;
  });
  return [
    `${'case'.padEnd(44)}  ${'MB/s'.padStart(8)}  ${'median ms'.padStart(9)}  ratio`,
    ...rows,
  ].join('\n');
}

/** Starts the hub process, measures curl and pullModel interleaved and returns the report text. */
export async function downloadBench(options: DownloadBenchOptions = {}): Promise<string> {
  const title = `## Model download: ${(FILE_BYTES / MB).toFixed(1)} MB from the scripted hub on 127.0.0.1 (302 redirect, Range)`;
  if (!curlAvailable()) return `${title}\nskipped: curl not installed`;
  const samples = options.quick === true ? 3 : 9;
  const loadBefore = formatLoad();
  const unlimited = await measureAgainstCurl(undefined, samples);
  const linked = await measureAgainstCurl(LINK_BYTES_PER_SECOND, Math.min(samples, 5));
  const hashMs = await hashOnlyMs();
  return [
    `${title}, interleaved samples`,
    `loopback, no limit (${samples} samples per case):`,
    unlimited,
    `over a ${LINK_BYTES_PER_SECOND / MB} MB/s link shared by all connections (${Math.min(samples, 5)} samples per case):`,
    linked,
    `SHA-256 of a ${(FILE_BYTES / MB).toFixed(1)} MB file already on disk alone: ${hashMs.toFixed(0)} ms`,
    `load average (1, 5, 15 min) before: ${loadBefore}; after: ${formatLoad()} (${cpus().length} cores)`,
    'goal: pullModel (with SHA-256) >= 0.9x curl throughput',
  ].join('\n');
}

/** One hub process (optionally rate-limited), curl and pullModel interleaved on it; the table. */
async function measureAgainstCurl(
  bytesPerSecond: number | undefined,
  samples: number,
): Promise<string> {
  const hub = await startHubProcess(bytesPerSecond);
  const url = `${hub.url}${REPOSITORY}/resolve/main/${FILE_NAME}`;
  const cases: Case[] = [
    { name: 'curl -s -L -o', run: (directory) => curlOnce(url, directory) },
    { name: 'pullModel (download + SHA-256)', run: (d) => pullOnce(hub.url, d, true) },
    { name: 'pullModel without SHA-256 (HEAD says none)', run: (d) => pullOnce(hub.url, d, false) },
  ];
  try {
    const timesMs = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    for (const c of cases) await inFreshFolder(c.run); // warm up: page cache, JIT, the hub's first connection
    for (let sample = 0; sample < samples; sample += 1) {
      const order = sample % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) timesMs.get(c.name)?.push(await inFreshFolder(c.run));
    }
    return formatReport(cases, timesMs);
  } finally {
    hub.child.removeAllListeners('exit');
    hub.child.kill();
  }
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain && process.argv.includes(HUB_CHILD_FLAG)) await serveHub();
else if (isMain) console.log(await downloadBench({ quick: process.argv.includes('--quick') }));
