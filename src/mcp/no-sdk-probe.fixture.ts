import { readdirSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';

// Run as `node --import tsx src/mcp/no-sdk-probe.fixture.ts` from the repo root: makes the MCP SDK unresolvable
// (as when it is not installed), imports every src/mcp module and the package root, then uses MCP features;
// prints one JSON line with what happened.

const BLOCK_SDK = `
export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@modelcontextprotocol/sdk' || specifier.startsWith('@modelcontextprotocol/sdk/')) {
    // Resolved from a folder with no node_modules, so Node throws its own "Cannot find package" error.
    return nextResolve(specifier, { ...context, parentURL: 'file:///openjarvis-no-sdk-probe/probe.mjs' });
  }
  return nextResolve(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(BLOCK_SDK)}`);

const here = join(process.cwd(), 'src', 'mcp');
const load = (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(path).href);

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
    return 'resolved';
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { code, message };
  }
}

const modules = readdirSync(here).filter(
  (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('.fixture.'),
);
for (const file of modules) await load(join(here, file));
const root = await load(join(process.cwd(), 'src', 'index.ts'));
const mcp = {
  ...((await load(join(here, 'mcp-server.ts'))) as typeof import('./mcp-server.js')),
  ...((await load(join(here, 'mcp-stdio.ts'))) as typeof import('./mcp-stdio.js')),
  ...((await load(join(here, 'mcp-http.ts'))) as typeof import('./mcp-http.js')),
  ...((await load(join(here, 'mcp-connection.ts'))) as typeof import('./mcp-connection.js')),
  ...((await load(join(here, 'mcp-tool-source.ts'))) as typeof import('./mcp-tool-source.js')),
};

const server = mcp.createMcpServer([]);
const stdio = await outcome(() =>
  mcp.serveStdio(server, { stdin: new PassThrough(), stdout: new PassThrough() }),
);
const http = await outcome(() => mcp.serveHttp(server, { port: 0 }));
const connection = new mcp.McpConnection({
  server: { name: 'files', transport: 'stdio', command: process.execPath },
});
const call = await outcome(() => connection.callTool('read', {}));
await connection.close();
const source = mcp.createMcpToolSource([
  { name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp' },
]);
const listing = await source.listTools();
await source.close();
const direct = await outcome(() => import('@modelcontextprotocol/sdk/types.js'));

process.stdout.write(
  `${JSON.stringify({ modules, rootExports: Object.keys(root).length, stdio, http, call, warnings: listing.warnings, direct })}\n`,
);
