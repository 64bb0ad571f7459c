import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type OpenClawHttpRuntime,
  type OpenClawRuntimeBehaviour,
  startOpenClawHttpRuntime,
} from '../../testing/openclaw-runtime.js';
import { HttpTransport, type HttpTransportOptions } from './http-transport.js';
import { createOpenClawMessage, OpenClawProtocolError } from './protocol.js';
import { OpenClawTransportError } from './transport.js';

const runtimes: OpenClawHttpRuntime[] = [];
const transports: HttpTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});

async function connect(
  behaviour: OpenClawRuntimeBehaviour,
  options: HttpTransportOptions = {},
): Promise<{ runtime: OpenClawHttpRuntime; transport: HttpTransport }> {
  const runtime = await startOpenClawHttpRuntime(behaviour);
  runtimes.push(runtime);
  const transport = new HttpTransport({ host: `${runtime.url}/`, timeoutMs: 2_000, ...options });
  transports.push(transport);
  return { runtime, transport };
}

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const query = (content: string) => createOpenClawMessage({ type: 'query', id: 'q1', content });

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe('HttpTransport', () => {
  it('posts the message to /api/query and parses the reply', async () => {
    const { runtime, transport } = await connect({
      steps: [
        { toolCall: 'calculator', arguments: { expression: '2+2' } },
        { answer: 'got {result}' },
      ],
    });
    expect(transport.host).toBe(runtime.url);
    const call = await transport.send(query('what is 2+2?'));
    expect(call).toMatchObject({
      type: 'tool_call',
      toolName: 'calculator',
      toolArgs: { expression: '2+2' },
      metadata: { reply_to: 'q1' },
    });
    const result = createOpenClawMessage({
      type: 'tool_result',
      toolName: 'calculator',
      toolResult: '4',
      metadata: { tool_call_id: call.id },
    });
    expect(await transport.send(result)).toMatchObject({ type: 'response', content: 'got 4' });
    expect(runtime.received.map((message) => message.type)).toEqual(['query', 'tool_result']);
    expect(runtime.received[0]).toEqual({ type: 'query', id: 'q1', content: 'what is 2+2?' });
  });

  it('reports health: true on 200, false with a reason when unhealthy or unreachable', async () => {
    const { transport } = await connect({ steps: [] });
    expect(await transport.health()).toBe(true);
    expect(transport.lastHealthFailure).toBeUndefined();
    const { transport: sick } = await connect({ steps: [], health: 'unhealthy' });
    expect(await sick.health()).toBe(false);
    expect(sick.lastHealthFailure).toMatch(/health answered HTTP 503; start the OpenClaw runtime/);
    const host = `http://127.0.0.1:${await freePort()}`;
    const down = new HttpTransport({ host });
    transports.push(down);
    expect(await down.health()).toBe(false);
    expect(down.lastHealthFailure).toContain(`Cannot reach OpenClaw runtime (GET ${host}/health)`);
    expect(down.lastHealthFailure).toContain('ECONNREFUSED');
  });

  it('health never throws and never hangs', async () => {
    const { transport } = await connect({ steps: [], health: 'hang' }, { healthTimeoutMs: 100 });
    expect(await transport.health()).toBe(false);
    expect(transport.lastHealthFailure).toMatch(/did not answer GET .*\/health within 100 ms/);
  });

  it('times out a reply that never comes, naming the host', async () => {
    const { runtime, transport } = await connect(
      { steps: [{ fault: 'hang' }] },
      { timeoutMs: 150 },
    );
    const error = await failure(transport.send(query('x')));
    expect(error).toBeInstanceOf(OpenClawTransportError);
    expect((error as OpenClawTransportError).failure).toBe('timed_out');
    expect(error.message).toBe(
      `OpenClaw runtime did not answer POST ${runtime.url}/api/query within 150 ms`,
    );
  });

  it('reports non-2xx answers with their status and body', async () => {
    const { runtime, transport } = await connect({ steps: [{ fault: 'http_500' }] });
    const error = await failure(transport.send(query('x')));
    expect((error as OpenClawTransportError).failure).toBe('http_status');
    expect(error.message).toBe(
      `OpenClaw runtime at ${runtime.url} answered POST /api/query with HTTP 500: Internal Server Error`,
    );
  });

  it.each([
    ['garbage', /sent a bad reply to POST \/api\/query: Invalid OpenClaw message: not valid JSON/],
    ['unknown_type', /bad reply .*unknown message type \(type "bogus"\)/],
    ['huge_line', /larger than the 8388608-byte limit of one message/],
  ] as const)('turns a %s reply into an OpenClawProtocolError', async (fault, pattern) => {
    const { transport } = await connect({ steps: [{ fault }] });
    const error = await failure(transport.send(query('x')));
    expect(error).toBeInstanceOf(OpenClawProtocolError);
    expect(error.message).toMatch(pattern);
  });

  it('reports a dropped connection', async () => {
    const { transport } = await connect({ steps: [{ fault: 'crash' }] });
    const error = await failure(transport.send(query('x')));
    expect((error as OpenClawTransportError).failure).toBe('connection_failed');
    expect(error.message).toMatch(
      /Cannot reach OpenClaw runtime \(POST .*\/api\/query\)|Connection closed/,
    );
  });

  it('cancels an exchange through the signal, also one already cancelled', async () => {
    const { transport } = await connect({ steps: [{ fault: 'hang' }] });
    const controller = new AbortController();
    const pending = failure(transport.send(query('x'), { signal: controller.signal }));
    controller.abort();
    expect((await pending) as OpenClawTransportError).toMatchObject({ failure: 'cancelled' });
    const again = await failure(transport.send(query('x'), { signal: controller.signal }));
    expect(again).toMatchObject({ failure: 'cancelled' });
  });

  it('validates its options', () => {
    expect(() => new HttpTransport({ host: 'localhost:1' })).toThrow(
      /must use http:\/\/ or https:\/\//,
    );
    expect(() => new HttpTransport({ host: 'not a url' })).toThrow(
      /must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => new HttpTransport({ timeoutMs: 0 })).toThrow(/timeoutMs must be a positive/);
    const defaults = new HttpTransport();
    expect(defaults.host).toBe('http://localhost:18789');
    expect(defaults.timeoutMs).toBe(30_000);
    expect(defaults.healthTimeoutMs).toBe(5_000);
  });
});
