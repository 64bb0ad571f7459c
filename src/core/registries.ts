import type { Agent } from './agent.js';
import type { InferenceEngine } from './engine.js';
import type { MemoryBackend } from './memory.js';
import { type RegistrableClass, Registry } from './registry.js';
import type { Tool } from './tool.js';

// biome-ignore lint/suspicious/noExplicitAny: a factory of any signature.
type AnyFactory<T> = (...args: any[]) => T;

/** A tool class or a factory that makes a tool. */
export type ToolRegistryEntry = RegistrableClass<Tool> | AnyFactory<Tool>;

/** An agent class or a factory that makes an agent. */
export type AgentRegistryEntry = RegistrableClass<Agent> | AnyFactory<Agent>;

/** An engine class or a factory that makes an engine from the engine settings (it may be async). */
export type EngineRegistryEntry =
  | RegistrableClass<InferenceEngine>
  | AnyFactory<InferenceEngine | Promise<InferenceEngine>>;

/** A memory backend class or a factory that makes a backend from `{ dbPath, bus }`. */
export type MemoryRegistryEntry = RegistrableClass<MemoryBackend> | AnyFactory<MemoryBackend>;

/** The four registries of tools, agents, engines and memory backends. */
export interface RegistrySet {
  readonly tools: Registry<ToolRegistryEntry>;
  readonly agents: Registry<AgentRegistryEntry>;
  readonly engines: Registry<EngineRegistryEntry>;
  readonly memory: Registry<MemoryRegistryEntry>;
}

type GlobalRegistries = RegistrySet;

/** A new, empty set of registries, for tests and embedders that must not touch the process's global ones. */
export function createRegistries(): RegistrySet {
  return {
    tools: new Registry<ToolRegistryEntry>('tools'),
    agents: new Registry<AgentRegistryEntry>('agents'),
    engines: new Registry<EngineRegistryEntry>('engines'),
    memory: new Registry<MemoryRegistryEntry>('memory'),
  };
}

/**
 * The one set of global registries of the process, kept under a well-known symbol so that every copy of
 * this package shares it: the bundled `jarvis` CLI and the library that a module loaded with `--import`
 * registers its tools through must see the same registries.
 */
const GLOBAL_KEY = Symbol.for('openjarvis.registries.v1');
const holder = globalThis as { [GLOBAL_KEY]?: GlobalRegistries };
holder[GLOBAL_KEY] ??= {
  tools: new Registry<ToolRegistryEntry>('ToolRegistry'),
  agents: new Registry<AgentRegistryEntry>('AgentRegistry'),
  engines: new Registry<EngineRegistryEntry>('EngineRegistry'),
  memory: new Registry<MemoryRegistryEntry>('MemoryRegistry'),
};
const shared: GlobalRegistries = holder[GLOBAL_KEY];

/**
 * The documented global registries. They start empty and nothing registers itself on import: the built-ins
 * are added by `registerBuiltinTools()` and its siblings (system), and tests can build isolated `Registry`
 * instances instead.
 */
export const ToolRegistry: Registry<ToolRegistryEntry> = shared.tools;

/** Global registry of agent classes (`simple`, `orchestrator`, …). */
export const AgentRegistry: Registry<AgentRegistryEntry> = shared.agents;

/** Global registry of inference engine factories (`ollama`, `vllm`, …): each makes an engine from settings. */
export const EngineRegistry: Registry<EngineRegistryEntry> = shared.engines;

/** Global registry of memory backend classes (`sqlite`, …): each makes a backend from `{ dbPath, bus }`. */
export const MemoryRegistry: Registry<MemoryRegistryEntry> = shared.memory;
