// tools.md "ToolExecutor": dispatch a model's tool call and watch the events.
import { CalculatorTool, EventBus, ThinkTool, ToolExecutor } from '../src/index.js';

const bus = new EventBus();
bus.subscribe('tool_call_end', (event) => {
  console.log(`[${event.type}] ${event.data.toolName} success=${event.data.success}`);
});

const executor = new ToolExecutor([new CalculatorTool(), new ThinkTool()], { bus });

// OpenAI-format tool definitions, ready to send to an engine.
const openaiTools = executor.getOpenAITools();
console.log(openaiTools.map((tool) => tool.function.name).join(', ')); // "calculator, think"

const result = await executor.execute({
  id: 'call_1',
  name: 'calculator',
  arguments: '{"expression": "2+2"}',
});
console.log(result.content); // "4"
