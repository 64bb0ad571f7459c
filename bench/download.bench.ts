// Model download benchmark (issue 15): `pullModel` (node-llama-cpp's downloader, ipull under it, the SHA-256
// computed from the written bytes as they are written, then the size and digest checks) next to `curl` fetching
// the same file from the same local scripted hub, in the same run. Goal: >= 0.9x curl's throughput.
//
// How it is measured, so that a number says something about the code rather than about its place in the run:
// - The hub runs in a child process of its own, serving one random file of 256 MiB with no compression (curl asks
//   for none without `--compressed`); every case writes into a fresh folder of the same disk (never /dev/null).
// - Every Node-side case runs in a fresh process (bench/download-case.ts), one per case per round: it loads what
//   it needs, then downloads once, timed. No case inherits another's heap, JIT state, loaded modules or garbage
//   to collect (in one shared process the first pull of each round came out slow whatever its mode). curl runs
//   under bash, a fresh process too.
// - The order of the cases changes every round: the rounds follow a balanced Latin square (`balancedOrders`), so
//   every case runs once in every position and after every other case equally often (the case after one that
//   wrote and deleted 256 MB pays for some of that one's disk writeback, and that cost is now spread evenly).
//   The table reports the median and the spread (min-max) per case; `paired` is the median over rounds of the
//   case's throughput over curl's in the same round, which cancels load that changes between rounds.
// - CPU time per case (curl's from bash's `times`, a Node case's from `process.cpuUsage` in its process, all
//   threads) and per MB tells the cost per byte apart from the load of a shared machine; `main` is the CPU time
//   of a Node case's main thread (its event loop), `GCs` the major collections during the download, `hub` the
//   hub process's CPU time during the case (the server shares the cores with the client).
// Cases: curl (one connection); curl then sha256sum (what a user types to check a download: the file is read
// back from the page cache after it is written); `curl | tee file | sha256sum` (the same work as a pull with its
// SHA-256: one pass, the hash computed while the download runs, at the cost of two pipe copies); the pull with
// and without the SHA-256 (a size probe plus one ranged GET of the whole file, which ipull splits into its 5 MiB
// chunks); the pull hashing on a worker thread (`hashOnWorker: true`: the file read back as its prefix grows);
// Node's `fetch` -> file, a bare `node:http` GET -> file without and with a SHA-256 of every read (what a Node
// process reaches on this machine, the floor of any Node downloader), and ipull's `downloadFile` alone with its
// defaults (3 streams, 5 MiB chunks, every network read reported, over `fetch`).
// The second run paces the hub to 100 MB/s (a fast home link) with the curl and pull cases only.
// Run alone: `npm run build && node --import tsx bench/download.bench.ts [--quick] [--rounds=N] [--dist=<dir>]`
// (`--dist`: the build to measure, default the repository's dist; for an A/B copy a build aside and run once per
// copy; `--rounds`: rounds of the loopback run, default one Latin square, fewer cases with `--quick`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { balancedOrder, balancedOrders } from './balanced-order.js';
import {
  DOWNLOAD_CASE_FLAG,
  FILE_NAME,
  type NodeCaseKey,
  type NodeCaseSample,
  procCpuMs,
  REPOSITORY,
} from './download-case.js';
import { endWithParent, forkRole } from './role-process.js';

/** Options of `downloadBench`. */
export interface DownloadBenchOptions {
  /** Fewer cases and rounds. */
  readonly quick?: boolean;
  /** Rounds of the loopback run (default: one balanced Latin square of its cases). */
  readonly rounds?: number;
}

const FILE_BYTES = 256 * 1024 * 1024;
const HUB_CHILD_FLAG = '--hub-child';
const RATE_FLAG = '--rate=';
/** The link speed of the second run: about a gigabit connection, faster than most users' downloads. */
const LINK_BYTES_PER_SECOND = 100 * 1000 * 1000;
const MB = 1e6;
const FILE_MB = FILE_BYTES / MB;
const CASE_MODULE = fileURLToPath(new URL('./download-case.ts', import.meta.url));

/** The `--dist=<dir>` argument as an absolute folder: the build to measure (default: the repository's dist). */
function distFolder(argv: readonly string[]): string {
  const given = argv.find((arg) => arg.startsWith('--dist='))?.slice('--dist='.length);
  return given === undefined ? fileURLToPath(new URL('../dist', import.meta.url)) : resolve(given);
}

function median(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Child process: serves one random file of FILE_BYTES from the scripted hub and reports its URL. */
async function serveHub(): Promise<void> {
  const { testing } = await import('./library.js');
  const content = new Uint8Array(FILE_BYTES);
  randomFillSync(content);
  const rate = Number(
    process.argv.find((arg) => arg.startsWith(RATE_FLAG))?.slice(RATE_FLAG.length),
  );
  const hub = await testing.startScriptedModelHub({
    files: [{ repository: REPOSITORY, path: FILE_NAME, content }],
    ...(Number.isFinite(rate) && rate > 0 ? { bytesPerSecond: rate } : {}),
  });
  endWithParent(() => hub.close());
  process.send?.({ url: hub.url });
}

function curlAvailable(): boolean {
  const probe = spawnSync('curl', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

/** One case's measurement in one round. */
interface Sample {
  readonly wallMs: number;
  /** CPU time of the measured process(es), not the hub. */
  readonly cpuMs: number;
  /** CPU time of a Node case's main thread; NaN for curl. */
  readonly mainCpuMs: number;
  /** Major garbage collections during a Node case's download; NaN for curl. */
  readonly majorGcs: number;
  /** The hub process's CPU time during the case (NaN where /proc cannot tell). */
  readonly hubCpuMs: number;
  /** The case's position in its round (0 = first). */
  readonly position: number;
  readonly round: number;
}

/** CPU time of a process (see procCpuMs). */
const processCpuMs = (pid: number | undefined): number => procCpuMs(`/proc/${pid}/stat`);

/** Seconds of bash's `times` line (`0m0.123s 0m0.045s`: user and system) as milliseconds, summed. */
function parseTimesLine(line: string | undefined): number {
  let totalMs = 0;
  for (const match of (line ?? '').matchAll(/(\d+)m([\d.]+)s/g))
    totalMs += (Number(match[1]) * 60 + Number(match[2])) * 1000;
  return totalMs;
}

/** The three ways curl takes part: alone, then sha256sum on the written file, or piped through tee to sha256sum. */
type CurlMode = 'plain' | 'then-sha' | 'tee-sha';

const CURL_SCRIPTS: Readonly<Record<CurlMode, string>> = {
  plain: 'curl -s -S -f -L -o "$1" "$2" && times',
  'then-sha': 'curl -s -S -f -L -o "$1" "$2" && sha256sum "$1" > /dev/null && times',
  'tee-sha': 'set -o pipefail; curl -s -S -f -L "$2" | tee "$1" | sha256sum > /dev/null && times',
};

/**
 * curl run by bash (one connection, no compression), so that bash's `times` reports the CPU time of curl, tee and
 * sha256sum; timed from spawn to exit.
 */
function curlOnce(
  url: string,
  directory: string,
  mode: CurlMode,
): Promise<Omit<Sample, 'hubCpuMs' | 'position' | 'round'>> {
  const target = join(directory, FILE_NAME);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn('bash', ['-c', CURL_SCRIPTS[mode], 'bash', target, url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`curl (${mode}) exited with ${code}`));
      if (statSync(target).size !== FILE_BYTES) return reject(new Error('curl wrote a short file'));
      resolve({
        wallMs,
        cpuMs: parseTimesLine(output.trim().split('\n')[1]),
        mainCpuMs: Number.NaN,
        majorGcs: Number.NaN,
      });
    });
  });
}

/** Where the cases download from. */
interface Hub {
  readonly url: string;
  readonly fileUrl: string;
  readonly pid: number | undefined;
}

/** A case: curl in one of its modes, or a Node-side case run in a fresh process. */
type Case =
  | { readonly name: string; readonly curl: CurlMode }
  | { readonly name: string; readonly node: NodeCaseKey };

/** A download's sample with the hub's CPU time counted around just that download. */
async function withHubCpu<T extends object>(
  hub: Hub,
  download: () => Promise<T>,
): Promise<T & { readonly hubCpuMs: number }> {
  const hubBefore = processCpuMs(hub.pid);
  const sample = await download();
  return { ...sample, hubCpuMs: processCpuMs(hub.pid) - hubBefore };
}

/**
 * Runs a Node-side case in a fresh process: waits until it has loaded what it needs, then times one download
 * there (the hub's CPU time counted around just that), and waits for the process to end before the next case.
 */
async function nodeCaseOnce(
  key: NodeCaseKey,
  hub: Hub,
  directory: string,
): Promise<Omit<Sample, 'position' | 'round'>> {
  const args = [key, hub.url, hub.fileUrl, distFolder(process.argv), String(FILE_BYTES)];
  const child = await forkRole<{ ready: boolean }>(CASE_MODULE, DOWNLOAD_CASE_FLAG, args, {
    name: `download case ${key}`,
  });
  const exited = new Promise((resolve) => child.child.once('exit', resolve));
  try {
    return await withHubCpu(hub, () => child.command<NodeCaseSample>({ directory }));
  } finally {
    child.close();
    await exited;
  }
}

/** Runs one case in a fresh folder, removed afterwards. */
async function caseOnce(c: Case, hub: Hub): Promise<Omit<Sample, 'position' | 'round'>> {
  const directory = mkdtempSync(join(tmpdir(), 'jarvis-download-bench-'));
  try {
    if ('node' in c) return await nodeCaseOnce(c.node, hub, directory);
    return await withHubCpu(hub, () => curlOnce(hub.fileUrl, directory, c.curl));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Time to hash a file of the same size once it is on disk (what the verification step costs). */
async function hashOnlyMs(): Promise<number> {
  const directory = mkdtempSync(join(tmpdir(), 'jarvis-download-bench-'));
  try {
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
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The machine's load average, which these timings depend on. */
function formatLoad(): string {
  return loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');
}

/** Samples per case name. */
type Measured = ReadonlyMap<string, readonly Sample[]>;

const throughput = (sample: Sample): number => FILE_MB / (sample.wallMs / 1000);

/** Median over the rounds both cases ran in of `a`'s throughput over `b`'s in the same round. */
function pairedRatio(measured: Measured, a: string, b: string): number {
  const bByRound = new Map((measured.get(b) ?? []).map((s) => [s.round, s]));
  const ratios: number[] = [];
  for (const sample of measured.get(a) ?? []) {
    const other = bByRound.get(sample.round);
    if (other !== undefined) ratios.push(throughput(sample) / throughput(other));
  }
  return median(ratios);
}

/** Median of one field of a case's samples. */
function medianOf(measured: Measured, name: string, field: (s: Sample) => number): number {
  return median((measured.get(name) ?? []).map(field));
}

function cell(value: number, digits: number, width: number): string {
  return (Number.isNaN(value) ? '-' : value.toFixed(digits)).padStart(width);
}

/** One row per case: throughput (median, min-max), ratios to the first case (curl), CPU, main thread, GCs, hub. */
function formatTable(cases: readonly Case[], measured: Measured): string {
  const first = cases[0]?.name ?? '';
  const curlRate = medianOf(measured, first, throughput);
  const header = `${'case'.padEnd(46)}  ${'MB/s'.padStart(6)}  ${'min-max MB/s'.padStart(12)}  ${'ratio'.padStart(6)}  ${'paired'.padStart(6)}  ${'CPU ms'.padStart(6)}  ${'ms/MB'.padStart(5)}  ${'main'.padStart(5)}  ${'GCs'.padStart(3)}  ${'hub'.padStart(4)}`;
  const rows = cases.map((c) => {
    const rates = (measured.get(c.name) ?? []).map(throughput);
    const rate = median(rates);
    const spread = `${Math.min(...rates).toFixed(0)}-${Math.max(...rates).toFixed(0)}`;
    const cpuMs = medianOf(measured, c.name, (s) => s.cpuMs);
    return [
      c.name.padEnd(46),
      cell(rate, 1, 6),
      spread.padStart(12),
      cell(rate / curlRate, 3, 6),
      cell(pairedRatio(measured, c.name, first), 3, 6),
      cell(cpuMs, 0, 6),
      cell(cpuMs / FILE_MB, 2, 5),
      cell(
        medianOf(measured, c.name, (s) => s.mainCpuMs),
        0,
        5,
      ),
      cell(
        medianOf(measured, c.name, (s) => s.majorGcs),
        0,
        3,
      ),
      cell(
        medianOf(measured, c.name, (s) => s.hubCpuMs),
        0,
        4,
      ),
    ].join('  ');
  });
  return [header, ...rows].join('\n');
}

/** A comparison of two cases doing the same work: ratio of median throughputs, and the median paired ratio. */
function compareLine(measured: Measured, label: string, a: string, b: string): string {
  if (!measured.has(a) || !measured.has(b)) return '';
  const ratio = medianOf(measured, a, throughput) / medianOf(measured, b, throughput);
  return `  ${label}: ${ratio.toFixed(3)}x (paired ${pairedRatio(measured, a, b).toFixed(3)}x)`;
}

/**
 * How position in the round affects the wall time: per position, the median over all samples of the sample's wall
 * time over its case's median. A flat line (all near 1) means the order no longer decides the numbers.
 */
function positionLine(cases: readonly Case[], measured: Measured): string {
  const relative = new Map<number, number[]>();
  for (const c of cases) {
    const samples = measured.get(c.name) ?? [];
    const caseMedian = median(samples.map((s) => s.wallMs));
    for (const s of samples) {
      const list = relative.get(s.position) ?? [];
      list.push(s.wallMs / caseMedian);
      relative.set(s.position, list);
    }
  }
  const byPosition = [...relative.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, values]) => median(values).toFixed(2));
  return `  wall time by position in the round over the case's median: ${byPosition.join(' ')}`;
}

const CASE = {
  curl: { name: 'curl -s -S -f -L -o', curl: 'plain' },
  curlThenSha: { name: 'curl -o, then sha256sum', curl: 'then-sha' },
  curlTeeSha: { name: 'curl | tee file | sha256sum', curl: 'tee-sha' },
  pull: { name: 'pullModel (download + SHA-256)', node: 'pull' },
  pullNoSha: { name: 'pullModel without SHA-256 (HEAD says none)', node: 'pull-no-sha' },
  pullWorker: { name: 'pullModel, SHA-256 on a worker thread', node: 'pull-worker' },
  fetch: { name: 'undici fetch -> file (no SHA-256)', node: 'fetch' },
  http: { name: 'node:http GET -> file (no SHA-256)', node: 'http' },
  httpSha: { name: 'node:http GET -> file + SHA-256 of each read', node: 'http-sha' },
  ipull: { name: 'ipull downloadFile alone (no SHA-256)', node: 'ipull' },
} as const satisfies Record<string, Case>;

/** The same-work comparisons the goal is judged by. */
function comparisonLines(measured: Measured): string[] {
  return [
    'same work:',
    compareLine(
      measured,
      'pull with SHA-256 / curl | tee | sha256sum',
      CASE.pull.name,
      CASE.curlTeeSha.name,
    ),
    compareLine(
      measured,
      'pull with SHA-256 / curl, then sha256sum',
      CASE.pull.name,
      CASE.curlThenSha.name,
    ),
    compareLine(measured, 'pull without SHA-256 / curl', CASE.pullNoSha.name, CASE.curl.name),
    compareLine(
      measured,
      'pull with SHA-256 / curl (the goal as written)',
      CASE.pull.name,
      CASE.curl.name,
    ),
    compareLine(
      measured,
      'node:http + SHA-256 / curl | tee | sha256sum',
      CASE.httpSha.name,
      CASE.curlTeeSha.name,
    ),
    compareLine(measured, 'node:http / curl', CASE.http.name, CASE.curl.name),
  ].filter((line) => line !== '');
}

/** Starts the hub process, measures the cases round by round and returns the report text. */
export async function downloadBench(options: DownloadBenchOptions = {}): Promise<string> {
  const title = `## Model download: ${FILE_MB.toFixed(1)} MB from the scripted hub on 127.0.0.1 (302 redirect, Range)`;
  if (!curlAvailable()) return `${title}\nskipped: curl not installed`;
  const quick = options.quick === true;
  const loopbackCases: Case[] = quick
    ? [CASE.curl, CASE.curlThenSha, CASE.curlTeeSha, CASE.pull, CASE.pullNoSha, CASE.http]
    : Object.values(CASE);
  const linkCases: Case[] = [
    CASE.curl,
    CASE.curlThenSha,
    CASE.curlTeeSha,
    CASE.pull,
    CASE.pullNoSha,
  ];
  const loopbackRounds = options.rounds ?? loopbackCases.length;
  const linkRounds = quick ? linkCases.length : balancedOrders(linkCases.length).length;
  const loadBefore = formatLoad();
  const loopback = await measureRounds(loopbackCases, undefined, loopbackRounds);
  const loadBetween = formatLoad();
  const linked = await measureRounds(linkCases, LINK_BYTES_PER_SECOND, linkRounds);
  const hashMs = await hashOnlyMs();
  return [
    `${title}; every Node case in a fresh process, rounds in a balanced Latin square order`,
    `loopback, no limit (${loopbackRounds} rounds):`,
    formatTable(loopbackCases, loopback),
    ...comparisonLines(loopback),
    positionLine(loopbackCases, loopback),
    `load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadBetween} (${cpus().length} cores)`,
    `over a ${LINK_BYTES_PER_SECOND / MB} MB/s link shared by all connections (${linkRounds} rounds):`,
    formatTable(linkCases, linked),
    ...comparisonLines(linked),
    positionLine(linkCases, linked),
    `SHA-256 of a ${FILE_MB.toFixed(1)} MB file already on disk, alone: ${hashMs.toFixed(0)} ms`,
    `build measured: ${distFolder(process.argv)}`,
    `load average (1, 5, 15 min) at the end: ${formatLoad()}`,
    "goal: pullModel >= 0.9x curl. ratio = median MB/s over curl's; paired = median over rounds of MB/s over",
    "curl's in the same round; CPU ms = all threads of the client (not the hub); main = a Node case's main thread;",
    'GCs = major garbage collections during the download; hub = CPU ms of the hub process during the case',
  ].join('\n');
}

/** One hub process (optionally rate-limited); `rounds` rounds of every case in balanced order; the samples. */
async function measureRounds(
  cases: readonly Case[],
  bytesPerSecond: number | undefined,
  rounds: number,
): Promise<Measured> {
  const rate = bytesPerSecond === undefined ? [] : [`${RATE_FLAG}${bytesPerSecond}`];
  const role = await forkRole<{ url: string }>(
    fileURLToPath(import.meta.url),
    HUB_CHILD_FLAG,
    rate,
    { name: 'hub' },
  );
  const url = role.first.url;
  const hub: Hub = {
    url,
    fileUrl: `${url}${REPOSITORY}/resolve/main/${FILE_NAME}`,
    pid: role.child.pid,
  };
  try {
    // Warms up the hub (its first connection, HEAD, redirect and range paths) and the page cache of the modules.
    for (const c of [CASE.curl, CASE.pull]) await caseOnce(c, hub);
    const measured = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round += 1) {
      const order = balancedOrder(round, cases.length);
      for (const [position, index] of order.entries()) {
        const c = cases[index] as Case;
        measured.get(c.name)?.push({ ...(await caseOnce(c, hub)), position, round });
      }
    }
    return measured;
  } finally {
    role.close();
  }
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
const roundsArgument = Number(
  process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length),
);
if (isMain && process.argv.includes(HUB_CHILD_FLAG)) await serveHub();
else if (isMain)
  console.log(
    await downloadBench({
      quick: process.argv.includes('--quick'),
      ...(Number.isInteger(roundsArgument) && roundsArgument > 0 ? { rounds: roundsArgument } : {}),
    }),
  );
