import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../core/index.js';
import type { McpTool } from './mcp-tool.js';
import { createMcpToolSource, type McpToolSource } from './mcp-tool-source.js';
import { type RemoteHttpFixture, startRemoteHttpFixture } from './remote-http.fixture.js';

// Our client against the SDK-built fixture server over Streamable HTTP (stateless, in this process).

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startFixture(port = 0): Promise<RemoteHttpFixture> {
  const fixture = await startRemoteHttpFixture(port);
  cleanups.push(fixture.close);
  return fixture;
}

function source(url: string, timeoutMs = 5_000): McpToolSource {
  const created = createMcpToolSource([
    {
      name: 'web',
      transport: 'http',
      url,
      headers: { authorization: 'Bearer test-token' },
      prefix: 'web_',
      timeoutMs,
    },
  ]);
  cleanups.push(() => created.close());
  return created;
}

async function toolsOf(from: McpToolSource): Promise<Map<string, McpTool>> {
  const listing = await from.listTools();
  expect(listing.warnings).toEqual([]);
  return new Map(listing.tools.map((tool) => [tool.spec.name, tool]));
}

function run(tool: McpTool | undefined, args: Record<string, unknown> = {}): Promise<ToolResult> {
  if (tool === undefined) throw new Error('tool missing');
  return tool.execute(args, { signal: new AbortController().signal });
}

describe('McpToolSource over Streamable HTTP', () => {
  it('lists and calls tools with the configured prefix and headers', async () => {
    const fixture = await startFixture();
    const tools = await toolsOf(source(fixture.url));
    expect([...tools.keys()]).toContain('web_echo');
    expect(await run(tools.get('web_add'), { a: 2, b: 40 })).toMatchObject({
      success: true,
      content: '42',
    });
    expect(fixture.requests.every((headers) => headers.authorization === 'Bearer test-token')).toBe(
      true,
    );
  });

  it('a call that is never answered times out; the next call connects afresh and works', async () => {
    const fixture = await startFixture();
    const tools = await toolsOf(source(fixture.url, 300));
    const hung = await run(tools.get('web_hang'));
    expect(hung).toMatchObject({
      success: false,
      errorCode: 'timed_out',
      content:
        "MCP server 'web' did not answer within 0.3s while calling tool 'hang'; it will be restarted on the next use",
    });
    const initializesBefore = countInitializes(fixture);
    expect(await run(tools.get('web_echo'), { text: 'again' })).toMatchObject({
      success: true,
      content: 'echo: again',
    });
    expect(countInitializes(fixture)).toBe(initializesBefore + 1);
  });

  it('a server that dies mid-call fails the call at once; after it is back, the next use works', async () => {
    const fixture = await startFixture();
    const tools = await toolsOf(source(fixture.url, 15_000));
    const arrived = fixture.nextHang();
    const pending = run(tools.get('web_hang'));
    await arrived;
    await fixture.close();
    const failed = await pending;
    expect(failed).toMatchObject({ success: false, errorCode: 'execution_failed' });
    expect(failed.content).toContain("MCP server 'web' failed while calling tool 'hang'");
    expect(failed.content).toContain('restarted on the next use');
    const down = await run(tools.get('web_echo'), { text: 'x' });
    expect(down.content).toContain("Could not connect to MCP server 'web'");
    await startFixture(fixture.port);
    expect(await run(tools.get('web_echo'), { text: 'back' })).toMatchObject({
      success: true,
      content: 'echo: back',
    });
  });

  it('an unreachable server is a warning in the listing, not a throw', async () => {
    const fixture = await startFixture();
    await fixture.close();
    const listing = await source(fixture.url).listTools();
    expect(listing.tools).toEqual([]);
    expect(listing.warnings).toEqual([
      {
        server: 'web',
        message: expect.stringContaining(`Could not connect to MCP server 'web' (${fixture.url})`),
      },
    ]);
  });
});

function countInitializes(fixture: RemoteHttpFixture): number {
  // Stateless fixture: every initialize is a POST carrying no protocol-version header yet.
  return fixture.requests.filter((headers) => headers['mcp-protocol-version'] === undefined).length;
}
