import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PEERS = join(ROOT, 'bench', 'peers');

/** One cold import: a specifier imported by a fresh `node` from a folder, and the goals it has against `node -e 0`. */
interface ImportCase {
  readonly name: string;
  /** What the fresh process imports (nothing for the baseline). */
  readonly specifier?: string;
  /** Where it runs: the package resolves itself by name from its own folder, the peers from bench/peers. */
  readonly cwd: string;
  readonly goalRatio?: number;
  readonly goalRssMb?: number;
}

/** The package's own cases (baseline first, then the root and every subpath) for the package in `folder`. */
function ownCases(folder: string, label: string): ImportCase[] {
  const suffix = label === '' ? '' : ` [${label}]`;
  return [
    {
      name: `import('openjarvis')${suffix}`,
      specifier: 'openjarvis',
      cwd: folder,
      goalRatio: 1.6,
      goalRssMb: 15,
    },
    // Every subpath entry: importing one subsystem should cost only that subsystem.
    ...[
      'core',
      'tools',
      'agents',
      'engine',
      'memory',
      'scheduler',
      'sessions',
      'telemetry',
      'mcp',
      'system',
      'sdk',
      'testing',
      'server',
    ].map((subpath) => ({
      name: `import('openjarvis/${subpath}')${suffix}`,
      specifier: `openjarvis/${subpath}`,
      cwd: folder,
    })),
  ];
}

const BASELINE: ImportCase = { name: 'node -e 0 (baseline)', cwd: ROOT };

/**
 * The packages to measure: the repo's own build, or each `--dist=<folder>/dist` given (a built package: the
 * folder holds its package.json and finds node_modules above it), labelled by that folder, so two builds (before
 * and after a change) are measured side by side in one run.
 */
function ownPackages(args: readonly string[]): { folder: string; label: string }[] {
  const dists = args.filter((arg) => arg.startsWith('--dist=')).map((arg) => arg.slice(7));
  if (dists.length === 0) return [{ folder: ROOT, label: '' }];
  return dists.map((dist) => {
    const folder = dirname(resolve(dist));
    if (!existsSync(join(folder, 'package.json')))
      throw new Error(
        `--dist=${dist}: no package.json in ${folder} (the package folder of that dist)`,
      );
    return { folder, label: relative(ROOT, folder).split('/').pop() || '.' };
  });
}

/** The peers of issue 20's table; each is measured only when `npm run bench:setup` installed it. */
const PEER_PACKAGES: readonly string[] = ['ai', '@openai/agents', 'langchain'];

/** One sample: wall milliseconds from spawn to exit; the RSS and CPU time the process reported after the import. */
interface Sample {
  readonly ms: number;
  readonly rssMb: number;
  readonly cpuMs: number;
}

/** One sample of a case (see `Sample`). */
function sampleOnce(benchCase: ImportCase, env: NodeJS.ProcessEnv): Promise<Sample> {
  const load =
    benchCase.specifier === undefined
      ? ''
      : `await import(${JSON.stringify(benchCase.specifier)});`;
  // The child's own CPU time (user + system, bootstrap included) is told apart from the wall time: on a busy
  // machine the wall time mostly measures waiting for a core, the CPU time much less so.
  const script = `${load}const c = process.cpuUsage(); process.stdout.write(process.memoryUsage().rss + ' ' + (c.user + c.system) / 1000);`;
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: benchCase.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const [rss, cpuMs] = out.split(' ').map(Number);
      if (code === 0)
        resolvePromise({
          ms,
          rssMb: (rss ?? Number.NaN) / 1024 / 1024,
          cpuMs: cpuMs ?? Number.NaN,
        });
      else reject(new Error(`${benchCase.name} exited with ${code}: ${err.slice(0, 500)}`));
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The peers installed in bench/peers, and a line for each one that is not. */
function peerCases(): { cases: ImportCase[]; skipped: string[] } {
  const cases: ImportCase[] = [];
  const skipped: string[] = [];
  for (const name of PEER_PACKAGES) {
    if (existsSync(join(PEERS, 'node_modules', name, 'package.json')))
      cases.push({ name: `peer import('${name}')`, specifier: name, cwd: PEERS });
    else skipped.push(`peer '${name}' skipped: not installed in bench/peers (npm run bench:setup)`);
  }
  return { cases, skipped };
}

function formatLine(benchCase: ImportCase, sample: Sample, base: Sample) {
  const { ms, rssMb } = sample;
  const ratio = ms / base.ms;
  const aboveMb = rssMb - base.rssMb;
  const goals: string[] = [];
  if (benchCase.goalRatio !== undefined)
    goals.push(
      `time <= ${benchCase.goalRatio}x ${ratio <= benchCase.goalRatio ? 'met' : 'NOT met'}`,
    );
  if (benchCase.goalRssMb !== undefined)
    goals.push(
      `RSS <= +${benchCase.goalRssMb} MB ${aboveMb <= benchCase.goalRssMb ? 'met' : 'NOT met'}`,
    );
  const cpuRatio = sample.cpuMs / base.cpuMs;
  return `${benchCase.name.padEnd(32)} p50 ${ms.toFixed(1).padStart(6)} ms ${ratio.toFixed(2).padStart(5)}x   CPU ${sample.cpuMs.toFixed(1).padStart(6)} ms ${cpuRatio.toFixed(2).padStart(5)}x   RSS ${rssMb.toFixed(1).padStart(5)} MB (+${aboveMb.toFixed(1)})${goals.length === 0 ? '' : `   goal ${goals.join(', ')}`}`;
}

/**
 * Cold `import()` of the built package (through its "exports", as a user imports it) and of its subpath
 * entries, next to `node -e 0` and the peers: every case a fresh `node` in a bare environment (PATH only),
 * samples interleaved so machine noise hits every case alike; ratio = p50 / baseline p50, RSS = median RSS right
 * after the import. Needs the build (`npm run bench` builds first).
 */
export async function importCostReport(options: {
  readonly samples: number;
  /**
   * Command-line arguments: `--dist=<folder>/dist`, repeatable (see `ownPackages`); `--only=openjarvis,openjarvis/tools`
   * measures those specifiers only (and no peer).
   */
  readonly args?: readonly string[];
}): Promise<string> {
  const args = options.args ?? [];
  const only = args
    .find((arg) => arg.startsWith('--only='))
    ?.slice(7)
    .split(',');
  const own = ownPackages(args)
    .flatMap(({ folder, label }) => ownCases(folder, label))
    .filter((c) => only === undefined || only.includes(c.specifier ?? ''));
  // A run narrowed to some of our own cases leaves the peers out.
  const peers = only === undefined ? peerCases() : { cases: [], skipped: [] };
  const cases = [BASELINE, ...own, ...peers.cases];
  const env = { PATH: process.env.PATH ?? '' };
  const samples = new Map(
    cases.map((c) => [
      c.name,
      { ms: [] as number[], rssMb: [] as number[], cpuMs: [] as number[] },
    ]),
  );
  for (const benchCase of cases) await sampleOnce(benchCase, env); // warm the file cache
  for (let round = 0; round < options.samples; round += 1) {
    for (const benchCase of cases) {
      const { ms, rssMb, cpuMs } = await sampleOnce(benchCase, env);
      samples.get(benchCase.name)?.ms.push(ms);
      samples.get(benchCase.name)?.rssMb.push(rssMb);
      samples.get(benchCase.name)?.cpuMs.push(cpuMs);
    }
  }
  const medians = (name: string) => {
    const s = samples.get(name);
    return {
      ms: median(s?.ms ?? []),
      rssMb: median(s?.rssMb ?? []),
      cpuMs: median(s?.cpuMs ?? []),
    };
  };
  const base = medians(BASELINE.name);
  return [
    `Library import cost (${options.samples} samples each, interleaved, bare environment; ratio = p50 / node -e 0 p50, wall and child CPU; load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')})`,
    ...cases.map((c) => {
      const m = medians(c.name);
      return formatLine(c, m, base);
    }),
    ...peers.skipped,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Usage: node --import tsx bench/import.bench.ts [samples] [--dist=<folder>/dist ...]
  const args = process.argv.slice(2);
  const samples = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 15);
  console.log(await importCostReport({ samples, args }));
}
