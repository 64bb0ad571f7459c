export {
  BUILTIN_AGENTS,
  BUILTIN_MEMORY_BACKENDS,
  BUILTIN_TOOLS,
  registerBuiltinAgents,
  registerBuiltinEngines,
  registerBuiltinMemory,
  registerBuiltins,
} from './builtins.js';
export {
  type ChosenEngine,
  createEngine,
  type DiscoverOptions,
  discoverEngines,
  ENGINE_KEYS,
  type EngineKey,
  type EngineSettings,
  engineAddress,
  engineSettingsFromEnv,
  type GetEngineOptions,
  getEngine,
} from './engines.js';
export { webSearchSettingsFromEnv } from './tool-settings.js';
