import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  buildOpenClawRuntimeScript,
  type OpenClawHttpRuntime,
  type OpenClawRuntimeBehaviour,
  type OpenClawWireMessage,
  startOpenClawHttpRuntime,
  writeOpenClawRuntimeScript,
} from './openclaw-runtime.js';

type Wire = Record<string, unknown>;

/** Talks to one runtime, whichever way it runs. */
interface RuntimeClient {
  exchange(message: Wire): Promise<Wire>;
}

let directory = '';
const runtimes: OpenClawHttpRuntime[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'openclaw-runtime-'));
});

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function http(
  url: string,
  method: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, agent: false });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (piece: string) => {
        text += piece;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.end(body);
  });
}

async function httpClient(behaviour: OpenClawRuntimeBehaviour): Promise<RuntimeClient> {
  const runtime = await startOpenClawHttpRuntime(behaviour);
  runtimes.push(runtime);
  return {
    exchange: async (message) => {
      if (message.type === 'health') {
        const { status } = await http(`${runtime.url}/health`, 'GET');
        return status === 200
          ? { type: 'health_ok', metadata: { reply_to: message.id } }
          : { type: 'error', status };
      }
      const { text } = await http(`${runtime.url}/api/query`, 'POST', JSON.stringify(message));
      return JSON.parse(text) as Wire;
    },
  };
}

async function startScript(
  behaviour: OpenClawRuntimeBehaviour,
): Promise<ChildProcessWithoutNullStreams> {
  const path = await writeOpenClawRuntimeScript(directory, behaviour);
  const child = spawn(process.execPath, [path]);
  children.push(child);
  return child;
}

async function scriptClient(behaviour: OpenClawRuntimeBehaviour): Promise<RuntimeClient> {
  const child = await startScript(behaviour);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    exchange: async (message) => {
      child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
      const { value } = await lines.next();
      return JSON.parse(value as string) as Wire;
    },
  };
}

const conformance = [
  ['HTTP handler', httpClient],
  ['generated script', scriptClient],
] as const;

describe.each(conformance)('reference runtime (%s)', (_name, connect) => {
  it('plays the script: tool call, checked tool result, filled answer', async () => {
    const client = await connect({
      steps: [
        { toolCall: 'calculator', arguments: { expression: '2+2' } },
        { answer: '{input} -> {result} ({metadata})' },
      ],
    });
    expect(await client.exchange({ type: 'health', id: 'h1' })).toMatchObject({
      type: 'health_ok',
      metadata: { reply_to: 'h1' },
    });
    const call = await client.exchange({
      type: 'query',
      id: 'q1',
      content: '2+2?',
      metadata: { model: 'm' },
    });
    expect(call).toMatchObject({
      type: 'tool_call',
      content: '',
      tool_name: 'calculator',
      tool_args: { expression: '2+2' },
      metadata: { reply_to: 'q1' },
    });
    const wrong = await client.exchange({
      type: 'tool_result',
      id: 'r0',
      metadata: { tool_call_id: 'nope' },
    });
    expect(wrong).toMatchObject({
      type: 'error',
      error: `tool_result answers "nope", expected ${JSON.stringify(call.id)}`,
    });
    const answer = await client.exchange({
      type: 'tool_result',
      id: 'r1',
      tool_result: '4',
      metadata: { tool_call_id: call.id },
    });
    expect(answer).toMatchObject({
      type: 'response',
      content: '2+2? -> 4 ({"model":"m"})',
      metadata: { reply_to: 'r1' },
    });
    expect(await client.exchange({ type: 'tool_result', id: 'r2', metadata: {} })).toMatchObject({
      type: 'error',
      error: 'tool_result answers null, but no tool call is pending',
    });
  });

  it('restarts at the first step on every query and reports a missing step', async () => {
    const client = await connect({ steps: [{ error: 'boom' }], echoReplyTo: false });
    const first = await client.exchange({ type: 'query', id: 'q1', content: '' });
    expect(first).toMatchObject({ type: 'error', error: 'boom' });
    expect(first.metadata).toEqual({});
    expect(await client.exchange({ type: 'query', id: 'q2' })).toMatchObject({ error: 'boom' });
    const empty = await connect({ steps: [] });
    expect(await empty.exchange({ type: 'query', id: 'q3' })).toMatchObject({
      type: 'error',
      error: 'reference runtime script has no step 0',
    });
  });

  it('answers other message types and wrongReplyTo steps as documented', async () => {
    const client = await connect({ steps: [{ wrongReplyTo: 'late' }] });
    expect(await client.exchange({ type: 'response', id: 'x' })).toMatchObject({
      type: 'error',
      error: 'reference runtime accepts health, query and tool_result, got "response"',
    });
    expect(await client.exchange({ type: 'query', id: 'q1' })).toMatchObject({
      type: 'response',
      content: 'late',
      metadata: { reply_to: 'not-q1' },
    });
  });
});

describe('startOpenClawHttpRuntime', () => {
  it('records posted messages and answers bad requests with clear errors', async () => {
    const runtime = await startOpenClawHttpRuntime({
      steps: [{ answer: 'ok' }],
      health: 'unhealthy',
    });
    runtimes.push(runtime);
    expect(runtime.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await http(`${runtime.url}/health`, 'GET')).toEqual({
      status: 503,
      text: '{"status":"unhealthy"}',
    });
    expect((await http(`${runtime.url}/other`, 'GET')).status).toBe(404);
    expect(await http(`${runtime.url}/api/query`, 'POST', '{oops')).toEqual({
      status: 400,
      text: '{"type":"error","error":"request body is not JSON"}',
    });
    expect((await http(`${runtime.url}/api/query`, 'POST', '[1]')).status).toBe(400);
    await http(`${runtime.url}/api/query`, 'POST', '{"type":"query","id":"q1"}');
    expect(runtime.received).toEqual<OpenClawWireMessage[]>([{ type: 'query', id: 'q1' }]);
  });

  it('closes even while a request hangs', async () => {
    const runtime = await startOpenClawHttpRuntime({ steps: [{ fault: 'hang' }] });
    runtimes.push(runtime);
    const pending = http(`${runtime.url}/api/query`, 'POST', '{"type":"query","id":"q1"}').catch(
      (error: Error) => error.message,
    );
    while (runtime.received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await runtime.close();
    expect(await pending).toBe('socket hang up');
  });
});

describe('writeOpenClawRuntimeScript', () => {
  it('writes a self-contained module that imports only node: builtins', async () => {
    const path = await writeOpenClawRuntimeScript(join(directory, 'nested'), { steps: [] });
    expect(path).toMatch(/nested\/openclaw-runtime-[0-9a-f-]{36}\.mjs$/);
    const source = await readFile(path, 'utf8');
    expect(source).toBe(buildOpenClawRuntimeScript({ steps: [] }));
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1]);
    expect(imports).toEqual(['node:crypto', 'node:readline']);
  });

  it('answers a line that is not JSON, crashes with code 3 and its stderr, and exits when stdin ends', async () => {
    const client = await scriptClient({ steps: [] });
    expect(await client.exchange('not json' as unknown as Wire)).toMatchObject({
      type: 'error',
      error: 'reference runtime got a line that is not JSON',
    });
    const crasher = await startScript({ steps: [{ fault: 'crash' }] });
    let stderr = '';
    crasher.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => crasher.once('close', resolve));
    crasher.stdin.write('{"type":"query","id":"q1"}\n');
    expect(await exited).toBe(3);
    expect(stderr).toBe('reference runtime ready\nreference runtime: crashing on purpose\n');
    const quitter = await startScript({ steps: [] });
    const quit = new Promise<number | null>((resolve) => quitter.once('close', resolve));
    quitter.stdin.end();
    expect(await quit).toBe(0);
  });
});
