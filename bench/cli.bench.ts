import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/bin/jarvis.js');

/** One cold-start case: a command line and the most it may take relative to `node -e 0`. */
interface StartCase {
  readonly name: string;
  readonly args: readonly string[];
  /** Goal as a multiple of the `node -e 0` median; undefined for the baseline itself. */
  readonly goalRatio?: number;
}

/** The cases of the built CLI at `cli`, names prefixed by `label` (for a second build measured alongside). */
function cliCases(cli: string, label = ''): StartCase[] {
  return [
    { name: `${label}jarvis --version`, args: [cli, '--version'], goalRatio: 1.5 },
    { name: `${label}jarvis --help`, args: [cli, '--help'], goalRatio: 1.5 },
    { name: `${label}jarvis tools list`, args: [cli, 'tools', 'list'], goalRatio: 2 },
  ];
}

/** `node -e 0`, this checkout's CLI, and the CLI of `compareWith` (another build's bin/jarvis.js) if given. */
function casesFor(compareWith: string | undefined): readonly StartCase[] {
  return [
    { name: 'node -e 0 (baseline)', args: ['-e', '0'] },
    ...cliCases(CLI),
    ...(compareWith === undefined ? [] : cliCases(compareWith, '(other) ')),
  ];
}

/** Milliseconds from spawn to exit of `node <args>`; a non-zero exit is an error (the bench must measure work). */
function timeOnce(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args], { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}`));
    });
  });
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** The report lines of one environment: each case's p50, p95 and ratio to `node -e 0`. */
async function measureIn(
  cases: readonly StartCase[],
  env: NodeJS.ProcessEnv,
  samples: number,
): Promise<string[]> {
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const benchCase of cases) await timeOnce(benchCase.args, env); // warm the file cache
  for (let sample = 0; sample < samples; sample += 1) {
    for (const benchCase of cases)
      times.get(benchCase.name)?.push(await timeOnce(benchCase.args, env));
  }
  const baseline = percentile(times.get(cases[0]?.name ?? '') ?? [], 0.5);
  return cases.map((benchCase) => {
    const values = times.get(benchCase.name) ?? [];
    const p50 = percentile(values, 0.5);
    const ratio = p50 / baseline;
    const goal =
      benchCase.goalRatio === undefined
        ? ''
        : `  goal <= ${benchCase.goalRatio}x: ${ratio <= benchCase.goalRatio ? 'met' : 'NOT met'}`;
    return `${benchCase.name.padEnd(32)} p50 ${p50.toFixed(1).padStart(6)} ms   p95 ${percentile(values, 0.95).toFixed(1).padStart(6)} ms   ${ratio.toFixed(2)}x${goal}`;
  });
}

/**
 * Cold start of the built CLI next to `node -e 0`, samples interleaved so machine noise hits every case alike,
 * in two environments: the caller's (as a user's shell starts it; on this machine NODE_EXTRA_CA_CERTS alone
 * makes every Node start load a certificate bundle) and a bare one (PATH only). HOME and OPENJARVIS_HOME point
 * at an empty temporary folder in both. `compareWith` (another build's `bin/jarvis.js`) is measured in the same
 * rounds, its lines marked `(other)`.
 */
export async function cliStartupReport(options: {
  readonly samples: number;
  readonly compareWith?: string;
}): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'jarvis-cli-bench-'));
  const cases = casesFor(options.compareWith);
  try {
    const folders = { HOME: home, OPENJARVIS_HOME: home };
    const inherited = await measureIn(cases, { ...process.env, ...folders }, options.samples);
    const bare = await measureIn(
      cases,
      { PATH: process.env.PATH ?? '', ...folders },
      options.samples,
    );
    return [
      `CLI cold start (${options.samples} samples each, interleaved; ratio = p50 / node -e 0 p50)`,
      "in this process's environment:",
      ...inherited,
      'in a bare environment (PATH only):',
      ...bare,
    ].join('\n');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
