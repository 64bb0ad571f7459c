import {
  createToolSpec,
  type ToolArguments,
  type ToolResult,
  type ToolSpec,
} from '../../core/index.js';
import { BaseTool } from '../base-tool.js';

/** A zero-cost reasoning scratchpad: the thought is echoed back as the result. */
export class ThinkTool extends BaseTool {
  readonly toolId = 'think';
  readonly spec: ToolSpec = createToolSpec({
    name: 'think',
    description: 'A reasoning scratchpad. Think through a problem step by step. Input is echoed.',
    parameters: {
      type: 'object',
      properties: {
        thought: { type: 'string', description: 'Your reasoning or thought process.' },
      },
      required: ['thought'],
    },
    category: 'reasoning',
  });

  override async execute(params: ToolArguments): Promise<ToolResult> {
    const thought = params.thought;
    return this.success(thought === undefined || thought === null ? '' : String(thought));
  }
}
