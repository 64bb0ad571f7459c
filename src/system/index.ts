export type { IndexProgress, IndexSummary, SkippedPath } from '../memory/index.js';
export {
  runToDict,
  type ScheduledTask,
  type TaskRun,
  type TaskScheduler,
  taskToDict,
} from '../scheduler/index.js';
export type { ConfirmationRequest, ConfirmCallback } from '../tools/index.js';
export {
  BUILTIN_AGENTS,
  BUILTIN_MEMORY_BACKENDS,
  BUILTIN_TOOLS,
  registerBuiltinAgents,
  registerBuiltinEngines,
  registerBuiltinMemory,
  registerBuiltins,
} from './builtins.js';
export type { ConfigProblem } from './config-fields.js';
export { MAX_CONFIG_BYTES, readConfigFile } from './config-file.js';
export { type InitConfigOptions, initConfig } from './config-init.js';
export {
  type ConfigContext,
  ConfigError,
  type ConfigLocation,
  configFromToml,
  configLocation,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from './config-load.js';
export { configSecrets, environmentSecrets } from './config-secrets.js';
export {
  STARTER_CONFIG,
  type WriteStarterConfigOptions,
  type WrittenStarterConfig,
  writeStarterConfig,
} from './config-starter.js';
export type {
  AgentConfig,
  CodeInterpreterConfig,
  ConfigWarning,
  EngineConfig,
  JarvisConfig,
  McpConfig,
  McpServerConfig,
  MemoryConfig,
  SchedulerConfig,
  TelemetryConfig,
  ToolsConfig,
} from './config-types.js';
export {
  type DiagnosticCheck,
  type DiagnosticStatus,
  type DiagnosticsOptions,
  type DiagnosticsReport,
  runDiagnostics,
} from './diagnostics.js';
export {
  type EngineModels,
  type EngineStatus,
  type ListEngineModelsOptions,
  listEngineModels,
  type SurveyEnginesOptions,
  surveyEngines,
} from './engine-survey.js';
export {
  type ChosenEngine,
  createEngine,
  type DiscoverOptions,
  discoverEngines,
  ENGINE_KEYS,
  type EngineKey,
  type EngineRequestLogCallback,
  type EngineSettings,
  engineAddress,
  engineSettingsFromEnv,
  type GetEngineOptions,
  getEngine,
  OPENAI_API_BASE_URL,
} from './engines.js';
export {
  type BuildSystemOptions,
  buildSystem,
  JarvisSystem,
  type MemoryIndexOptions,
  type SystemRegistries,
  type SystemRunResult,
} from './system.js';
export {
  type AgentBuildOptions,
  checkRunnableAgent,
  createRegisteredAgent,
  isTemplateAgent,
  unknownAgentError,
} from './system-agents.js';
export {
  chooseEngine,
  chooseModel,
  type EngineChoice,
  engineSettingsOf,
  type ResolvedEngine,
} from './system-engine.js';
export type { PreparedRun, RunRequest } from './system-run.js';
export { createRegisteredTool, type ToolDependencies, unknownToolError } from './system-tools.js';
export {
  type AgentCatalogEntry,
  agentCatalog,
  type McpToolCatalog,
  mcpToolCatalog,
  type ToolCatalogEntry,
  type ToolCatalogOptions,
  toolCatalog,
} from './tool-catalog.js';
export { webSearchSettings, webSearchSettingsFromEnv } from './tool-settings.js';
