import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../test/support/bundled-script.js';
import type { ToolResult } from '../core/index.js';
import { ToolExecutor } from '../tools/index.js';
import type { McpServerConnectionOptions } from './mcp-connection-options.js';
import type { McpTool } from './mcp-tool.js';
import { createMcpToolSource, type McpToolSource } from './mcp-tool-source.js';

// Our client against a small MCP server built with the SDK, running as real child processes over stdio.
// The tests share one source and run in order. The fixture runs bundled with plain `node` (under tsx each of
// its three starts cost about a second of CPU).

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'remote-server.fixture.ts');

function node(name: string, args: readonly string[]): McpServerConnectionOptions {
  return { name, transport: 'stdio', command: process.execPath, args, timeoutMs: 1_000 };
}

let source: McpToolSource;
let tools: Map<string, McpTool>;

beforeAll(async () => {
  source = createMcpToolSource(
    [
      node('remote', [await bundledScript(FIXTURE)]),
      // Reads stdin but never answers, not even the handshake.
      { ...node('silent', ['-e', 'process.stdin.resume()']), connectTimeoutMs: 300 },
      // Dies before the handshake, explaining why on stderr.
      node('dead', ['-e', "process.stderr.write('refusing to start\\n'); process.exit(2)"]),
      { name: 'missing', transport: 'stdio', command: '/nonexistent/mcp-server' },
    ],
    { closeGraceMs: 500 },
  );
});

afterAll(async () => {
  await source?.close();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const tool = tools.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool.execute(args, { signal: new AbortController().signal });
}

function connected(name: string): boolean {
  return source.connections.find((connection) => connection.name === name)?.connected === true;
}

describe('McpToolSource over stdio', () => {
  it('connects lazily, and only the servers the requested names need', async () => {
    expect(source.connections.map((connection) => connection.connected)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    const found = await source.tools(['remote.echo', 'remote.add', 'remote.nope', 'calculator']);
    expect(found.tools.map((tool) => tool.spec.name)).toEqual(['remote.echo', 'remote.add']);
    expect(found.unresolved).toEqual(['remote.nope', 'calculator']);
    expect(found.warnings).toEqual([
      {
        server: 'remote',
        message: expect.stringContaining("MCP server 'remote' has no tool 'remote.nope'"),
      },
    ]);
    expect(['remote', 'silent', 'dead', 'missing'].map(connected)).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it('lists every server; one that cannot start, dies or never answers yields a warning', async () => {
    const listing = await source.listTools();
    tools = new Map(listing.tools.map((tool) => [tool.spec.name, tool]));
    expect([...tools.keys()]).toEqual([
      'remote.echo',
      'remote.add',
      'remote.pid',
      'remote.fail',
      'remote.image',
      'remote.crash',
      'remote.hang',
    ]);
    const byServer = Object.fromEntries(listing.warnings.map((w) => [w.server, w.message]));
    expect(Object.keys(byServer).sort()).toEqual(['dead', 'missing', 'silent']);
    expect(byServer.silent).toContain("Could not connect to MCP server 'silent' (stdio: ");
    expect(byServer.silent).toContain('no answer to the MCP handshake within 0.3s');
    expect(byServer.dead).toContain('server stderr: refusing to start');
    expect(byServer.missing).toContain('ENOENT');
    expect(tools.get('remote.echo')?.spec).toMatchObject({
      description: 'Echoes the text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      category: 'mcp',
      metadata: { mcp_server: 'remote', mcp_tool: 'echo' },
    });
  });

  it('calls remote tools; remote errors and pictures become readable results', async () => {
    expect(await call('remote.echo', { text: 'hi' })).toMatchObject({
      success: true,
      content: 'echo: hi',
    });
    expect(await call('remote.fail')).toMatchObject({
      success: false,
      errorCode: 'tool_error',
      content: "MCP server 'remote' reported an error from tool 'fail': the disk is on fire",
    });
    expect((await call('remote.image')).content).toBe('a red dot\n[image: image/png, 70 bytes]');
  });

  it('validates arguments against the remote schema before sending them (through the executor)', async () => {
    const executor = new ToolExecutor([...tools.values()]);
    const result = await executor.execute({ name: 'remote.add', arguments: { a: 1 } });
    expect(result).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    expect(result.content).toContain("missing required argument 'b'");
    const sum = await executor.execute({ name: 'remote.add', arguments: '{"a": 2, "b": 3}' });
    expect(sum).toMatchObject({ success: true, content: '5' });
  });

  it('a server that crashes mid-call gives a failed result, and is restarted on the next use', async () => {
    const pidBefore = (await call('remote.pid')).content;
    const crashed = await call('remote.crash');
    expect(crashed).toMatchObject({ success: false, errorCode: 'execution_failed' });
    expect(crashed.content).toContain("MCP server 'remote' failed while calling tool 'crash'");
    expect(crashed.content).toContain('crashing on purpose');
    expect(crashed.content).toContain('restarted on the next use');
    const pidAfter = await call('remote.pid');
    expect(pidAfter.success).toBe(true);
    expect(pidAfter.content).not.toBe(pidBefore);
  });

  it('a cancelled call fails as cancelled and keeps the connection', async () => {
    const pidBefore = (await call('remote.pid')).content;
    const controller = new AbortController();
    const pending = tools.get('remote.hang')?.execute({}, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ success: false, errorCode: 'cancelled' });
    expect((await call('remote.pid')).content).toBe(pidBefore);
  });

  it('a call the server never answers times out, and the server is restarted on the next use', async () => {
    const pidBefore = (await call('remote.pid')).content;
    const hung = await call('remote.hang');
    expect(hung).toMatchObject({
      success: false,
      errorCode: 'timed_out',
      content:
        "MCP server 'remote' did not answer within 1s while calling tool 'hang'; it will be restarted on the next use",
    });
    expect((await call('remote.pid')).content).not.toBe(pidBefore);
  });

  it('close() ends the child processes; later calls fail clearly', async () => {
    const pid = Number((await call('remote.pid')).content);
    await source.close();
    expect(isAlive(pid)).toBe(false);
    expect(await call('remote.echo', { text: 'x' })).toMatchObject({
      success: false,
      content: "The connection to MCP server 'remote' was closed",
    });
    await source.close();
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
