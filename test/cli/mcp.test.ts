import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/cli-build.js';

// `jarvis mcp serve` end to end: the MCP SDK's own client against the built CLI, over stdio and Streamable HTTP.

let home: string;
let env: Record<string, string>;
const clients: Client[] = [];
const live = new Set<ChildProcess>();

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'jarvis-e2e-mcp-'));
  env = { PATH: process.env.PATH ?? '', HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') };
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const child of live) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
});

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'jarvis-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Spawns `jarvis mcp serve --http 0 …` and resolves with the URL it prints on stderr. */
function serveHttp(args: readonly string[]) {
  const child = spawn(process.execPath, [BUILT_CLI, 'mcp', 'serve', '--http', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const url = new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /over MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exit.then(() => reject(new Error(`jarvis mcp serve ended early; stderr:\n${stderr}`)));
  });
  return { child, url, exit, output: () => ({ stdout, stderr }) };
}

describe('jarvis mcp serve (built CLI, MCP SDK client)', () => {
  it('over stdio: lists the tools and calls the calculator', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BUILT_CLI, 'mcp', 'serve', '--tools', 'calculator,think'],
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = await connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['calculator', 'think']);
    expect(tools[0]?.description).toMatch(/math/i);
    expect(
      text(await client.callTool({ name: 'calculator', arguments: { expression: '2+2' } })),
    ).toBe('4');
    const invalid = await client.callTool({ name: 'calculator', arguments: {} });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/expression/);
    expect(stderr).toContain('Serving 2 tool(s) [calculator, think] over MCP on stdio');
  });

  it('over Streamable HTTP on a free port: lists, calls, and stops cleanly on SIGTERM', async () => {
    const server = serveHttp(['--tools', 'calculator']);
    const client = await connect(new StreamableHTTPClientTransport(new URL(await server.url)));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['calculator']);
    const result = await client.callTool({
      name: 'calculator',
      arguments: { expression: 'sqrt(144) + 3**2' },
    });
    expect(text(result)).toBe('21.0');
    await client.close();
    clients.splice(0);

    server.child.kill('SIGTERM');
    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.output().stdout).toBe('');
    expect(server.output().stderr).toMatch(/Stopping\.\n$/);
  });
});
