import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus, JarvisError } from '../core/index.js';
import { CalculatorTool, ThinkTool } from '../tools/index.js';
import { type FixtureToolHooks, fixtureTools } from './jarvis-tools.fixture.js';
import { type McpHttpHandle, serveHttp } from './mcp-http.js';
import { createMcpServer, type JarvisMcpServer, type McpServerOptions } from './mcp-server.js';

// The SDK's own client against our server over Streamable HTTP on 127.0.0.1.

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(
  options: McpServerOptions = {},
  hooks: FixtureToolHooks = {},
): Promise<{ server: JarvisMcpServer; http: McpHttpHandle }> {
  const server = createMcpServer(
    [new CalculatorTool(), new ThinkTool(), ...fixtureTools(hooks)],
    options,
  );
  const http = await serveHttp(server, { port: 0 });
  cleanups.push(async () => {
    await http.close();
    await server.close();
  });
  return { server, http };
}

async function connectClient(url: string): Promise<Client> {
  const client = new Client({ name: 'sdk-test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-03-26',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1.0.0' },
  },
});

/** An initialize POST as a browser page would send it, with an `Origin` header. */
function initializeFrom(url: string, origin: string): Promise<{ status: number; body: string }> {
  return rawPost(url, { origin, accept: 'application/json, text/event-stream' }, INITIALIZE);
}

/** A raw HTTP request, for what the SDK client never sends. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      // No pooled keep-alive socket: one left from an earlier server on a reused port would be reset instead.
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, agent: false },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('our MCP server over Streamable HTTP, seen by the SDK client', () => {
  it('binds 127.0.0.1 at /mcp, lists tools and runs calls through the executor (with events)', async () => {
    const bus = new EventBus({ recordHistory: true });
    const { http } = await start({ bus });
    expect(http.host).toBe('127.0.0.1');
    expect(http.url).toBe(`http://127.0.0.1:${http.port}/mcp`);
    const client = await connectClient(http.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'think',
      'slow',
      'wait',
      'guarded',
    ]);
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '6*7' } });
    expect(result).toEqual({ content: [{ type: 'text', text: '42' }], isError: false });
    expect(bus.history.map((event) => event.type)).toEqual(['tool_call_start', 'tool_call_end']);
    // Request ids: 0 initialize, 1 tools/list, 2 tools/call; connection 1.
    expect(bus.history[0]?.data).toMatchObject({ toolName: 'calculator', callId: 'mcp-1-2' });
  });

  it('answers invalid arguments and timeouts with error results', async () => {
    const { http } = await start();
    const client = await connectClient(http.url);
    const invalid = await client.callTool({ name: 'think', arguments: { thought: ['a'] } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain("Invalid arguments for tool 'think'");
    const slow = await client.callTool({ name: 'slow', arguments: {} });
    expect(slow.isError).toBe(true);
    expect(text(slow)).toBe("Tool 'slow' timed out after 0.2s.");
  });

  it('refuses confirmation tools by default and runs them when allowed', async () => {
    const refused = await connectClient((await start()).http.url);
    const allowed = await connectClient((await start({ allowConfirmation: true })).http.url);
    const args = { name: 'guarded', arguments: { target: 'db' } };
    const refusal = await refused.callTool(args);
    expect(refusal.isError).toBe(true);
    expect(text(refusal)).toContain('--allow-confirmation');
    expect(await allowed.callTool(args)).toEqual({
      content: [{ type: 'text', text: 'guarded action done on db' }],
      isError: false,
    });
  });

  it('serves a second client at the same time, each in its own session', async () => {
    const { http, server } = await start();
    const first = await connectClient(http.url);
    const second = await connectClient(http.url);
    const [a, b] = await Promise.all([
      first.callTool({ name: 'calculator', arguments: { expression: '1+1' } }),
      second.callTool({ name: 'calculator', arguments: { expression: '2+2' } }),
    ]);
    expect([text(a), text(b)]).toEqual(['2', '4']);
    expect(http.sessionCount).toBe(2);
    expect(server.connectionCount).toBe(2);
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    expect(http.sessionCount).toBe(1);
    expect(text(await second.callTool({ name: 'think', arguments: { thought: 'ok' } }))).toBe('ok');
  });

  it('makes room for a new session by closing the least recently used one', async () => {
    const server = createMcpServer([new CalculatorTool()]);
    const http = await serveHttp(server, { port: 0, maxSessions: 1 });
    cleanups.push(async () => {
      await http.close();
      await server.close();
    });
    const first = await connectClient(http.url);
    const second = await connectClient(http.url);
    expect(http.sessionCount).toBe(1);
    await expect(first.listTools()).rejects.toThrow('Session not found');
    expect((await second.listTools()).tools).toHaveLength(1);
  });

  it('cancels the running tool when the client cancels the request', async () => {
    let started!: () => void;
    const waitStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let aborted!: (reason: unknown) => void;
    const waitAborted = new Promise<unknown>((resolve) => {
      aborted = resolve;
    });
    const { http } = await start({}, { onWaitStart: started, onWaitAborted: aborted });
    const client = await connectClient(http.url);
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await waitStarted;
    controller.abort(new Error('user pressed stop'));
    await expect(call).rejects.toThrow('user pressed stop');
    await expect(waitAborted).resolves.toBeDefined();
  });

  it('refuses foreign Host headers, other paths and unknown sessions', async () => {
    const { http } = await start();
    const foreign = await rawPost(http.url, { host: 'evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('only answers localhost');
    const otherPath = await rawPost(http.url.replace('/mcp', '/other'), {});
    expect(otherPath.status).toBe(404);
    const unknown = await rawPost(http.url, { 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('Session not found');
  });

  it('refuses a foreign Origin with 403 and opens no session (DNS-rebinding guard)', async () => {
    const { http } = await start();
    for (const origin of ['http://evil.example', `http://evil.example:${http.port}`, 'null']) {
      const refused = await initializeFrom(http.url, origin);
      expect(refused.status, origin).toBe(403);
      expect(refused.body).toContain(`Forbidden Origin '${origin}'`);
      expect(refused.body).toContain('allowedOrigins');
    }
    const otherPort = await initializeFrom(http.url, `http://localhost:${http.port + 1}`);
    expect(otherPort.status).toBe(403);
    expect(http.sessionCount).toBe(0);
  });

  it("accepts the server's own origins and requests without an Origin", async () => {
    const { http } = await start();
    for (const host of ['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]']) {
      const own = await initializeFrom(http.url, `http://${host}:${http.port}`);
      expect(own.status, host).toBe(200);
    }
    expect(http.sessionCount).toBe(4);
    const client = await connectClient(http.url);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('accepts configured allowedOrigins (or any with *) and checks the option', async () => {
    const server = createMcpServer([new CalculatorTool()]);
    const http = await serveHttp(server, {
      port: 0,
      allowedOrigins: ['https://app.example:8443/', 'http://tool.example'],
    });
    const open = await serveHttp(server, { port: 0, allowedOrigins: ['*'] });
    cleanups.push(async () => {
      await http.close();
      await open.close();
      await server.close();
    });
    expect((await initializeFrom(http.url, 'https://app.example:8443')).status).toBe(200);
    expect((await initializeFrom(http.url, 'http://tool.example')).status).toBe(200);
    expect((await initializeFrom(http.url, 'http://app.example:8443')).status).toBe(403);
    expect((await initializeFrom(open.url, 'http://anything.example')).status).toBe(200);
    for (const bad of ['app.example', 'http://app.example/path', 'ftp://x.example']) {
      const attempt = serveHttp(server, { port: 0, allowedOrigins: [bad] });
      await expect(attempt).rejects.toThrow(/allowedOrigins entries must be origins/);
    }
  });

  it('refuses a non-loopback host unless explicitly allowed', async () => {
    const server = createMcpServer([new CalculatorTool()]);
    cleanups.push(() => server.close());
    const attempt = serveHttp(server, { port: 0, host: '0.0.0.0' });
    await expect(attempt).rejects.toBeInstanceOf(JarvisError);
    await expect(attempt).rejects.toThrow('allowNonLoopback');
  });

  it('stops answering after close()', async () => {
    const { http } = await start();
    const client = await connectClient(http.url);
    await http.close();
    expect(http.sessionCount).toBe(0);
    await expect(rawPost(http.url, {})).rejects.toThrow(/ECONNREFUSED/);
    await expect(client.listTools()).rejects.toThrow();
  });
});
