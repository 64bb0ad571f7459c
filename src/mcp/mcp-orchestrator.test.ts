import { afterEach, describe, expect, it } from 'vitest';
import { OrchestratorAgent } from '../agents/index.js';
import { EventBus, type Message } from '../core/index.js';
import { assistantReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { CalculatorTool } from '../tools/index.js';
import { serveHttp } from './mcp-http.js';
import { createMcpServer } from './mcp-server.js';
import { createMcpToolSource } from './mcp-tool-source.js';
import { startRemoteHttpFixture } from './remote-http.fixture.js';

// End to end: a scripted model asks the orchestrator for an MCP tool; the call goes through our client to a
// real MCP server over HTTP on 127.0.0.1 and the answer comes back to the model.

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function lastToolMessage(messages: readonly Message[]): Message | undefined {
  return messages.filter((message) => message.role === 'tool').at(-1);
}

describe('OrchestratorAgent with MCP tools', () => {
  it('calls a tool of an external server built with the SDK and answers with its result', async () => {
    const fixture = await startRemoteHttpFixture();
    const source = createMcpToolSource([{ name: 'calc', transport: 'http', url: fixture.url }]);
    cleanups.push(async () => {
      await source.close();
      await fixture.close();
    });
    const { tools, unresolved } = await source.tools(['calc.add']);
    expect(unresolved).toEqual([]);
    const engine = new ScriptedEngine([
      toolCallReply({ id: 'call_1', name: 'calc.add', arguments: { a: 19, b: 23 } }),
      (call) => assistantReply(`The sum is ${lastToolMessage(call.messages)?.content}.`),
    ]);
    const bus = new EventBus({ recordHistory: true });
    const agent = new OrchestratorAgent({ engine, model: 'm', tools, bus });
    const result = await agent.run('What is 19 + 23?');
    expect(result.content).toBe('The sum is 42.');
    expect(result.toolResults).toMatchObject([
      { toolName: 'calc.add', success: true, content: '42' },
    ]);
    expect(engine.calls[0]?.options.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'calc.add',
          description: 'Adds two integers.',
          parameters: expect.objectContaining({ type: 'object', required: ['a', 'b'] }),
        },
      },
    ]);
    expect(bus.history.filter((event) => event.type === 'tool_call_end')).toHaveLength(1);
    engine.assertAllStepsConsumed();
  });

  it('reaches our own MCP server through our own client (both directions over HTTP)', async () => {
    const server = createMcpServer([new CalculatorTool()]);
    const http = await serveHttp(server, { port: 0 });
    const source = createMcpToolSource([
      { name: 'jarvis', transport: 'http', url: http.url, prefix: 'jarvis_' },
    ]);
    cleanups.push(async () => {
      await source.close();
      await http.close();
      await server.close();
    });
    const { tools } = await source.tools(['jarvis_calculator']);
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'jarvis_calculator', arguments: { expression: 'sqrt(144) + 3**2' } }),
      (call) => assistantReply(String(lastToolMessage(call.messages)?.content)),
    ]);
    const result = await new OrchestratorAgent({ engine, model: 'm', tools }).run('compute');
    expect(result.content).toBe('21.0');
    engine.assertAllStepsConsumed();
  });
});
