// agents.md "OrchestratorAgent": a tool-calling run against a real HTTP model server. The server here is the
// scripted fake from openjarvis/testing, so the example runs anywhere; point `baseUrl` at vLLM, llama.cpp or
// LM Studio (or use OllamaEngine) to talk to a real model.
import {
  CalculatorTool,
  EventBus,
  OpenAICompatibleEngine,
  OrchestratorAgent,
} from '../src/index.js';
import { startScriptedOpenAIServer } from '../src/testing/index.js';

const server = await startScriptedOpenAIServer({
  script: [
    { toolCalls: [{ name: 'calculator', arguments: { expression: '340 * 15 / 100' } }] },
    { content: '15% of 340 is 51.' },
  ],
});
const engine = new OpenAICompatibleEngine({ baseUrl: server.baseUrl, engineId: 'vllm' });
const bus = new EventBus();
bus.subscribe('tool_call_end', (event) => {
  console.log(`[tool] ${event.data.toolName} -> ${event.data.result.content}`);
});

const agent = new OrchestratorAgent({
  engine,
  model: 'qwen3:8b',
  tools: [new CalculatorTool()],
  bus,
});
const result = await agent.run('What is 15% of 340?');
console.log(result.content);
console.log(`turns=${result.turns} tool calls=${result.toolResults.length}`);

await engine.close();
await server.close();
