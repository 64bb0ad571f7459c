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

const CASES: readonly StartCase[] = [
  { name: 'node -e 0 (baseline)', args: ['-e', '0'] },
  { name: 'jarvis --version', args: [CLI, '--version'], goalRatio: 1.5 },
  { name: 'jarvis --help', args: [CLI, '--help'], goalRatio: 1.5 },
  { name: 'jarvis tools list', args: [CLI, 'tools', 'list'], goalRatio: 2 },
];

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

/**
 * Cold start of the built CLI next to a bare `node -e 0`, samples interleaved so machine noise hits every case
 * alike; HOME and OPENJARVIS_HOME point at an empty temporary folder.
 */
export async function cliStartupReport(options: { readonly samples: number }): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'jarvis-cli-bench-'));
  try {
    const env = { PATH: process.env.PATH ?? '', HOME: home, OPENJARVIS_HOME: home };
    const times = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
    for (const benchCase of CASES) await timeOnce(benchCase.args, env); // warm the file cache
    for (let sample = 0; sample < options.samples; sample += 1) {
      for (const benchCase of CASES)
        times.get(benchCase.name)?.push(await timeOnce(benchCase.args, env));
    }
    const baseline = percentile(times.get(CASES[0]?.name ?? '') ?? [], 0.5);
    const lines = CASES.map((benchCase) => {
      const values = times.get(benchCase.name) ?? [];
      const p50 = percentile(values, 0.5);
      const ratio = p50 / baseline;
      const goal =
        benchCase.goalRatio === undefined
          ? ''
          : `  goal <= ${benchCase.goalRatio}x: ${ratio <= benchCase.goalRatio ? 'met' : 'NOT met'}`;
      return `${benchCase.name.padEnd(24)} p50 ${p50.toFixed(1).padStart(6)} ms   p95 ${percentile(values, 0.95).toFixed(1).padStart(6)} ms   ${ratio.toFixed(2)}x${goal}`;
    });
    return [
      `CLI cold start (${options.samples} samples each, interleaved; ratio = p50 / node -e 0 p50)`,
      ...lines,
    ].join('\n');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
