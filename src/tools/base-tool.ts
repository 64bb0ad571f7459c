import {
  type OpenAIFunctionTool,
  type Tool,
  type ToolArguments,
  type ToolContext,
  type ToolErrorCode,
  type ToolResult,
  type ToolResultExtra,
  type ToolSpec,
  toOpenAIFunction,
  toolFailure,
  toolSuccess,
} from '../core/index.js';

/**
 * Abstract helper for tools written as classes (the seeds' `BaseTool`): subclasses give `toolId`, `spec` and
 * `execute`; the base class adds `toOpenAIFunction()` and result helpers.
 */
export abstract class BaseTool implements Tool {
  abstract readonly toolId: string;
  abstract readonly spec: ToolSpec;

  /** Runs the tool with already-validated arguments. */
  abstract execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult>;

  /** The tool in OpenAI function-calling format. */
  toOpenAIFunction(): OpenAIFunctionTool {
    return toOpenAIFunction(this.spec);
  }

  /** A successful result of this tool. */
  protected success(content: string, extra?: ToolResultExtra): ToolResult {
    return toolSuccess(this.toolId, content, extra);
  }

  /** A failed result of this tool (`tool_error` unless another code fits better). */
  protected failure(
    content: string,
    errorCode: ToolErrorCode = 'tool_error',
    extra?: ToolResultExtra,
  ): ToolResult {
    return toolFailure(this.toolId, errorCode, content, extra);
  }
}
