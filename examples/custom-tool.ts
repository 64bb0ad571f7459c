// tools.md "Tool Registration": a custom tool registered under its key, then used by name.
import {
  BaseTool,
  createToolSpec,
  type ToolArguments,
  ToolExecutor,
  ToolRegistry,
  type ToolResult,
  type ToolSpec,
} from '../src/index.js';

@ToolRegistry.register('my_tool')
export class MyTool extends BaseTool {
  readonly toolId = 'my_tool';

  get spec(): ToolSpec {
    return createToolSpec({
      name: 'my_tool',
      description: 'A custom tool that does something useful.',
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The input to process.' } },
        required: ['input'],
      },
      category: 'custom',
    });
  }

  async execute(params: ToolArguments): Promise<ToolResult> {
    const value = typeof params.input === 'string' ? params.input : '';
    return this.success(`Processed: ${value}`);
  }
}

// After registration the tool can be created by its key (as `jarvis ask --tools my_tool` will do).
console.log(ToolRegistry.keys().join(', ')); // "my_tool"
const tool = ToolRegistry.create('my_tool');
const executor = new ToolExecutor([tool]);
const result = await executor.execute({
  id: 'call_1',
  name: 'my_tool',
  arguments: '{"input": "this data"}',
});
console.log(result.content); // "Processed: this data"
