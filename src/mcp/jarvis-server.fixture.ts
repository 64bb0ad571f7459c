// Our MCP server over stdio for the server tests (`node --import tsx jarvis-server.fixture.ts [flags]`); not a test.
import { CalculatorTool, ThinkTool } from '../tools/index.js';
import { fixtureTools } from './jarvis-tools.fixture.js';
import { createMcpServer } from './mcp-server.js';
import { serveStdio } from './mcp-stdio.js';

const server = createMcpServer([new CalculatorTool(), new ThinkTool(), ...fixtureTools()], {
  allowConfirmation: process.argv.includes('--allow-confirmation'),
});
const handle = await serveStdio(server);
await handle.closed;
await server.close();
