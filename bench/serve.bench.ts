// `jarvis serve` under load: 50 concurrent keep-alive clients through the real server next to 50 concurrent
// in-process runs of the same agent (SDK) in the same run, and the server's memory after 1,000 and after 10,000
// requests.
// Each side runs in a process of its own (as an app calling the agent and a `jarvis serve` would), warmed up until
// the JIT has compiled its hot code, and the sides' samples take turns. No side pays for the garbage or the
// type feedback of another, and no forced GC runs between samples: a `global.gc()` deoptimises hundreds of
// optimised functions ("weak objects"), so every sample after one re-ran TurboFan for ~0.2 compiles per request
// and measured the JIT's warm-up (2-2.5 ms CPU per request) rather than the server (~1 ms once warm).
// Both sides use the same engine: by default the scripted model over HTTP in a process of its own (what a user's
// `jarvis serve` talks to: a model server), or with --engine=inprocess the in-process ScriptedEngine (runs that
// never wait on I/O: a case no real deployment has, kept to show what HTTP alone adds to a run).
// The HTTP clients run in the bench process (not the server's), on raw keep-alive sockets that send a prepared
// request and read the response by its Content-Length (like wrk): a full HTTP client library would spend more
// CPU per request than the server's whole HTTP layer, on the same 2 cores the server needs.
// Rows: in-process askFull, jarvis serve, a bare Hono app with a fixed answer, and that app running askFull.
// Usage: node --import tsx bench/serve.bench.ts [--quick] [--dist=<dir>] [--only=throughput|leak] [--telemetry=off]
//   [--engine=http|inprocess]
// (measures dist: run `npm run build` first; --dist measures another build of the library, such as
// `tsc -p tsconfig.build.json --outDir <dir>`, to compare two versions on the same machine)
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import type * as Library from '../src/index.js';
import type * as Server from '../src/server/index.js';
import type * as Testing from '../src/testing/index.js';
import { turnOrder } from './harness.js';
import { answerCommands, endWithParent, forkRole, type RoleProcess } from './role-process.js';

const CHILD_FLAG = '--serve-bench-child';
const MODEL_FLAG = '--serve-bench-model';
const MODEL = 'scripted';
const QUESTION = 'What is 15% of 340?';
const ANSWER = '15% of 340 is 51.0';
const CLIENTS = 50;

// ---------------------------------------------------------------------------------------------------------
// The child: the system, the server and the in-process runs all live here, so both sides use one process,
// one system and one engine; the parent sends the HTTP load and asks the child for in-process samples.

type ChildCommand =
  | { readonly cmd: 'inprocess'; readonly clients: number; readonly durationMs: number }
  | { readonly cmd: 'warm'; readonly clients: number; readonly count: number }
  | { readonly cmd: 'cpu' }
  | { readonly cmd: 'memory' };

/** What a side's process runs: the agent in-process, jarvis serve, or a bare Hono app without or with the agent. */
type Side = 'inprocess' | 'serve' | 'bare' | 'bareAgent';

const SIDES: readonly Side[] = ['inprocess', 'serve', 'bare', 'bareAgent'];

/** The result of one fixed-time load. */
interface LoadSample {
  readonly requests: number;
  readonly elapsedMs: number;
  readonly latenciesMs: readonly number[];
  /** CPU time (user + system) of the server process during the sample, in microseconds. */
  readonly serverCpuUs: number;
  /** CPU time of the HTTP clients (the bench process), in microseconds; the in-process side has none apart. */
  readonly clientCpuUs?: number;
}

interface MemorySample {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

/** A scripted model that never runs out: a calculator call first, then the answer once the tool result is in. */
function endlessEngine(testing: typeof Testing): Testing.ScriptedEngine {
  const engine = new testing.ScriptedEngine();
  const reply: Testing.ScriptedEngineReply = (call) => {
    engine.enqueue(reply);
    // The scripted engine records every call for tests; a real engine keeps nothing, so neither may this one.
    if (engine.calls.length > 1000) engine.calls.length = 0;
    const last = call.messages[call.messages.length - 1];
    return last?.role === 'tool'
      ? testing.assistantReply(ANSWER)
      : testing.toolCallReply({ name: 'calculator', arguments: { expression: '340*15/100' } });
  };
  engine.enqueue(reply, reply, reply, reply);
  return engine;
}

/** The `--dist=<dir>` argument: the build to measure (default: the repository's dist). */
function distArgument(argv: readonly string[]): string | undefined {
  return argv.find((arg) => arg.startsWith('--dist='))?.slice('--dist='.length);
}

/** The `--<name>=<value>` argument's value. */
function argument(argv: readonly string[], name: string): string | undefined {
  return argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** The URL of a file of the build being measured. */
function distModule(path: string): string {
  const distDir = distArgument(process.argv);
  const base =
    distDir === undefined ? new URL('../dist/', import.meta.url) : pathToFileURL(`${distDir}/`);
  return new URL(path, base).href;
}

/**
 * The model process: the scripted OpenAI-compatible server answering every question with a calculator call and
 * every tool result with the answer, as a model server would in a process of its own.
 */
/**
 * The ES module entry of `name` as the build being measured finds it (its own node_modules, up from the dist
 * folder), so the bare apps run on the same copy of hono and @hono/node-server as jarvis serve. Two copies in one
 * process are not equal: @hono/node-server replaces the global Response with its own light one and only takes its
 * fast path for responses of its own copy, so with `--dist=<another checkout>` serve's responses were written the
 * slow way (a stream) and serve was charged ~0.5 ms per request that no real `jarvis serve` pays.
 */
function distPackageUrl(name: string): string {
  const distDir = distArgument(process.argv);
  let dir = resolve(distDir ?? fileURLToPath(new URL('../dist/', import.meta.url)));
  for (;;) {
    const folder = join(dir, 'node_modules', name);
    if (existsSync(join(folder, 'package.json'))) {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        exports?: { '.'?: { import?: string | { default?: string } } };
      };
      const entry = manifest.exports?.['.']?.import;
      const file = typeof entry === 'string' ? entry : entry?.default;
      if (file === undefined) throw new Error(`${name} has no ES module entry in ${folder}`);
      return pathToFileURL(join(folder, file)).href;
    }
    if (dirname(dir) === dir) throw new Error(`${name} not found above ${distDir ?? 'dist'}`);
    dir = dirname(dir);
  }
}

async function runModel(): Promise<void> {
  const testing = (await import(distModule('testing/index.js'))) as typeof Testing;
  const model = await testing.startScriptedOpenAIServer({
    handler: (request) => {
      // The scripted server records every request for tests; a model server keeps nothing.
      const recorded = model.requests as unknown[];
      if (recorded.length > 1000) recorded.length = 0;
      const messages = (request.body as { messages?: { role?: string }[] } | undefined)?.messages;
      return messages?.[messages.length - 1]?.role === 'tool'
        ? { content: ANSWER, usage: { promptTokens: 40, completionTokens: 6 } }
        : {
            toolCalls: [{ name: 'calculator', arguments: { expression: '340*15/100' } }],
            usage: { promptTokens: 30, completionTokens: 12 },
          };
    },
  });
  endWithParent(() => model.close());
  process.send?.({ url: model.baseUrl });
}

/** A side's process: the system (unless bare), the side's server (unless in-process), answering commands. */
async function runChild(): Promise<void> {
  const side = argument(process.argv, 'side') as Side;
  const agent = side === 'bare' ? undefined : await startAgent();
  const ask = async () => {
    const result = await agent?.jarvis.askFull(QUESTION, { tools: ['calculator'] });
    if (result?.content !== ANSWER) throw new Error(`in-process answer: ${result?.content}`);
  };
  const served = await startSideServer(side, agent, ask);
  answerCommands<ChildCommand>((command) => answerCommand(command, ask));
  endWithParent(() => Promise.resolve(served?.close()).then(() => agent?.close()));
  process.send?.({ url: served?.url });
}

/** The SDK over the model of the bench (the model process, or the in-process ScriptedEngine) in a fresh home. */
async function startAgent(): Promise<{ jarvis: Library.Jarvis; close(): Promise<void> }> {
  const library = (await import(distModule('index.js'))) as typeof Library;
  const testing = (await import(distModule('testing/index.js'))) as typeof Testing;
  const modelUrl = argument(process.argv, 'model-url');
  const home = await mkdtemp(join(tmpdir(), 'jarvis-serve-bench-'));
  if (process.argv.includes('--telemetry=off'))
    await writeFile(join(home, 'config.toml'), '[telemetry]\nenabled = false\n');
  const jarvis = new library.Jarvis({
    engine:
      modelUrl === undefined
        ? endlessEngine(testing)
        : new library.OpenAICompatibleEngine({ baseUrl: modelUrl }),
    env: { OPENJARVIS_HOME: home, OPENJARVIS_MODEL: MODEL },
    cwd: home,
    registries: library.createRegistries(),
  });
  return {
    jarvis,
    close: () => jarvis.close().then(() => rm(home, { recursive: true, force: true })),
  };
}

/** The server of a side: jarvis serve, a bare Hono app (with `ask` behind it for bareAgent), none in-process. */
async function startSideServer(
  side: Side,
  agent: { jarvis: Library.Jarvis } | undefined,
  ask: () => Promise<void>,
): Promise<{ readonly url: string; close(): unknown } | undefined> {
  if (side === 'bare') return startBareServer();
  if (side === 'bareAgent') return startBareServer(ask);
  if (side === 'inprocess' || agent === undefined) return undefined;
  const server = (await import(distModule('server/index.js'))) as typeof Server;
  return server.startJarvisServer({
    system: await agent.jarvis.system(),
    port: 0,
    tools: ['calculator'],
    maxConcurrentRuns: CLIENTS * 2,
  });
}

/**
 * The floor of any HTTP server on this machine: a bare Hono app on @hono/node-server (what jarvis serve is built
 * on) that parses the request and answers a fixed completion, in the same process, under the same clients.
 * With `run`, it first runs the in-process side's askFull: an agent behind HTTP with none of jarvis serve's
 * own work (guards, limits, deadline, OpenAI shapes), which tells that work apart from HTTP's.
 */
async function startBareServer(
  run?: () => Promise<void>,
): Promise<{ readonly url: string; close(): void }> {
  const { Hono } = (await import(distPackageUrl('hono'))) as typeof import('hono');
  const { createAdaptorServer } = (await import(
    distPackageUrl('@hono/node-server')
  )) as typeof import('@hono/node-server');
  const app = new Hono();
  app.post('/v1/chat/completions', async (c) => {
    const request = JSON.parse(await c.req.text()) as { model: string };
    await run?.();
    return c.json({
      id: 'chatcmpl-bare',
      object: 'chat.completion',
      created: 0,
      model: request.model,
      choices: [
        { index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' },
      ],
    });
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

async function answerCommand(command: ChildCommand, ask: () => Promise<void>): Promise<unknown> {
  if (command.cmd === 'cpu') return cpuUs();
  if (command.cmd === 'memory') return memoryAfterGc();
  if (command.cmd === 'warm') return loadCount(command.clients, command.count, ask);
  // One run per loop first (not measured), as the HTTP sides send one request per connection before theirs: the
  // model server closes idle keep-alive connections after 5 s, and reopening them is no side's own cost.
  await loadCount(command.clients, command.clients, ask);
  const cpuBefore = cpuUs();
  const sample = await loadFor(command.clients, command.durationMs, ask);
  return { ...sample, serverCpuUs: cpuUs() - cpuBefore };
}

function cpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

async function memoryAfterGc(): Promise<MemorySample> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the server child needs --expose-gc');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed };
}

/** `clients` loops, each starting its next request when the last one finished, until the time is up. */
async function loadFor(
  clients: number,
  durationMs: number,
  once: () => Promise<void>,
): Promise<Omit<LoadSample, 'serverCpuUs'>> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const loop = async () => {
    while (performance.now() < deadline) {
      const begun = performance.now();
      await once();
      latenciesMs.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return { requests: latenciesMs.length, elapsedMs: performance.now() - started, latenciesMs };
}

/** `clients` loops sharing `count` requests. */
async function loadCount(clients: number, count: number, once: () => Promise<void>): Promise<void> {
  let left = count;
  const loop = async () => {
    while (left > 0) {
      left -= 1;
      await once();
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
}

// ---------------------------------------------------------------------------------------------------------
// The parent: clients over HTTP, and the report.

/** The process of one side, taking commands. */
interface SideProcess {
  readonly side: Side;
  readonly child: ChildProcess;
  /** The side's server (`undefined` in-process). */
  readonly url: string | undefined;
  command<T>(command: ChildCommand): Promise<T>;
}

/** The scripted model's process (with --engine=http): its URL and how to stop it. */
interface ModelProcess {
  readonly url: string | undefined;
  stop(): void;
}

/** Forks this file in a role (`flag`), with --expose-gc (for the memory samples) and `v8Flags`. */
function forkServeRole<T>(
  flag: string,
  args: readonly string[],
  v8Flags: readonly string[] = [],
  name?: string,
): Promise<RoleProcess<T>> {
  return forkRole<T>(fileURLToPath(import.meta.url), flag, args, {
    execArgv: [...process.execArgv, '--expose-gc', ...v8Flags],
    ...(name === undefined ? {} : { name }),
  });
}

/** The scripted model server in a process of its own, unless the sides use the in-process ScriptedEngine. */
async function startModel(options: ServeBenchOptions): Promise<ModelProcess> {
  if (options.engine === 'inprocess') return { url: undefined, stop: () => undefined };
  const model = await forkServeRole<{ url: string }>(MODEL_FLAG, distArgs(options));
  return { url: model.first.url, stop: () => model.close() };
}

function distArgs(options: ServeBenchOptions): string[] {
  return options.distDir === undefined ? [] : [`--dist=${options.distDir}`];
}

/**
 * Starts the process of one side. With `takingTurns`, V8's memory reducer is off: a process idle for 8 s (while
 * the other sides take their turns) would otherwise shrink its young generation back to 1 MB, and its next
 * sample would pay for growing it again (5-7x the scavenges of a process under steady load).
 */
async function startSide(
  side: Side,
  options: ServeBenchOptions,
  model: ModelProcess,
  takingTurns = false,
): Promise<SideProcess> {
  const args = [
    ...distArgs(options),
    `--side=${side}`,
    ...(options.telemetry === false ? ['--telemetry=off'] : []),
    ...(model.url === undefined ? [] : [`--model-url=${model.url}`]),
  ];
  const v8Flags = takingTurns ? ['--no-memory-reducer', '--min-semi-space-size=16'] : [];
  const role = await forkServeRole<{ url?: string }>(CHILD_FLAG, args, v8Flags, side);
  return {
    side,
    child: role.child,
    url: role.first.url,
    command: <T>(command: ChildCommand) => role.command<T>(command),
  };
}

/** A response as the raw client reads it. */
interface RawResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * One keep-alive HTTP/1.1 connection that sends a prepared request and reads the response by its
 * Content-Length, one request at a time (what wrk does; no header objects, no streams).
 */
class RawConnection {
  readonly #socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (r: RawResponse) => void; reject: (e: Error) => void } | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('the server closed the connection')));
  }

  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port), noDelay: true });
    await once(socket, 'connect');
    return new RawConnection(socket);
  }

  send(request: Buffer): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const headEnd = this.#buffer.indexOf('\r\n\r\n');
    if (headEnd === -1) return;
    const head = this.#buffer.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
    if (length === undefined) {
      this.#fail(new Error(`no Content-Length: ${head}`));
      return;
    }
    const end = headEnd + 4 + Number(length);
    if (this.#buffer.length < end) return;
    const response = {
      status: Number(head.slice(9, 12)),
      body: this.#buffer.toString('utf8', headEnd + 4, end),
    };
    this.#buffer = this.#buffer.subarray(end);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve(response);
  }

  #fail(error: Error): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }
}

/** `count` raw keep-alive connections to `url` and a request function taking whichever is free. */
async function openClients(
  url: string,
  model: string,
  count: number,
): Promise<{ ask: () => Promise<void>; close(): void }> {
  const idle = await Promise.all(Array.from({ length: count }, () => RawConnection.open(url)));
  const all = [...idle];
  const body = Buffer.from(
    JSON.stringify({ model, messages: [{ role: 'user', content: QUESTION }] }),
  );
  const { host } = new URL(url);
  const request = Buffer.concat([
    Buffer.from(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    ),
    body,
  ]);
  const ask = async () => {
    const connection = idle.pop();
    if (connection === undefined) throw new Error('more requests at once than connections');
    const response = await connection.send(request);
    idle.push(connection);
    if (response.status !== 200 || !response.body.includes(ANSWER))
      throw new Error(`HTTP ${response.status}: ${response.body.slice(0, 300)}`);
  };
  return {
    ask,
    close: () => {
      for (const connection of all) connection.close();
    },
  };
}

async function servedModel(url: string): Promise<string> {
  const pool = new Pool(url);
  try {
    const response = await pool.request({ path: '/v1/models', method: 'GET' });
    const list = (await response.body.json()) as { data: { id: string }[] };
    const id = list.data[0]?.id;
    if (id === undefined) throw new Error('GET /v1/models listed no model');
    return id;
  } finally {
    await pool.close();
  }
}

/**
 * One fixed-time HTTP load on a fresh keep-alive pool (closed after it; its connections are opened before the
 * clock starts): between samples the server's keep-alive timeout may close idle connections, and a request
 * racing that close would fail.
 */
async function httpSample(
  server: SideProcess,
  url: string,
  model: string,
  durationMs: number,
): Promise<LoadSample> {
  const clients = await openClients(url, model, CLIENTS);
  try {
    // A first request on each connection (not measured), as the in-process side runs one per loop first.
    await Promise.all(Array.from({ length: CLIENTS }, clients.ask));
    const cpuBefore = await server.command<number>({ cmd: 'cpu' });
    const clientBefore = cpuUs();
    const sample = await loadFor(CLIENTS, durationMs, clients.ask);
    const clientCpuUs = cpuUs() - clientBefore;
    const serverCpuUs = (await server.command<number>({ cmd: 'cpu' })) - cpuBefore;
    return { ...sample, serverCpuUs, clientCpuUs };
  } finally {
    clients.close();
  }
}

/** `count` requests over fresh keep-alive connections, `CLIENTS` at a time. */
async function httpCount(url: string, model: string, count: number): Promise<void> {
  const clients = await openClients(url, model, CLIENTS);
  try {
    await loadCount(CLIENTS, count, clients.ask);
  } finally {
    clients.close();
  }
}

/** `count` requests to a side, not measured (its warm-up). */
function warmUp(process: SideProcess, model: string, count: number): Promise<void> {
  if (process.url === undefined)
    return process.command<void>({ cmd: 'warm', clients: CLIENTS, count });
  return httpCount(process.url, model, count);
}

/** A sample of a side: the in-process loops in its process, or HTTP clients here against its server. */
function sample(process: SideProcess, model: string, durationMs: number): Promise<LoadSample> {
  if (process.url === undefined)
    return process.command<LoadSample>({ cmd: 'inprocess', clients: CLIENTS, durationMs });
  return httpSample(process, process.url, model, durationMs);
}

/** Options of `serveBench`. */
export interface ServeBenchOptions {
  readonly quick?: boolean;
  /** The build of the library to measure (default: the repository's dist). */
  readonly distDir?: string | undefined;
  /** Telemetry and run traces stored as in a default home (default true); false writes `[telemetry] enabled = false`. */
  readonly telemetry?: boolean | undefined;
  /** The model both sides use: the scripted model server over HTTP (default) or the in-process ScriptedEngine. */
  readonly engine?: 'http' | 'inprocess' | undefined;
  /** Only one of the two parts (default: both). */
  readonly only?: 'throughput' | 'leak' | undefined;
}

/**
 * Throughput (rounds alternating which side goes first, medians over rounds) and the leak check, each in a
 * server process of its own; returns the report.
 */
export async function serveBench(options: ServeBenchOptions = {}): Promise<string> {
  const rounds = options.quick ? 3 : 7;
  const durationMs = options.quick ? 500 : 1500;
  const warmUpRequests = options.quick ? 1500 : 3000;
  const { only } = options;
  const throughput =
    only === 'leak' ? [] : await measureThroughput(rounds, durationMs, warmUpRequests, options);
  const leak = only === 'throughput' ? [] : await measureLeak(1_000, 10_000, options);
  return [
    `jarvis serve: ${CLIENTS} concurrent clients, orchestrator + calculator over a scripted model ${options.engine === 'inprocess' ? 'in-process (ScriptedEngine)' : 'server over HTTP (its own process)'} (2 model calls + 1 tool call per request), each side in a process of its own warmed up by ${warmUpRequests} requests, ${rounds} rounds × ${durationMs} ms per side, medians; telemetry ${options.telemetry === false ? 'off' : 'on'}`,
    ...throughput,
    ...leak,
  ].join('\n');
}

async function measureThroughput(
  rounds: number,
  durationMs: number,
  warmUpRequests: number,
  options: ServeBenchOptions,
): Promise<string[]> {
  const model = await startModel(options);
  const processes: SideProcess[] = [];
  try {
    for (const side of SIDES) processes.push(await startSide(side, options, model, true));
    const served = processes.find((p) => p.side === 'serve')?.url;
    const modelId = await servedModel(served ?? '');
    // CPU per request falls over the first few thousand requests of a process, until the JIT has compiled what
    // it runs hot and the young generation has grown to its working size.
    for (const process of processes) await warmUp(process, modelId, warmUpRequests);
    const samples: LoadSample[][] = processes.map(() => []);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const index of turnOrder(round, processes.length)) {
        samples[index]?.push(await sample(processes[index] as SideProcess, modelId, durationMs));
      }
      loads.push(loadavg()[0] ?? Number.NaN);
    }
    const [inProcess = [], http = [], bare = [], bareAgent = []] = samples;
    return [
      `load average (1 min) during the rounds: ${loads.map((load) => load.toFixed(1)).join(', ')} on ${availableParallelism()} cores`,
      ...throughputTable(http, inProcess, bare, bareAgent),
    ];
  } finally {
    for (const process of processes) process.child.disconnect();
    model.stop();
  }
}

async function measureLeak(
  first: number,
  total: number,
  options: ServeBenchOptions,
): Promise<string[]> {
  const model = await startModel(options);
  const server = await startSide('serve', options, model).catch((error: unknown) => {
    model.stop();
    throw error;
  });
  try {
    const url = server.url ?? '';
    const modelId = await servedModel(url);
    await httpCount(url, modelId, first);
    const early = await server.command<MemorySample>({ cmd: 'memory' });
    await httpCount(url, modelId, total - first);
    const late = await server.command<MemorySample>({ cmd: 'memory' });
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    const ratio = (a: number, b: number) => `${(b / a).toFixed(3)}×`;
    return [
      `memory of the server process after global.gc(): after ${first} requests -> after ${total} (goal: ≤ 1.10×)`,
      `  rss       ${mib(early.rssBytes)} -> ${mib(late.rssBytes)}  ${ratio(early.rssBytes, late.rssBytes)}`,
      `  heapUsed  ${mib(early.heapUsedBytes)} -> ${mib(late.heapUsedBytes)}  ${ratio(early.heapUsedBytes, late.heapUsedBytes)}`,
    ];
  } finally {
    server.child.disconnect();
    model.stop();
  }
}

function throughputTable(
  http: readonly LoadSample[],
  inProcess: readonly LoadSample[],
  bare: readonly LoadSample[],
  bareAgent: readonly LoadSample[],
): string[] {
  const row = (name: string, samples: readonly LoadSample[]) => {
    const rps = median(samples.map((s) => (s.requests * 1000) / s.elapsedMs));
    const p50 = median(samples.map((s) => percentile(s.latenciesMs, 0.5)));
    const p99 = median(samples.map((s) => percentile(s.latenciesMs, 0.99)));
    const cpuMs = median(samples.map((s) => s.serverCpuUs / 1000 / s.requests));
    const clientMs = median(samples.map((s) => (s.clientCpuUs ?? Number.NaN) / 1000 / s.requests));
    return { name, rps, p50, p99, cpuMs, clientMs };
  };
  const rows = [
    row('in-process (SDK askFull)', inProcess),
    row('jarvis serve (HTTP)', http),
    row('bare Hono (HTTP floor)', bare),
    row('bare Hono + askFull', bareAgent),
  ];
  const base = rows[0]?.rps ?? Number.NaN;
  const lines = [
    `${'case'.padEnd(26)}${'req/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'server CPU ms/req'.padStart(19)}${'client CPU ms/req'.padStart(19)}${'× in-process req/s'.padStart(20)}`,
  ];
  for (const r of rows) {
    const client = Number.isNaN(r.clientMs) ? '-' : r.clientMs.toFixed(3);
    lines.push(
      `${r.name.padEnd(26)}${r.rps.toFixed(0).padStart(8)}${r.p50.toFixed(1).padStart(9)}${r.p99
        .toFixed(1)
        .padStart(9)}${r.cpuMs.toFixed(3).padStart(19)}${client.padStart(19)}${(r.rps / base)
        .toFixed(2)
        .padStart(20)}`,
    );
  }
  const [inProcessRow, serveRow] = rows;
  if (inProcessRow !== undefined && serveRow !== undefined) {
    const cpu = serveRow.cpuMs / inProcessRow.cpuMs;
    const withClients = (serveRow.cpuMs + serveRow.clientMs) / inProcessRow.cpuMs;
    lines.push(
      `jarvis serve CPU per request: ${cpu.toFixed(2)}× in-process (its process), ${withClients.toFixed(2)}× with its HTTP clients (when other work fills the cores, req/s follows CPU shares more than CPU per request)`,
    );
  }
  lines.push(
    'goal: jarvis serve req/s ≥ 0.80× in-process. Each row runs in a process of its own, warmed up first; the rows',
    'take turns (every other round backwards). The bare row answers a fixed JSON with no agent: what HTTP alone',
    "costs here; bare + askFull runs the agent behind that bare app (HTTP and the agent without jarvis serve's",
    "guards, limits, deadline and OpenAI shapes). Server CPU is the CPU of the row's process (for in-process, the",
    "process running the 50 loops); client CPU is the bench process's raw HTTP clients, which share the machine's",
    'cores with the server (the in-process loops have no such client); the model process is not counted.',
  );
  return lines;
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

if (process.argv.includes(CHILD_FLAG)) {
  await runChild();
} else if (process.argv.includes(MODEL_FLAG)) {
  await runModel();
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  console.log(
    await serveBench({
      quick: process.argv.includes('--quick'),
      distDir: distArgument(process.argv),
      telemetry: !process.argv.includes('--telemetry=off'),
      only: only === 'throughput' || only === 'leak' ? only : undefined,
      engine: argument(process.argv, 'engine') === 'inprocess' ? 'inprocess' : 'http',
    }),
  );
}
