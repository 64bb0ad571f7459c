export {
  type ArgumentCheck,
  type ArgumentValidator,
  compileArgumentValidator,
} from './argument-validator.js';
export { BaseTool } from './base-tool.js';
export { CalculatorTool } from './builtin/calculator.js';
export { ThinkTool } from './builtin/think.js';
export {
  defineTool,
  type JsonSchemaToolDefinition,
  type ToolOutput,
  type ZodToolDefinition,
} from './define-tool.js';
export {
  type ConfirmationRequest,
  type ConfirmCallback,
  type ExecuteAllOptions,
  type ExecuteOptions,
  type ToolCallInput,
  ToolExecutor,
  type ToolExecutorOptions,
} from './executor.js';
export { type CappedOutput, capOutput } from './output-cap.js';
export { type ParsedArguments, parseToolArguments } from './parse-arguments.js';
export { buildToolDescriptions, type ToolDescriptionOptions } from './tool-descriptions.js';
