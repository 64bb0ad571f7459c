import {
  AgentRegistry,
  type AgentRegistryEntry,
  EngineRegistry,
  type InferenceEngine,
  MemoryRegistry,
  type ToolRegistryEntry,
} from '../core/index.js';
import { createEngine, ENGINE_KEYS, type EngineKey } from './builtin-engines.js';
import { registeredClasses, registerMissing, type WritableRegistry } from './builtin-entry.js';
import type { EngineSettings } from './engine-settings.js';
import type { SystemRegistries } from './system.js';
import { BUILTIN_AGENT_ENTRIES } from './system-agents.js';
import { BUILTIN_MEMORY_ENTRIES, type MemoryBackendClass } from './system-memory.js';
import { BUILTIN_TOOL_ENTRIES, registerBuiltinTools } from './system-tools.js';

/**
 * A built-in engine: its key and how it is made from the engine settings. The engine registry holds `build`
 * itself (five keys share one engine class: the key decides the address and the wire details).
 */
export interface BuiltinEngineEntry {
  readonly key: EngineKey;
  readonly build: (settings?: EngineSettings) => Promise<InferenceEngine>;
}

/** The built-in engines, in registration order. */
export const BUILTIN_ENGINE_ENTRIES: readonly BuiltinEngineEntry[] = ENGINE_KEYS.map((key) => ({
  key,
  build: (settings?: EngineSettings) => createEngine(key, settings),
}));

// Defined beside the tool table so that registering the tools loads no agent, engine or memory module.
export { registerBuiltinTools } from './system-tools.js';

/** Registers the built-in agents (the global `AgentRegistry` by default); idempotent. */
export function registerBuiltinAgents(
  agents: WritableRegistry<AgentRegistryEntry> = AgentRegistry,
): void {
  registerMissing(agents, registeredClasses(BUILTIN_AGENT_ENTRIES));
}

/** Registers the built-in engine factories (the global `EngineRegistry` by default); idempotent. */
export function registerBuiltinEngines(
  engines: WritableRegistry<
    (settings?: EngineSettings) => Promise<InferenceEngine>
  > = EngineRegistry,
): void {
  registerMissing(
    engines,
    BUILTIN_ENGINE_ENTRIES.map((entry) => [entry.key, entry.build] as const),
  );
}

/** Registers the built-in memory backends (the global `MemoryRegistry` by default); idempotent. */
export function registerBuiltinMemory(
  backends: WritableRegistry<MemoryBackendClass> = MemoryRegistry,
): void {
  registerMissing(backends, registeredClasses(BUILTIN_MEMORY_ENTRIES));
}

/** Registers every built-in (tools, agents, engines, memory backends) in the given registries; idempotent. */
export function registerAllBuiltins(registries: SystemRegistries): void {
  registerBuiltinTools(registries.tools);
  registerBuiltinAgents(registries.agents);
  registerBuiltinEngines(registries.engines);
  registerBuiltinMemory(registries.memory);
}

/** @deprecated Use `registerBuiltinTools` (this registers the built-in tools only). */
export const registerBuiltins: (tools?: WritableRegistry<ToolRegistryEntry>) => void =
  registerBuiltinTools;

/** @deprecated Use `BUILTIN_TOOL_ENTRIES`: the built-in tools as `[key, class]` pairs. */
export const BUILTIN_TOOLS: ReadonlyArray<readonly [string, ToolRegistryEntry]> =
  registeredClasses(BUILTIN_TOOL_ENTRIES);

/** @deprecated Use `BUILTIN_AGENT_ENTRIES`: the built-in agents as `[key, class]` pairs. */
export const BUILTIN_AGENTS: ReadonlyArray<readonly [string, AgentRegistryEntry]> =
  registeredClasses(BUILTIN_AGENT_ENTRIES);

/** @deprecated Use `BUILTIN_MEMORY_ENTRIES`: the built-in memory backends as `[key, class]` pairs. */
export const BUILTIN_MEMORY_BACKENDS: ReadonlyArray<readonly [string, unknown]> =
  registeredClasses(BUILTIN_MEMORY_ENTRIES);
