import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../test/support/bundled-script.js';
import { CalculatorTool } from '../tools/index.js';

// The SDK's own client against our server running as a real child process over stdio (bundled, run by `node`).

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'jarvis-server.fixture.ts');

let client: Client;
let transport: StdioClientTransport;
let stderr = '';

beforeAll(async () => {
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [await bundledScript(FIXTURE)],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'sdk-test-client', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((block) => block.text ?? `<${block.type}>`).join('\n');
}

describe('our MCP server over stdio, seen by the SDK client', () => {
  it('introduces itself and lists every tool with its description and JSON Schema', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'openjarvis' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'think',
      'slow',
      'wait',
      'guarded',
    ]);
    const calculator = new CalculatorTool().spec;
    expect(tools[0]).toMatchObject({
      description: calculator.description,
      inputSchema: calculator.parameters,
    });
    // A tool without a schema is still published as an object schema, as MCP requires.
    expect(tools[2]?.inputSchema).toEqual({ type: 'object' });
  });

  it('runs a call through the executor and answers with text', async () => {
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '2+2' } });
    expect(result).toEqual({ content: [{ type: 'text', text: '4' }], isError: false });
  });

  it('reports invalid arguments as an error result carrying the validation message', async () => {
    const result = await client.callTool({ name: 'calculator', arguments: { expresion: '2+2' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Invalid arguments for tool 'calculator'");
    expect(text(result)).toContain("missing required argument 'expression'");
  });

  it('reports an unknown tool as an error result naming the available ones', async () => {
    const result = await client.callTool({ name: 'nope', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Unknown tool: nope (available tools: calculator, think, slow, wait, guarded)',
    );
  });

  it("applies the tool's timeout", async () => {
    const result = await client.callTool({ name: 'slow', arguments: {} });
    expect(result).toEqual({
      content: [{ type: 'text', text: "Tool 'slow' timed out after 0.2s." }],
      isError: true,
    });
  });

  it('refuses a tool that requires confirmation, naming the flag that allows it', async () => {
    const result = await client.callTool({ name: 'guarded', arguments: { target: 'x' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Tool 'guarded' requires confirmation");
    expect(text(result)).toContain('--allow-confirmation');
  });

  it('keeps serving after failures and writes nothing to stderr', async () => {
    const result = await client.callTool({ name: 'think', arguments: { thought: 'still here' } });
    expect(text(result)).toBe('still here');
    expect(stderr).toBe('');
  });
});
