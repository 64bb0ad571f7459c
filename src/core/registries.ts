import type { Agent } from './agent.js';
import { type RegistrableClass, Registry } from './registry.js';
import type { Tool } from './tool.js';

/** A tool class or a factory that makes a tool. */
// biome-ignore lint/suspicious/noExplicitAny: a factory of any signature.
export type ToolRegistryEntry = RegistrableClass<Tool> | ((...args: any[]) => Tool);

/**
 * The documented global registries. They start empty and nothing registers itself on import: the built-ins
 * are added by `registerBuiltins()` (system), and tests can build isolated `Registry` instances instead.
 */
export const ToolRegistry = new Registry<ToolRegistryEntry>('ToolRegistry');

/** An agent class or a factory that makes an agent. */
// biome-ignore lint/suspicious/noExplicitAny: a factory of any signature.
export type AgentRegistryEntry = RegistrableClass<Agent> | ((...args: any[]) => Agent);

/** Global registry of agent classes (`simple`, `orchestrator`, …). */
export const AgentRegistry = new Registry<AgentRegistryEntry>('AgentRegistry');

/** Global registry of inference engine classes (`ollama`, `vllm`, …). */
export const EngineRegistry = new Registry<unknown>('EngineRegistry');

/** Global registry of memory backend classes (`sqlite`, …). */
export const MemoryRegistry = new Registry<unknown>('MemoryRegistry');
