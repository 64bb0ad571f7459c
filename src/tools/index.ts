export {
  type ArgumentCheck,
  type ArgumentValidator,
  compileArgumentValidator,
} from './argument-validator.js';
export { BaseTool } from './base-tool.js';
export { CalculatorTool } from './builtin/calculator/calculator.js';
export {
  FILE_READ_MAX_BYTES,
  FileReadTool,
  type FileReadToolOptions,
} from './builtin/file-read/file-read.js';
export { type LLMPricing, LLMTool, type LLMToolOptions } from './builtin/llm.js';
export { RetrievalTool, type RetrievalToolOptions } from './builtin/retrieval.js';
export {
  CodeInterpreterTool,
  type CodeInterpreterToolOptions,
} from './builtin/sandbox/code-interpreter.js';
export type {
  SandboxBackend,
  SandboxName,
  SandboxRequest,
  SandboxSelection,
} from './builtin/sandbox/sandbox-backend.js';
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './builtin/sandbox/sandbox-limits.js';
export {
  INSTALL_HINT,
  type SandboxBackendChoice,
  type SandboxSelectOptions,
  selectSandbox,
} from './builtin/sandbox/sandbox-select.js';
export {
  openSandboxSession,
  type SandboxHostCall,
  SandboxSession,
  type SandboxSessionExecOptions,
  type SandboxSessionExecResult,
  type SandboxSessionOpenResult,
  type SandboxSessionOptions,
  type SandboxStepEnd,
} from './builtin/sandbox/sandbox-session.js';
export { ThinkTool } from './builtin/think.js';
export {
  forbiddenAddressReason,
  type HostLookup,
  type ResolvedAddress,
} from './builtin/web/ssrf-guard.js';
export {
  type WebSearchProviderName,
  WebSearchTool,
  type WebSearchToolOptions,
} from './builtin/web/web-search.js';
export type {
  FetchLike,
  FetchLikeInit,
  FetchLikeResponse,
} from './builtin/web/web-search-provider.js';
export {
  defineTool,
  type JsonSchemaToolDefinition,
  type SchemaToolDefinition,
  type ToolOutput,
  type ToolParametersSchema,
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
export type { StandardSchemaV1 } from './standard-schema.js';
export { buildToolDescriptions, type ToolDescriptionOptions } from './tool-descriptions.js';
