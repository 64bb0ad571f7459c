// A small external MCP server for the client tests, built with the SDK's own McpServer (not a test file).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** What the fixture does when its `crash` tool is called (a stdio child exits; in-process tests must not). */
export interface RemoteFixtureOptions {
  readonly onCrash: () => void;
  /** Tells the test a `hang` call has arrived. */
  readonly onHang?: () => void;
}

const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Builds the fixture server: echo, add, pid, fail, image, crash and hang. */
export function createRemoteFixtureServer(options: RemoteFixtureOptions): McpServer {
  const server = new McpServer({ name: 'remote-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the text.', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two integers.',
      inputSchema: { a: z.number().int(), b: z.number().int() },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('pid', { description: 'The process id of the server.' }, () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool('fail', { description: 'Always reports an error.' }, () => ({
    content: [{ type: 'text', text: 'the disk is on fire' }],
    isError: true,
  }));
  server.registerTool('image', { description: 'Returns a picture and a caption.' }, () => ({
    content: [
      { type: 'text', text: 'a red dot' },
      { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
    ],
  }));
  server.registerTool('crash', { description: 'Makes the server die mid-call.' }, () => {
    options.onCrash();
    return new Promise<never>(() => undefined);
  });
  server.registerTool('hang', { description: 'Never answers.' }, () => {
    options.onHang?.();
    return new Promise<never>(() => undefined);
  });
  return server;
}
