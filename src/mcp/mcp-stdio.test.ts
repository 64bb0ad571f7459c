import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { JarvisError } from '../core/index.js';
import { CalculatorTool, defineTool } from '../tools/index.js';
import { createMcpServer, type JarvisMcpServer } from './mcp-server.js';
import { serveStdio } from './mcp-stdio.js';
import { toMcpToolDescriptor } from './mcp-tool-listing.js';

// serveStdio over in-memory streams: the line protocol, and stopping when stdin ends.

const servers: JarvisMcpServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function setup() {
  const server = createMcpServer([new CalculatorTool()]);
  servers.push(server);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: unknown[] = [];
  let waiting: (() => void) | undefined;
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part));
    waiting?.();
  });
  const next = async (): Promise<unknown> => {
    while (lines.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
    return lines.shift();
  };
  const send = (message: object): void => {
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  return { server, stdin, stdout, next, send };
}

describe('serveStdio', () => {
  it('answers JSON-RPC lines and stops when stdin ends', async () => {
    const { server, stdin, stdout, next, send } = setup();
    const handle = await serveStdio(server, { stdin, stdout });
    expect(server.connectionCount).toBe(1);
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    expect(await next()).toMatchObject({ id: 1, result: { serverInfo: { name: 'openjarvis' } } });
    send({ method: 'notifications/initialized' });
    send({
      id: 2,
      method: 'tools/call',
      params: { name: 'calculator', arguments: { expression: '2**10' } },
    });
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: '1024' }], isError: false },
    });
    stdin.end();
    await handle.closed;
    expect(server.connectionCount).toBe(0);
    await handle.close();
  });
});

describe('createMcpServer', () => {
  it('publishes an object schema even for tools that accept anything', () => {
    const anything = defineTool({ name: 'any', description: 'Takes anything.', execute: () => '' });
    expect(toMcpToolDescriptor(anything.spec)).toEqual({
      name: 'any',
      description: 'Takes anything.',
      inputSchema: { type: 'object' },
    });
  });

  it('cannot be connected again once closed', async () => {
    const { server, stdin, stdout } = setup();
    await server.close();
    await expect(serveStdio(server, { stdin, stdout })).rejects.toBeInstanceOf(JarvisError);
  });
});
