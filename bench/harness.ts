/**
 * One measured case: a function run many times, timed in batches, either in this process (`run`) or in a process
 * of the case's own (`timeBatch` sends the batch there and resolves with the milliseconds it measured there).
 */
export type BenchCase = {
  readonly name: string;
  /** Name of the case in the same suite this one is compared with. */
  readonly baseline?: string;
} & ({ readonly run: () => unknown } | { readonly timeBatch: (count: number) => Promise<number> });

/** A group of cases measured side by side in one run. */
export interface BenchSuite {
  readonly name: string;
  /** What the suite checks, shown under its table. */
  readonly goal?: string;
  readonly cases: readonly BenchCase[];
  /** Cases take turns in the sample rounds (`turnOrder`) instead of running in the same order every round. */
  readonly takeTurns?: boolean;
}

/** The measurement of one case. */
export interface BenchResult {
  readonly name: string;
  readonly baseline: string | undefined;
  /** Median time per operation over the samples, in nanoseconds. */
  readonly medianNs: number;
  readonly samples: number;
}

interface MeasureOptions {
  readonly samples: number;
  readonly targetSampleMs: number;
}

/** Runs `fn` (awaiting it when it returns a promise) `count` times and returns the elapsed milliseconds. */
export async function timeBatch(fn: () => unknown, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i += 1) {
    const value = fn();
    if (value instanceof Promise) await value;
  }
  return performance.now() - started;
}

/** Finds a batch size whose run takes about `targetMs`. */
async function calibrate(
  time: (count: number) => Promise<number>,
  targetMs: number,
): Promise<number> {
  let count = 1;
  for (;;) {
    const elapsed = await time(count);
    if (elapsed >= targetMs / 4 || count >= 1 << 24)
      return Math.max(1, Math.round((count * targetMs) / Math.max(elapsed, 0.001)));
    count *= 4;
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * The order of the cases in round `round`: each round starts with the next case (so none always runs first), and
 * every other round runs them backwards (so none always runs right after the same case), which spreads drifts
 * in the machine's load over the cases.
 */
export function turnOrder(round: number, count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => (round + i) % count);
  return round % 2 === 1 ? order.reverse() : order;
}

/** How a case's batches are timed: here, or by the case's own process. */
function batchTimer(benchCase: BenchCase): (count: number) => Promise<number> {
  if ('run' in benchCase) return (count) => timeBatch(benchCase.run, count);
  return benchCase.timeBatch;
}

/**
 * Measures every case of a suite, interleaving the cases sample by sample so that machine noise (another
 * process, frequency changes) hits all of them alike.
 */
export async function measureSuite(
  suite: BenchSuite,
  options: MeasureOptions,
): Promise<BenchResult[]> {
  const batches = new Map<string, number>();
  for (const benchCase of suite.cases) {
    const time = batchTimer(benchCase);
    await time(1_000); // warm up the JIT
    batches.set(benchCase.name, await calibrate(time, options.targetSampleMs));
  }
  const perOp = new Map<string, number[]>(suite.cases.map((benchCase) => [benchCase.name, []]));
  for (let sample = 0; sample < options.samples; sample += 1) {
    const order =
      suite.takeTurns === true
        ? turnOrder(sample, suite.cases.length).map((index) => suite.cases[index] as BenchCase)
        : suite.cases;
    for (const benchCase of order) {
      const count = batches.get(benchCase.name) ?? 1;
      const elapsedMs = await batchTimer(benchCase)(count);
      perOp.get(benchCase.name)?.push((elapsedMs * 1e6) / count);
    }
  }
  return suite.cases.map((benchCase) => ({
    name: benchCase.name,
    baseline: benchCase.baseline,
    medianNs: median(perOp.get(benchCase.name) ?? []),
    samples: options.samples,
  }));
}

function formatNs(ns: number): string {
  if (ns < 0) return `-${formatNs(-ns)}`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Renders a suite's results as a text table with the ratio and difference against each case's baseline. */
export function formatTable(suite: BenchSuite, results: readonly BenchResult[]): string {
  const byName = new Map(results.map((result) => [result.name, result]));
  const rows = results.map((result) => {
    const base = result.baseline === undefined ? undefined : byName.get(result.baseline);
    const ratio =
      base === undefined
        ? '1.00x (baseline)'
        : `${(result.medianNs / base.medianNs).toFixed(2)}x ${result.baseline}`;
    const difference = base === undefined ? undefined : result.medianNs - base.medianNs;
    const delta =
      difference === undefined ? '' : `${difference >= 0 ? '+' : ''}${formatNs(difference)}`;
    return [result.name, formatNs(result.medianNs), ratio, delta];
  });
  const header = ['case', 'median/op', 'ratio', 'overhead/op'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const goal = suite.goal === undefined ? '' : `\ngoal: ${suite.goal}`;
  return [`## ${suite.name}`, line(header), rule, ...rows.map(line)].join('\n') + goal;
}
