import type { Agent } from './agent.js';
import { type RegistrableClass, Registry } from './registry.js';
import type { Tool } from './tool.js';

/** A tool class or a factory that makes a tool. */
// biome-ignore lint/suspicious/noExplicitAny: a factory of any signature.
export type ToolRegistryEntry = RegistrableClass<Tool> | ((...args: any[]) => Tool);

/** An agent class or a factory that makes an agent. */
// biome-ignore lint/suspicious/noExplicitAny: a factory of any signature.
export type AgentRegistryEntry = RegistrableClass<Agent> | ((...args: any[]) => Agent);

interface GlobalRegistries {
  readonly tools: Registry<ToolRegistryEntry>;
  readonly agents: Registry<AgentRegistryEntry>;
  readonly engines: Registry<unknown>;
  readonly memory: Registry<unknown>;
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
  engines: new Registry<unknown>('EngineRegistry'),
  memory: new Registry<unknown>('MemoryRegistry'),
};
const shared: GlobalRegistries = holder[GLOBAL_KEY];

/**
 * The documented global registries. They start empty and nothing registers itself on import: the built-ins
 * are added by `registerBuiltins()` (system), and tests can build isolated `Registry` instances instead.
 */
export const ToolRegistry: Registry<ToolRegistryEntry> = shared.tools;

/** Global registry of agent classes (`simple`, `orchestrator`, …). */
export const AgentRegistry: Registry<AgentRegistryEntry> = shared.agents;

/** Global registry of inference engine classes (`ollama`, `vllm`, …). */
export const EngineRegistry: Registry<unknown> = shared.engines;

/** Global registry of memory backend classes (`sqlite`, …). */
export const MemoryRegistry: Registry<unknown> = shared.memory;
