// HTTP frameworks for `jarvis serve`: the same tiny JSON endpoint and SSE endpoint on bare node:http, Hono
// (@hono/node-server) and Fastify, loaded by N concurrent keep-alive clients in one run.
// Usage: node --import tsx bench/http-server.bench.ts [--quick]
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';

const CHILD_FLAG = '--http-server-bench-child';
const FRAMEWORKS = ['node:http', 'hono', 'fastify'] as const;
type Framework = (typeof FRAMEWORKS)[number];
const ENDPOINTS = ['/json', '/sse'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

const JSON_BODY = {
  object: 'list',
  data: [{ id: 'scripted', object: 'model', owned_by: 'bench' }],
};
const SSE_EVENTS = 5;

/** The peers live in bench/peers with their own node_modules (npm run bench:setup), never in the package. */
const peers = createRequire(new URL('./peers/package.json', import.meta.url));

/** The SSE body: five chunk events, then [DONE], as a chat completion stream sends them. */
function sseFrames(): string[] {
  const frames: string[] = [];
  for (let i = 0; i < SSE_EVENTS; i++) {
    const chunk = {
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: `t${i} ` } }],
    };
    frames.push(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  frames.push('data: [DONE]\n\n');
  return frames;
}

function nodeHttpServer(): Server {
  return createServer((req, res) => {
    if (req.url === '/json') {
      const text = JSON.stringify(JSON_BODY);
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    } else if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const frame of sseFrames()) res.write(frame);
      res.end();
    } else {
      res.writeHead(404).end();
    }
  });
}

function honoServer(): Server {
  const app = new Hono();
  app.get('/json', (c) => c.json(JSON_BODY));
  app.get('/sse', () => {
    const encoder = new TextEncoder();
    const frames = sseFrames();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const frame = frames.shift();
        if (frame === undefined) controller.close();
        else controller.enqueue(encoder.encode(frame));
      },
    });
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    });
  });
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

interface FastifyLike {
  get(path: string, handler: (req: unknown, reply: FastifyReply) => unknown): void;
  listen(options: { port: number; host: string }): Promise<string>;
  server: Server;
}
interface FastifyReply {
  raw: import('node:http').ServerResponse;
  hijack(): void;
}

async function fastifyServer(): Promise<Server> {
  const fastify = peers('fastify') as (options: object) => FastifyLike;
  const app = fastify({ logger: false });
  app.get('/json', () => JSON_BODY);
  app.get('/sse', (_req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const frame of sseFrames()) reply.raw.write(frame);
    reply.raw.end();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server;
}

async function listenOn(server: Server): Promise<number> {
  if (!server.listening)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The child: the three servers, their ports sent to the parent; exits when the parent disconnects. */
async function runChild(): Promise<void> {
  const ports: Record<string, number> = {
    'node:http': await listenOn(nodeHttpServer()),
    hono: await listenOn(honoServer()),
    fastify: await listenOn(await fastifyServer()),
  };
  process.send?.({ ports });
  process.on('disconnect', () => process.exit(0));
}

/** One GET; resolves with the latency in ms once the whole body arrived. */
function get(agent: Agent, port: number, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => {
        if (res.statusCode !== 200 || bytes === 0)
          reject(new Error(`${path}: status ${res.statusCode}`));
        else resolve(performance.now() - started);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** `clients` loops, each sending its next request when the last one finished, over one keep-alive agent. */
async function load(
  port: number,
  path: Endpoint,
  clients: number,
  durationMs: number,
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const loop = async () => {
    while (performance.now() < deadline) latencies.push(await get(agent, port, path));
  };
  await Promise.all(Array.from({ length: clients }, loop));
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsedS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Options of `httpServerBench`. */
export interface HttpServerBenchOptions {
  readonly quick?: boolean;
  /** Concurrent keep-alive clients (default 50). */
  readonly clients?: number;
}

/**
 * Measures the three servers side by side: rounds of (every framework × every endpoint) in a rotating order,
 * each a fixed-time load; medians over rounds, and ratios to node:http. Servers run in a child process,
 * the clients in this one.
 */
export async function httpServerBench(options: HttpServerBenchOptions = {}): Promise<string> {
  const clients = options.clients ?? 50;
  const rounds = options.quick ? 3 : 7;
  const durationMs = options.quick ? 400 : 1000;
  const { child, ports } = await startChild();
  try {
    const samples = new Map<string, LoadResult[]>();
    for (const port of Object.values(ports)) {
      for (const endpoint of ENDPOINTS) await load(port, endpoint, clients, 200); // warm-up
    }
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < FRAMEWORKS.length; i++) {
        const framework = FRAMEWORKS[(round + i) % FRAMEWORKS.length] as Framework;
        for (const endpoint of ENDPOINTS) {
          const result = await load(ports[framework] ?? 0, endpoint, clients, durationMs);
          const key = `${framework} ${endpoint}`;
          samples.set(key, [...(samples.get(key) ?? []), result]);
        }
      }
    }
    return formatReport(samples, clients, rounds, durationMs);
  } finally {
    child.kill();
  }
}

async function startChild(): Promise<{ child: ChildProcess; ports: Record<string, number> }> {
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ports = await new Promise<Record<string, number>>((resolve, reject) => {
    child.once('message', (message) =>
      resolve((message as { ports: Record<string, number> }).ports),
    );
    child.once('exit', (code) =>
      reject(new Error(`the server process exited early (code ${code})`)),
    );
  });
  return { child, ports };
}

function formatReport(
  samples: ReadonlyMap<string, readonly LoadResult[]>,
  clients: number,
  rounds: number,
  durationMs: number,
): string {
  const lines = [
    `HTTP servers: ${clients} concurrent keep-alive clients (node:http Agent loops), ${rounds} rounds × ${durationMs} ms per case, medians`,
    `${'case'.padEnd(20)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'× node:http req/s'.padStart(20)}`,
  ];
  for (const endpoint of ENDPOINTS) {
    const base = median(
      (samples.get(`node:http ${endpoint}`) ?? []).map((s) => s.requestsPerSecond),
    );
    for (const framework of FRAMEWORKS) {
      const list = samples.get(`${framework} ${endpoint}`) ?? [];
      const rps = median(list.map((s) => s.requestsPerSecond));
      lines.push(
        `${`${framework} ${endpoint}`.padEnd(20)}${rps.toFixed(0).padStart(10)}${median(
          list.map((s) => s.p50Ms),
        )
          .toFixed(2)
          .padStart(9)}${median(list.map((s) => s.p99Ms))
          .toFixed(2)
          .padStart(9)}${(rps / base).toFixed(2).padStart(20)}`,
      );
    }
  }
  return lines.join('\n');
}

if (process.argv.includes(CHILD_FLAG)) {
  await runChild();
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(await httpServerBench({ quick: process.argv.includes('--quick') }));
}
