import { type ChildProcess, fork } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { BenchCase, BenchSuite } from './harness.js';
import { library } from './library.js';

const QUESTION = 'What is 15% of 340?';
const CONCURRENT_RUNS = 50;

/** The peers live in bench/peers with their own node_modules (npm run bench:setup), never in the package. */
const peers = createRequire(new URL('./peers/package.json', import.meta.url));

interface ServerHandle {
  readonly url: string;
  readonly child: ChildProcess;
}

const SERVER_SCRIPT = new URL('./agent-server.mjs', import.meta.url);

async function startServerProcess(): Promise<ServerHandle> {
  const child = fork(SERVER_SCRIPT, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { url: string }).url));
    child.once('exit', (code) =>
      reject(new Error(`the scripted server exited early (code ${code})`)),
    );
  });
  return { url, child };
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
function openJarvisRun(url: string, tool: 'same' | 'builtin'): () => Promise<string> {
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

/** Starts the server process and returns the sequential and concurrent suites, and a function that ends it all. */
export async function agentRunSuites(): Promise<{
  suites: BenchSuite[];
  skipped: string[];
  close: () => void;
}> {
  const server = await startServerProcess();
  const runs: Array<[string, (() => Promise<string>) | undefined]> = [
    ['hand-written loop over node:http', handWrittenLoop(server.url)],
    ['OpenJarvis OrchestratorAgent', openJarvisRun(server.url, 'same')],
    ['Vercel AI SDK generateText', await aiSdkRun(server.url)],
    ['OpenAI Agents SDK run', await openAIAgentsRun(server.url)],
    ['OpenJarvis, built-in CalculatorTool', openJarvisRun(server.url, 'builtin')],
  ];
  const skipped = runs
    .filter(([, run]) => run === undefined)
    .map(([name]) => `${name} (skipped: peers not installed; run npm run bench:setup)`);
  const available = runs.filter(
    (entry): entry is [string, () => Promise<string>] => entry[1] !== undefined,
  );
  const floor = available[0]?.[0] ?? '';
  const cases = (wrap: (run: () => Promise<string>) => () => Promise<unknown>): BenchCase[] =>
    available.map(([name, run], index) => ({
      name,
      ...(index === 0 ? {} : { baseline: floor }),
      run: wrap(run),
    }));
  const suites: BenchSuite[] = [
    {
      name: 'One orchestrator run (2 engine calls, 1 calculator call), sequential',
      goal: 'OpenJarvis within 1.2x of the hand-written loop (issue 20)',
      cases: cases((run) => run),
    },
    {
      name: `The same run, ${CONCURRENT_RUNS} in flight (time per batch of ${CONCURRENT_RUNS})`,
      goal: 'OpenJarvis runs/s at least 0.9x the hand-written loop, so a batch within 1.11x of its time (issue 20)',
      cases: cases(concurrently),
    },
  ];
  return { suites, skipped, close: () => server.child.kill() };
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
function measureRunsInChild(side: RunsSide, url: string, checkpoints: readonly number[]) {
  const child = fork(SERVER_SCRIPT, ['runs', side, url, ...checkpoints.map(String)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [],
  });
  return new Promise<RunsMeasure>((resolve, reject) => {
    child.once('message', (message) => resolve(message as RunsMeasure));
    child.once('exit', (code) =>
      reject(new Error(`the ${side} runs process exited (code ${code})`)),
    );
  });
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
        measures[side].push(await measureRunsInChild(side, server.url, checkpoints));
    }
  } finally {
    server.child.kill();
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
