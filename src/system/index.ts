export type { IndexProgress, IndexSummary, SkippedPath } from '../memory/index.js';
export {
  runToDict,
  type ScheduledTask,
  type TaskRun,
  type TaskScheduler,
  taskToDict,
} from '../scheduler/index.js';
export type { SessionInfo, SessionStore, SessionTurn } from '../sessions/index.js';
export { runJson, traceJson } from '../telemetry/index.js';
export type { ConfirmationRequest, ConfirmCallback } from '../tools/index.js';
export {
  BUILTIN_AGENTS,
  BUILTIN_ENGINE_ENTRIES,
  BUILTIN_MEMORY_BACKENDS,
  BUILTIN_TOOLS,
  type BuiltinEngineEntry,
  registerAllBuiltins,
  registerBuiltinAgents,
  registerBuiltinEngines,
  registerBuiltinMemory,
  registerBuiltins,
  registerBuiltinTools,
} from './builtins.js';
export {
  type AgentConfig,
  type CodeInterpreterConfig,
  type ConfigContext,
  ConfigError,
  type ConfigLocation,
  type ConfigProblem,
  type ConfigWarning,
  configFromToml,
  configLocation,
  configSecrets,
  type EngineConfig,
  environmentSecrets,
  type InitConfigOptions,
  initConfig,
  type JarvisConfig,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  MAX_CONFIG_BYTES,
  type McpConfig,
  type McpServerConfig,
  type MemoryConfig,
  readConfigFile,
  type SchedulerConfig,
  STARTER_CONFIG,
  type TelemetryConfig,
  type ToolsConfig,
  type WriteStarterConfigOptions,
  type WrittenStarterConfig,
  writeStarterConfig,
} from './config/index.js';
export {
  type DiagnosticCheck,
  type DiagnosticStatus,
  type DiagnosticsOptions,
  type DiagnosticsReport,
  runDiagnostics,
} from './diagnostics.js';
export {
  type CommandExit,
  EMBEDDED_RUNTIME_GPUS,
  EMBEDDED_RUNTIME_VERSION,
  EmbeddedRuntimeError,
  type EmbeddedRuntimeFailure,
  type EmbeddedRuntimeGpu,
  type EmbeddedRuntimePlan,
  type EmbeddedRuntimeTarget,
  embeddedRuntimeDir,
  embeddedRuntimePackages,
  embeddedRuntimePlan,
  hasNvidiaDriver,
  type InstallEmbeddedRuntimeOptions,
  type InstalledEmbeddedRuntime,
  installEmbeddedRuntime,
  npmInstallArgs,
  type RunCommand,
  type RunCommandOptions,
  spawnCommand,
} from './embedded-runtime.js';
export { useEmbeddedRuntimeIn } from './embedded-runtime-location.js';
export { type EngineSelection, selectEngine } from './engine-selection.js';
export {
  type EmbeddedGpuSetting,
  type EmbeddedRuntimeProbe,
  type EmbeddedRuntimeProbeOptions,
  type EngineModels,
  type EngineStatus,
  type ListEngineModelsOptions,
  listEngineModels,
  missingEmbeddedRuntimeProblem,
  noModelProblem,
  OLLAMA_PULL_COMMAND,
  type ProbeEmbeddedRuntime,
  PULL_COMMAND,
  probeEmbeddedRuntime,
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
export { importModules } from './import-modules.js';
export { type MemoryResultJson, memoryResultJson } from './memory-result-json.js';
export { type ModelHubSettings, modelHubSettings } from './model-hub-settings.js';
export { NoModelError, type NoModelErrorOptions } from './no-model-error.js';
export {
  type MessageJson,
  SESSION_DOCUMENT_FORMAT,
  SESSION_DOCUMENT_VERSION,
  type SessionDocument,
  type SessionInfoJson,
  type SummaryJson,
  sessionDocument,
  sessionInfoJson,
  type TurnJson,
  turnJson,
} from './session-json.js';
export type {
  HistoryPreparer,
  SessionHistoryReport,
  SessionRunResult,
} from './session-turn.js';
export {
  openConfiguredSchedulerStore,
  openConfiguredSessionStore,
  openConfiguredTelemetryStore,
  openPostgresMemory,
  postgresOptions,
  type StorageBackendOptions,
  type TelemetryBackendOptions,
} from './storage-backends.js';
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
  BUILTIN_AGENT_ENTRIES,
  type BuiltinAgentEntry,
  checkRunnableAgent,
  createRegisteredAgent,
  isTemplateAgent,
  unknownAgentError,
} from './system-agents.js';
export {
  chooseEngine,
  chooseModel,
  type EngineChoice,
  engineSelectionOf,
  engineSettingsOf,
  type ResolvedEngine,
} from './system-engine.js';
export {
  BUILTIN_MEMORY_ENTRIES,
  type BuiltinMemoryEntry,
  createRegisteredMemory,
  type MemoryDependencies,
} from './system-memory.js';
export type { PreparedRun, RunRequest } from './system-run.js';
export {
  BUILTIN_TOOL_ENTRIES,
  type BuiltinToolEntry,
  createRegisteredTool,
  type ToolDependencies,
  unknownToolError,
} from './system-tools.js';
export {
  type AgentCatalogEntry,
  agentCatalog,
  type McpToolCatalog,
  mcpToolCatalog,
  type ToolCatalogEntry,
  type ToolCatalogOptions,
  toolCatalog,
} from './tool-catalog.js';
export { type ToolJson, toolJson } from './tool-json.js';
export { webSearchSettings, webSearchSettingsFromEnv } from './tool-settings.js';
