// One orchestrator run (two chat completions and one calculator call) against a scripted OpenAI-compatible server in
// a process of its own (bench/agent-server.mjs): the hand-written node:http loop, our OrchestratorAgent, the peers
// (Vercel AI SDK, OpenAI Agents SDK) and our built-in CalculatorTool, sequentially and 50 in flight.
// Each row runs in a process of its own (`--agent-bench-row`): rows sharing one process paid for each other's code,
// garbage, type feedback and JIT work (with the peers loaded beside it, our row measured 20-25% slower and the
// loop hardly slower). The parent sends each row's process a batch of runs at a time and the harness interleaves
// the rows sample by sample, taking turns (each round starts with the next row, every other round backwards);
// each process times its own batches and counts its own CPU time.
// Usage: node --import tsx bench/agent.bench.ts [--quick] [--loop-last] [--memory] [--compare=<dist dir>]
//   [--rows=openjarvis,builtin,ai-sdk,openai-agents]
// (measures dist: run `npm run build` first; --compare adds a row of our agent on another build of the library,
// such as a copy of dist taken before a change, to compare two versions in one run. A copy outside the repository
// needs a package.json saying {"type": "module"} in a folder above it: without one, the rows' tsx loader compiles
// the copy's ES modules to CommonJS, which runs differently from the build it is compared with)
// Each row's process makes WARM_UP_RUNS sequential runs before it is measured (see there); the CPU report shows
// what those cost per run.

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Library from '../src/index.js';
import {
  type BenchCase,
  type BenchSuite,
  formatTable,
  measureSuite,
  timeBatch,
} from './harness.js';
import { answerCommands, endWithParent, forkRole, type RoleProcess } from './role-process.js';

const QUESTION = 'What is 15% of 340?';
const ANSWER = 'The answer is 51.';
const CONCURRENT_RUNS = 50;
const ROW_FLAG = '--agent-bench-row';

/** The peers live in bench/peers with their own node_modules (npm run bench:setup), never in the package. */
const peers = createRequire(new URL('./peers/package.json', import.meta.url));

const SERVER_SCRIPT = new URL('./agent-server.mjs', import.meta.url);

/** The scripted model server in a process of its own (plain node), shared by every row. */
function startServerProcess(): Promise<RoleProcess<{ url: string }>> {
  return forkRole<{ url: string }>(SERVER_SCRIPT, 'serve', [], {
    execArgv: [],
    name: 'scripted server',
  });
}

/** The calculator every side offers (name, description, JSON Schema), the same bytes on the wire. */
const CALCULATOR = {
  name: 'calculator',
  description: 'Evaluate a mathematical expression safely.',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string' } },
    required: ['expression'],
  },
} as const;

/** The floor: the same two requests and one calculator call, written by hand over node:http. */
function handWrittenLoop(url: string): () => Promise<string> {
  const agent = new HttpAgent({ keepAlive: true });
  const target = new URL('/v1/chat/completions', url);
  const tools = [{ type: 'function', function: CALCULATOR }];
  const post = (body: unknown) =>
    new Promise<{
      choices: [
        {
          message: {
            content: string | null;
            tool_calls?: { id: string; function: { name: string; arguments: string } }[];
          };
        },
      ];
    }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = httpRequest(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  return async () => {
    const messages: unknown[] = [{ role: 'user', content: QUESTION }];
    const first = await post({ model: 'bench', messages, tools });
    const call = first.choices[0].message.tool_calls?.[0];
    if (call === undefined) throw new Error('expected a tool call');
    const { expression } = JSON.parse(call.function.arguments) as { expression: string };
    const value = String((Number(expression.split('*')[0]) * 15) / 100);
    messages.push(first.choices[0].message, {
      role: 'tool',
      tool_call_id: call.id,
      content: value,
    });
    const second = await post({ model: 'bench', messages, tools });
    return second.choices[0].message.content ?? '';
  };
}

/** The tool body every framework runs (the hand-written loop does the same inline). */
const evaluate = async ({ expression }: { expression: string }) =>
  String((Number(expression.split('*')[0]) * 15) / 100);

/**
 * Our agent on the same tool as the loop and the peers: a calculator whose body is the one-line `evaluate` they all
 * run, so the rows compare the frameworks (requests, validation, dispatch, events) and not the tools' bodies.
 * `builtin` runs our CalculatorTool instead (a safe expression parser with exact decimal arithmetic), shown beside.
 */
function openJarvisRun(
  library: typeof Library,
  url: string,
  tool: 'same' | 'builtin',
): () => Promise<string> {
  const engine = new library.OpenAICompatibleEngine({
    baseUrl: url,
    engineId: 'vllm',
    textToolCalls: false,
  });
  const calculator =
    tool === 'builtin'
      ? new library.CalculatorTool()
      : library.defineTool<{ expression: string }>({ ...CALCULATOR, execute: evaluate });
  const agent = new library.OrchestratorAgent({ engine, model: 'bench', tools: [calculator] });
  return async () => (await agent.run(QUESTION)).content;
}

// The peers are loaded from bench/peers at run time; their types are not installed with the package, so
// the few calls made here are typed by hand.
type Loose = Record<string, (...args: unknown[]) => unknown> & Record<string, unknown>;

async function aiSdkRun(url: string): Promise<(() => Promise<string>) | undefined> {
  try {
    const ai = peers('ai') as Loose;
    const compatible = peers('@ai-sdk/openai-compatible') as Loose;
    const { z } = peers('zod') as { z: Loose };
    const provider = compatible.createOpenAICompatible?.({
      name: 'bench',
      baseURL: `${url}/v1`,
    }) as Loose;
    const model = provider.chatModel?.('bench');
    const inputSchema = z.object?.({ expression: z.string?.() });
    const calculator = ai.tool?.({
      description: 'Evaluate a mathematical expression safely.',
      inputSchema,
      execute: evaluate,
    });
    const stopWhen = ai.stepCountIs?.(5);
    return async () => {
      const result = (await ai.generateText?.({
        model,
        tools: { calculator },
        stopWhen,
        prompt: QUESTION,
      })) as { text: string };
      return result.text;
    };
  } catch {
    return undefined;
  }
}

async function openAIAgentsRun(url: string): Promise<(() => Promise<string>) | undefined> {
  try {
    const agents = peers('@openai/agents') as Loose & {
      Agent: new (o: unknown) => unknown;
      OpenAIChatCompletionsModel: new (c: unknown, m: string) => unknown;
    };
    const OpenAI = (peers('openai') as { default: new (o: unknown) => unknown }).default;
    const { z } = peers('zod') as { z: Loose };
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'bench' });
    const calculator = agents.tool?.({
      name: 'calculator',
      description: 'Evaluate a mathematical expression safely.',
      parameters: z.object?.({ expression: z.string?.() }),
      execute: evaluate,
    });
    const agent = new agents.Agent({
      name: 'bench',
      model: new agents.OpenAIChatCompletionsModel(client, 'bench'),
      tools: [calculator],
    });
    agents.setTracingDisabled?.(true);
    const runAgent = agents.run as (
      agent: unknown,
      input: string,
    ) => Promise<{ finalOutput?: unknown }>;
    return async () => String((await runAgent(agent, QUESTION)).finalOutput ?? '');
  } catch {
    return undefined;
  }
}

function concurrently(run: () => Promise<string>): () => Promise<unknown> {
  return () => Promise.all(Array.from({ length: CONCURRENT_RUNS }, run));
}

/** The rows of the run suites, in their default order (the loop first, as the baseline of every other row). */
const ROWS = [
  { id: 'loop', name: 'hand-written loop over node:http' },
  { id: 'openjarvis', name: 'OpenJarvis OrchestratorAgent' },
  { id: 'ai-sdk', name: 'Vercel AI SDK generateText' },
  { id: 'openai-agents', name: 'OpenAI Agents SDK run' },
  { id: 'builtin', name: 'OpenJarvis, built-in CalculatorTool' },
] as const;

type RowId = (typeof ROWS)[number]['id'];

/** The build of the library our rows run: the repository's dist, or `--compare`'s folder. */
async function loadLibrary(distDir: string | undefined): Promise<typeof Library> {
  const base =
    distDir === undefined ? new URL('../dist/', import.meta.url) : pathToFileURL(`${distDir}/`);
  return (await import(new URL('index.js', base).href)) as typeof Library;
}

/** The run of a row, or `undefined` when the row's peer is not installed. */
async function rowRun(
  row: RowId,
  url: string,
  distDir: string | undefined,
): Promise<(() => Promise<string>) | undefined> {
  switch (row) {
    case 'loop':
      return handWrittenLoop(url);
    case 'openjarvis':
    case 'builtin':
      return openJarvisRun(await loadLibrary(distDir), url, row === 'builtin' ? 'builtin' : 'same');
    case 'ai-sdk':
      return aiSdkRun(url);
    case 'openai-agents':
      return openAIAgentsRun(url);
  }
}

/** A batch of runs timed in a row's process: the elapsed milliseconds and the CPU time the process spent. */
interface BatchReply {
  readonly elapsedMs: number;
  readonly cpuUs: number;
}

interface BatchCommand {
  readonly count: number;
  readonly concurrent: boolean;
}

/**
 * A row's process: builds the row's run, checks its answer once, reports whether the row is available, then times
 * the batches the parent asks for (one run at a time, or `CONCURRENT_RUNS` in flight per operation).
 */
async function runRowProcess(row: RowId, url: string, distDir: string | undefined): Promise<void> {
  endWithParent();
  const run = await rowRun(row, url, distDir);
  if (run === undefined) {
    process.send?.({ available: false });
    return;
  }
  const answer = await run();
  if (answer !== ANSWER) throw new Error(`${row} answered ${JSON.stringify(answer)}`);
  const warmUp = await warmUpRuns(run);
  const inFlight = concurrently(run);
  answerCommands<BatchCommand>((command) =>
    timeBatchWithCpu(command.concurrent ? inFlight : run, command.count),
  );
  process.send?.({ available: true, warmUp } satisfies RowReady);
}

/**
 * Sequential runs a row's process makes before it is measured. V8 optimizes a function once its bytecode has run
 * for a budget's worth, so code that runs once or twice per agent run is compiled only after thousands of runs:
 * counted with callgrind in windows of 500 runs (instructions per run), the hand-written loop settles after about
 * 2,000 runs (1.82M, 1.47M, 0.92M, 0.63M, then 0.56-0.57M) and our agent after about 4,000 (2.14M, 2.05M, 1.08M,
 * 0.88M, 0.76M, 0.61M, 0.59M, 0.58M, then 0.51-0.53M). With only the harness's 1,000 runs of warm-up, the samples
 * (runs ~1,100 to ~3,100) measured the JIT still at work on a row's code (on its compiler threads too, which the CPU
 * column counts and which take a core from the server) rather than what a run costs. What the warm-up itself costs
 * is not hidden: each row reports it, and the CPU report shows it beside the measured runs.
 */
const WARM_UP_RUNS = 5_000;

/** What a row's process reports once it is set up: whether its peer is installed, and what its warm-up cost. */
interface RowReady {
  readonly available: boolean;
  readonly warmUp?: WarmUp;
}

/** The warm-up of a row: `runs` sequential runs and the CPU time its process spent per run on them. */
interface WarmUp {
  readonly runs: number;
  readonly cpuUsPerRun: number;
}

async function warmUpRuns(run: () => Promise<string>): Promise<WarmUp> {
  const { cpuUs } = await timeBatchWithCpu(run, WARM_UP_RUNS);
  return { runs: WARM_UP_RUNS, cpuUsPerRun: cpuUs / WARM_UP_RUNS };
}

/** `timeBatch`, and the CPU time this process spent on the batch. */
async function timeBatchWithCpu(run: () => Promise<unknown>, count: number): Promise<BatchReply> {
  const cpuBefore = process.cpuUsage();
  const elapsedMs = await timeBatch(run, count);
  const cpu = process.cpuUsage(cpuBefore);
  return { elapsedMs, cpuUs: cpu.user + cpu.system };
}

/** Options of `agentRunSuites`. */
export interface AgentRunOptions {
  /** Measure the hand-written loop last instead of first (to check that the order does not matter). */
  readonly loopLast?: boolean;
  /** Another build of the library: adds a row of our agent on it (`<dir>/index.js`). */
  readonly compareDist?: string;
  /** Only these rows (ids of `ROWS`; the loop is always measured, as every row's baseline). */
  readonly rows?: readonly string[];
}

/** A row as measured: its name, its process, and the CPU per operation of each batch it timed, per suite. */
interface RowProcess {
  readonly name: string;
  readonly role: RoleProcess<RowReady>;
  readonly cpuUsPerOp: { sequential: number[]; concurrent: number[] };
}

/** Starts every row's process (at once: nothing is measured yet); closes them all if one fails. */
async function startRows(url: string, options: AgentRunOptions): Promise<RowProcess[]> {
  const rows: { id: RowId; name: string; dist?: string }[] = ROWS.filter(
    (row) => row.id === 'loop' || options.rows === undefined || options.rows.includes(row.id),
  );
  if (options.compareDist !== undefined)
    rows.splice(2, 0, {
      id: 'openjarvis',
      name: `OpenJarvis OrchestratorAgent (${options.compareDist})`,
      dist: options.compareDist,
    });
  if (options.loopLast === true) rows.push(rows.shift() as (typeof rows)[number]);
  const started = await Promise.allSettled(
    rows.map((row) =>
      forkRole<RowReady>(
        fileURLToPath(import.meta.url),
        ROW_FLAG,
        [row.id, url, ...(row.dist === undefined ? [] : [row.dist])],
        // V8's memory reducer is off: a row's process idles while the others warm up and take their turns, and
        // after a few seconds idle it would shrink the young generation, so that its next samples paid for
        // growing it again (more scavenges) and a row measured after a long wait looked slower than one
        // measured right after its warm-up. It only acts on a process gone quiet, so a busy one is unchanged.
        { name: row.name, execArgv: [...process.execArgv, '--no-memory-reducer'] },
      ),
    ),
  );
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    for (const result of started) if (result.status === 'fulfilled') result.value.close();
    throw failed.reason;
  }
  return started.map((result, index) => ({
    name: rows[index]?.name ?? '',
    role: (result as PromiseFulfilledResult<RoleProcess<RowReady>>).value,
    cpuUsPerOp: { sequential: [], concurrent: [] },
  }));
}

/**
 * Starts the server process and a process per row, and returns the sequential and concurrent suites, the rows
 * skipped, the CPU each row's process spent per operation, and a function that ends every process.
 */
export async function agentRunSuites(options: AgentRunOptions = {}): Promise<{
  suites: BenchSuite[];
  skipped: string[];
  cpuReport: (samples: number) => string;
  close: () => void;
}> {
  const server = await startServerProcess();
  const rows = await startRows(server.first.url, options).catch((error: unknown) => {
    server.close();
    throw error;
  });
  const close = () => {
    for (const row of rows) row.role.close();
    server.close();
  };
  const skipped = rows
    .filter((row) => !row.role.first.available)
    .map((row) => `${row.name} (skipped: peers not installed; run npm run bench:setup)`);
  const available = rows.filter((row) => row.role.first.available);
  for (const row of rows) if (!row.role.first.available) row.role.close();
  const floor = ROWS[0].name;
  const cases = (mode: 'sequential' | 'concurrent'): BenchCase[] =>
    available.map((row) => ({
      name: row.name,
      ...(row.name === floor ? {} : { baseline: floor }),
      timeBatch: async (count: number) => {
        const command: BatchCommand = { count, concurrent: mode === 'concurrent' };
        const reply = await row.role.command<BatchReply>(command);
        row.cpuUsPerOp[mode].push(reply.cpuUs / count);
        return reply.elapsedMs;
      },
    }));
  const suites: BenchSuite[] = [
    {
      name: 'One orchestrator run (2 engine calls, 1 calculator call), sequential',
      goal: 'OpenJarvis within 1.2x of the hand-written loop (issue 20)',
      cases: cases('sequential'),
      takeTurns: true,
    },
    {
      name: `The same run, ${CONCURRENT_RUNS} in flight (time per batch of ${CONCURRENT_RUNS})`,
      goal: 'OpenJarvis runs/s at least 0.9x the hand-written loop, so a batch within 1.11x of its time (issue 20)',
      cases: cases('concurrent'),
      takeTurns: true,
    },
  ];
  return { suites, skipped, cpuReport: (samples) => cpuReport(available, samples), close };
}

/**
 * The median CPU time per operation of each row's process over its last `samples` batches (the measured ones), and
 * the CPU time per run of its warm-up (its first sequential runs, before it was measured).
 */
function cpuReport(rows: readonly RowProcess[], samples: number): string {
  const lines = [
    `CPU time of each row's process per operation (median of its ${samples} measured batches; the server's not counted)`,
  ];
  const floor = rows.find((row) => row.name === ROWS[0].name);
  for (const mode of ['sequential', 'concurrent'] as const) {
    const base = medianOf(floor?.cpuUsPerOp[mode].slice(-samples) ?? []);
    for (const row of rows) {
      const us = medianOf(row.cpuUsPerOp[mode].slice(-samples));
      const ratio = row === floor ? 'baseline' : `${(us / base).toFixed(2)}x`;
      lines.push(
        `  ${mode.padEnd(11)} ${row.name.padEnd(60)}${`${us.toFixed(0)} us`.padStart(12)}  ${ratio}`,
      );
    }
  }
  // The runs before the measured ones, while the JIT compiles each row's code: what a short-lived process pays.
  const baseWarmUp = floor?.role.first.warmUp?.cpuUsPerRun;
  for (const row of rows) {
    const warmUp = row.role.first.warmUp;
    if (warmUp === undefined) continue;
    const ratio =
      row === floor || baseWarmUp === undefined
        ? 'baseline'
        : `${(warmUp.cpuUsPerRun / baseWarmUp).toFixed(2)}x`;
    const label = `first ${warmUp.runs.toLocaleString('en-US')}`;
    lines.push(
      `  ${label.padEnd(11)} ${row.name.padEnd(60)}${`${warmUp.cpuUsPerRun.toFixed(0)} us`.padStart(12)}  ${ratio}`,
    );
  }
  return lines.join('\n');
}

/** What one fresh client process measured: RSS after its import and at each checkpoint of sequential runs. */
interface RunsMeasure {
  readonly importRssMb: number;
  readonly points: readonly {
    readonly runs: number;
    readonly rssMb: number;
    readonly heapMb: number;
    /** Peak RSS of the process up to this checkpoint (import included). */
    readonly peakRssMb: number;
    readonly elapsedMs: number;
  }[];
}

type RunsSide = 'hand-written' | 'openjarvis';

/** Runs one side sequentially in a process of its own (plain node on the built library, no loader). */
async function measureRunsInChild(side: RunsSide, url: string, checkpoints: readonly number[]) {
  const child = await forkRole<RunsMeasure>(
    SERVER_SCRIPT,
    'runs',
    [side, url, ...checkpoints.map(String)],
    { execArgv: [], name: `${side} runs` },
  );
  child.close();
  return child.first;
}

const medianOf = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

interface SideSummary {
  readonly importMb: number;
  readonly peakMb: number;
  readonly firstMb: number;
  readonly lastMb: number;
  readonly growth: number;
}

function summarize(measures: readonly RunsMeasure[]): SideSummary {
  const median = (pick: (measure: RunsMeasure) => number) => medianOf(measures.map(pick));
  const firstMb = (measure: RunsMeasure) => measure.points[0]?.rssMb ?? Number.NaN;
  const lastMb = (measure: RunsMeasure) => measure.points[1]?.rssMb ?? Number.NaN;
  return {
    importMb: median((measure) => measure.importRssMb),
    peakMb: median((measure) => measure.points[0]?.peakRssMb ?? Number.NaN),
    firstMb: median(firstMb),
    lastMb: median(lastMb),
    growth: median((measure) => lastMb(measure) / firstMb(measure)),
  };
}

/**
 * Peak RSS over 1,000 sequential runs and RSS after 10,000 against after 1,000, each sample in a fresh process
 * per side (the two sides interleaved sample by sample), medians of the samples. The RSS right after the import
 * is reported beside the peak, so that what loading costs and what running costs can be told apart.
 */
export async function agentMemoryReport(options: { readonly quick: boolean }): Promise<string> {
  const samples = options.quick ? 1 : 3;
  const checkpoints = options.quick ? [1_000, 3_000] : [1_000, 10_000];
  const server = await startServerProcess();
  const measures: Record<RunsSide, RunsMeasure[]> = { 'hand-written': [], openjarvis: [] };
  try {
    for (let sample = 0; sample < samples; sample += 1) {
      for (const side of ['hand-written', 'openjarvis'] as const)
        measures[side].push(await measureRunsInChild(side, server.first.url, checkpoints));
    }
  } finally {
    server.close();
  }
  const floor = summarize(measures['hand-written']);
  const ours = summarize(measures.openjarvis);
  const [first, last] = checkpoints.map((runs) => runs.toLocaleString('en-US'));
  const mb = (value: number) => `${value.toFixed(1)} MB`;
  const row = (name: string, side: SideSummary, ratio: string) =>
    `${name.padEnd(34)}${mb(side.importMb).padStart(10)}${mb(side.peakMb).padStart(10)}${mb(side.peakMb - side.importMb).padStart(10)}${mb(side.firstMb).padStart(10)}${mb(side.lastMb).padStart(10)}${`${side.growth.toFixed(2)}x`.padStart(8)}  ${ratio}`;
  return [
    `## Memory of ${first} and ${last} sequential runs, each side in a fresh process (median of ${samples})`,
    `${'case'.padEnd(34)}${'import'.padStart(10)}${'peak'.padStart(10)}${'running'.padStart(10)}${`@${first}`.padStart(10)}${`@${last}`.padStart(10)}${'growth'.padStart(8)}  peak ratio`,
    row('hand-written loop over node:http', floor, '1.00x (baseline)'),
    row(
      'OpenJarvis OrchestratorAgent',
      ours,
      `${(ours.peakMb / floor.peakMb).toFixed(2)}x hand-written loop`,
    ),
    `import: RSS right after loading; peak: highest RSS up to run ${first} (import included); running: peak - import;`,
    `growth: RSS after ${last} runs / after ${first}.`,
    `goal: OpenJarvis peak <= 80 MB; growth within 1.10x (no growth)`,
  ].join('\n');
}

/** The agent bench on its own: both run suites (and the memory report with --memory). */
async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const options = { samples: quick ? 5 : 25, targetSampleMs: quick ? 20 : 50 };
  const value = (name: string) =>
    argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const compareDist = value('compare');
  const rows = value('rows')?.split(',');
  const agents = await agentRunSuites({
    loopLast: argv.includes('--loop-last'),
    ...(compareDist === undefined ? {} : { compareDist }),
    ...(rows === undefined ? {} : { rows }),
  });
  try {
    for (const suite of agents.suites)
      console.log(`${formatTable(suite, await measureSuite(suite, options))}\n`);
    for (const line of agents.skipped) console.log(line);
    console.log(`${agents.cpuReport(options.samples)}\n`);
  } finally {
    agents.close();
  }
  if (argv.includes('--memory')) console.log(await agentMemoryReport({ quick }));
}

const roleIndex = process.argv.indexOf(ROW_FLAG);
if (roleIndex !== -1) {
  const [row, url, distDir] = process.argv.slice(roleIndex + 1);
  await runRowProcess(row as RowId, url ?? '', distDir);
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv);
}
