export type { Environment } from './env.js';
export { MAX_CONFIG_BYTES, readConfigFile } from './file.js';
export { configFromToml } from './from-toml.js';
export { type InitConfigOptions, initConfig } from './init.js';
export {
  type ConfigContext,
  type ConfigLocation,
  configLocation,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from './load.js';
export { ConfigError, type ConfigProblem, type ConfigWarning } from './problems.js';
export type {
  AgentConfig,
  CodeInterpreterConfig,
  EngineConfig,
  JarvisConfig,
  McpConfig,
  McpServerConfig,
  MemoryConfig,
  SchedulerConfig,
  StorageConfig,
  TelemetryConfig,
  ToolsConfig,
} from './schema.js';
export { configSecrets, environmentSecrets } from './secrets.js';
export {
  STARTER_CONFIG,
  type WriteStarterConfigOptions,
  type WrittenStarterConfig,
  writeStarterConfig,
} from './starter.js';
