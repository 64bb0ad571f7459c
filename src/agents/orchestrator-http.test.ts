import { afterEach, describe, expect, it } from 'vitest';
import type { AgentStreamEvent } from '../core/index.js';
import { OpenAICompatibleEngine } from '../engine/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../testing/index.js';
import { CalculatorTool } from '../tools/index.js';
import { OrchestratorAgent } from './orchestrator.js';

const open: { server?: ScriptedOpenAIServer; engine?: OpenAICompatibleEngine } = {};

afterEach(async () => {
  await open.engine?.close();
  await open.server?.close();
  delete open.engine;
  delete open.server;
});

async function agentOnServer() {
  const server = await startScriptedOpenAIServer({
    script: [
      { toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '6*7' } }] },
      { content: '<think>done</think>The answer is 42.' },
    ],
  });
  open.server = server;
  const engine = new OpenAICompatibleEngine({ baseUrl: server.baseUrl, maxRetries: 0 });
  open.engine = engine;
  const agent = new OrchestratorAgent({
    engine,
    model: 'scripted-model',
    tools: [new CalculatorTool()],
  });
  return { server, agent };
}

describe('OrchestratorAgent over real HTTP (scripted OpenAI-compatible server)', () => {
  it('runs a tool round trip with run()', async () => {
    const { server, agent } = await agentOnServer();
    const result = await agent.run('What is 6*7?');
    expect(result.content).toBe('The answer is 42.');
    expect(result.turns).toBe(2);
    expect(result.toolResults).toMatchObject([{ toolName: 'calculator', content: '42' }]);
    const first = server.requests[0]?.body as { tools?: unknown[]; messages: unknown[] };
    expect(first.tools).toHaveLength(1);
    const second = server.requests[1]?.body as { messages: unknown[] };
    expect(second.messages).toEqual([
      { role: 'user', content: 'What is 6*7?' },
      expect.objectContaining({
        role: 'assistant',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'calculator', arguments: '{"expression":"6*7"}' },
          },
        ],
      }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'call_1', content: '42' }),
    ]);
    server.assertAllRepliesConsumed();
  });

  it('runs the same round trip with stream()', async () => {
    const { server, agent } = await agentOnServer();
    const events: AgentStreamEvent[] = [];
    for await (const event of agent.stream('What is 6*7?')) events.push(event);
    const text = events
      .filter((event) => event.type === 'text_delta' && event.turn === 2)
      .map((event) => (event.type === 'text_delta' ? event.text : ''))
      .join('');
    expect(text).toBe('The answer is 42.');
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      result: { content: 'The answer is 42.', turns: 2 },
    });
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
    server.assertAllRepliesConsumed();
  });
});
