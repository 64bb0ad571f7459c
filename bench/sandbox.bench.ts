import { spawn } from 'node:child_process';
import { library } from './library.js';

// Measures the built module, like the other suites.
const { selectSandbox } = library;

type SandboxSelection = Awaited<ReturnType<typeof selectSandbox>>;
type SandboxBackend = Extract<SandboxSelection, { ok: true }>['backend'];

/** Percentiles of one case, in milliseconds. */
export interface StartupRow {
  readonly name: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly samples: number;
}

/** The sandbox start-up suite: a report function, or why it cannot run here. */
export interface SandboxStartupSuite {
  readonly name: string;
  readonly goal: string;
  /** Lines such as "code_interpreter sandbox (skipped: bubblewrap not found ...)". */
  readonly skipped: readonly string[];
  /** Runs both cases `samples` times each, interleaved, and returns the rows and a printable table. */
  readonly report: (options: {
    readonly samples: number;
  }) => Promise<{ rows: StartupRow[]; table: string }>;
}

const PYTHON = '/usr/bin/python3';

/** Milliseconds from spawning a bare `python3 -I -c pass` to its exit. */
function barePython(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(PYTHON, ['-I', '-c', 'pass'], { env: {}, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

function row(name: string, values: number[]): StartupRow {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    name,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    samples: values.length,
  };
}

function formatRows(rows: readonly StartupRow[]): string {
  const lines = rows.map(
    (r) =>
      `${r.name.padEnd(44)} p50 ${r.p50Ms.toFixed(1).padStart(6)} ms   p95 ${r.p95Ms.toFixed(1).padStart(6)} ms   (${r.samples} samples)`,
  );
  return lines.join('\n');
}

/** Milliseconds one `pass` takes through `backend`, spawn to exit. */
async function timedPass(backend: SandboxBackend): Promise<number> {
  const started = performance.now();
  const run = await backend.run({ code: 'pass', timeoutMs: 30_000 });
  if (run.exitCode !== 0) throw new Error(`${backend.name} pass failed: ${run.stderr}`);
  return performance.now() - started;
}

/** The Pyodide row (fewer samples: each call boots Pyodide from the snapshot), or why it is skipped. */
async function pyodideRow(
  selection: SandboxSelection,
  samples: number,
): Promise<StartupRow | string> {
  if (!selection.ok) return `pyodide (skipped: ${selection.reason})`;
  const times: number[] = [];
  await timedPass(selection.backend); // warm the page cache
  for (let i = 0; i < Math.max(5, Math.ceil(samples / 5)); i += 1)
    times.push(await timedPass(selection.backend));
  return row('pyodide in bubblewrap (snapshot, seccomp on)', times);
}

/**
 * Builds the suite: `python3 -I` under bubblewrap (code_interpreter's default backend) next to a bare
 * `python3 -c pass`, and the Pyodide fallback (booted from its memory snapshot) in the same jail.
 */
export async function sandboxStartupSuite(): Promise<SandboxStartupSuite> {
  const selection = await selectSandbox({ maxConcurrent: 1 });
  const name = 'code_interpreter start-up per call (sequential, `pass`)';
  const goal =
    'bubblewrap backend under 50 ms p50 and 100 ms p95; pyodide backend under 1,000 ms p50 on an idle machine';
  if (!selection.ok)
    return {
      name,
      goal,
      skipped: [`${name} (skipped: ${selection.reason})`],
      report: async () => ({ rows: [], table: '' }),
    };
  const backend = selection.backend;
  const pyodide = await selectSandbox({ maxConcurrent: 1, backend: 'pyodide' });
  const report = async ({ samples }: { readonly samples: number }) => {
    const bare: number[] = [];
    const boxed: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      // Warm the page cache and the dynamic loader for both cases.
      await barePython();
      await timedPass(backend);
    }
    for (let i = 0; i < samples; i += 1) {
      bare.push(await barePython());
      boxed.push(await timedPass(backend));
    }
    const rows = [
      row('bare python3 -I -c pass', bare),
      row(`${backend.name} (seccomp ${backend.seccomp ? 'on' : 'off'})`, boxed),
    ];
    const fallback = await pyodideRow(pyodide, samples);
    if (typeof fallback !== 'string') rows.push(fallback);
    const skippedLine = typeof fallback === 'string' ? `\n${fallback}` : '';
    return { rows, table: `${name}\n${formatRows(rows)}${skippedLine}\ngoal: ${goal}` };
  };
  return { name, goal, skipped: [], report };
}
