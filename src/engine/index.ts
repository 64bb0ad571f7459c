export {
  type ChosenEngine,
  type DiscoveredEngine,
  type EngineCandidate,
  type ProbeOptions,
  probeEngines,
} from './discovery.js';
export {
  type ChatTemplateSource,
  EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
  EmbeddedLlamaEngine,
  type EmbeddedLlamaEngineOptions,
  type EmbeddedRuntimeInfo,
  findDefaultModel,
} from './embedded/embedded-llama.js';
export { RUNTIME_INSTALL_ADVICE } from './embedded/embedded-llama-runtime.js';
export {
  addNodeLlamaCppLocation,
  findNodeLlamaCpp,
  type ImportNodeLlamaCpp,
  importNodeLlamaCppFrom,
  loadNodeLlamaCpp,
  type NodeLlamaCppModule,
  nodeLlamaCppLocations,
} from './embedded/node-llama-cpp-loader.js';
export type { ToolCallFormatLog } from './http/http-chat-engine.js';
export { HttpClient, type HttpClientOptions, type SleepFunction } from './http/http-client.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
} from './http/http-timeouts.js';
export type { EngineRequestLog, EngineRequestLogEntry } from './http/request-log.js';
export { isToolsUnsupportedError } from './http/tools-unsupported.js';
export { type CatalogModel, MODEL_CATALOG } from './models/catalog.js';
export {
  type ListLocalModelsOptions,
  type LocalModel,
  listLocalModels,
} from './models/local-models.js';
export { machineFacts } from './models/machine-facts.js';
export { formatBytes } from './models/model-file-checks.js';
export { ModelPullError, type ModelPullFailure } from './models/model-pull-error.js';
export type { PullLockHolder } from './models/pull-lock.js';
export type { PulledModel, PullModelOptions, PullProgress } from './models/pull-model.js';
export { pullModel } from './models/pull-model-on-demand.js';
export {
  describeMachine,
  type MachineFacts,
  type ModelRecommendation,
  RECOMMENDED_MODEL,
  recommendModel,
} from './models/recommend-model.js';
export { OllamaEngine, type OllamaEngineOptions } from './ollama/ollama.js';
export { OLLAMA_DEFAULT_HOST, resolveOllamaHost } from './ollama/ollama-host.js';
export {
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
} from './openai/openai-compatible.js';
export {
  TOOL_CALL_FORMATS,
  toolCallFormatsFor,
  toolCallFormatsNamed,
  UNAMBIGUOUS_FORMATS,
} from './wire/formats/family-formats.js';
export {
  type CallToWrite,
  type ToolCallExample,
  toolCallExample,
  toolInstructions,
  WRITTEN_FORMAT_NAMES,
  withToolInstructions,
  writeToolCalls,
} from './wire/formats/format-instructions.js';
export { TOOL_CALL_FORMAT_NAMES } from './wire/formats/format-names.js';
export {
  type FoundTextToolCalls,
  type ReadTextToolCallsOptions,
  readTextToolCalls,
  readVisibleText,
} from './wire/formats/read-text-tool-calls.js';
export {
  chooseToolCallFormats,
  configuredToolCallFormats,
  describeToolCallFormatChoice,
  type ModelEvidence,
  type ToolCallFormatChoice,
  type ToolCallFormatSource,
  toolCallFormatsForTemplate,
} from './wire/formats/template-formats.js';
export type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
  VisibleText,
} from './wire/formats/tool-call-format.js';
export {
  extractTextToolCalls,
  type TextToolCallOptions,
  type TextToolCalls,
} from './wire/text-tool-calls.js';
