import {
  CustomAgent,
  NativeOpenHandsAgent,
  NativeReActAgent,
  OpenClawAgent,
  OrchestratorAgent,
  RLMAgent,
  SimpleAgent,
} from '../agents/index.js';
import {
  AgentRegistry,
  type AgentRegistryEntry,
  EngineRegistry,
  MemoryRegistry,
  type Registry,
  ToolRegistry,
  type ToolRegistryEntry,
} from '../core/index.js';
import { SQLiteMemory } from '../memory/index.js';
import {
  CancelScheduledTaskTool,
  ListScheduledTasksTool,
  PauseScheduledTaskTool,
  ResumeScheduledTaskTool,
  ScheduleTaskTool,
} from '../scheduler/index.js';
import {
  CalculatorTool,
  CodeInterpreterTool,
  FileReadTool,
  LLMTool,
  RetrievalTool,
  ThinkTool,
  WebSearchTool,
} from '../tools/index.js';
import { createEngine, ENGINE_KEYS, type EngineSettings } from './engines.js';

/**
 * The built-in tools by registry key. Tools with dependencies (`llm` an engine, `file_read` its allowed
 * directories, the scheduler tools a scheduler) take them as constructor options: `create(key, options)`.
 */
export const BUILTIN_TOOLS: ReadonlyArray<readonly [string, ToolRegistryEntry]> = [
  ['calculator', CalculatorTool],
  ['think', ThinkTool],
  ['retrieval', RetrievalTool],
  ['llm', LLMTool],
  ['file_read', FileReadTool],
  ['web_search', WebSearchTool],
  ['code_interpreter', CodeInterpreterTool],
  ['schedule_task', ScheduleTaskTool],
  ['list_scheduled_tasks', ListScheduledTasksTool],
  ['pause_scheduled_task', PauseScheduledTaskTool],
  ['resume_scheduled_task', ResumeScheduledTaskTool],
  ['cancel_scheduled_task', CancelScheduledTaskTool],
];

/**
 * Registers the built-in engine keys in the engine registry (the global one by default): each entry is a
 * factory `(settings?: EngineSettings) => Promise<InferenceEngine>`. Idempotent, like `registerBuiltins`.
 */
export function registerBuiltinEngines(engines: Registry<unknown> = EngineRegistry): void {
  for (const key of ENGINE_KEYS) {
    if (!engines.contains(key))
      engines.registerValue(key, (settings?: EngineSettings) => createEngine(key, settings));
  }
}

/**
 * Registers the built-in tools in the given registry (the global `ToolRegistry` by default). Idempotent: keys
 * already present (built-ins registered earlier, or a user's own tool under that key) are left as they are.
 */
export function registerBuiltins(tools: Registry<ToolRegistryEntry> = ToolRegistry): void {
  for (const [key, entry] of BUILTIN_TOOLS) {
    if (!tools.contains(key)) tools.registerValue(key, entry);
  }
}

/** The built-in agents by registry key (`react` is an alias of `native_react`). */
export const BUILTIN_AGENTS: ReadonlyArray<readonly [string, AgentRegistryEntry]> = [
  ['simple', SimpleAgent],
  ['orchestrator', OrchestratorAgent],
  ['openclaw', OpenClawAgent],
  ['custom', CustomAgent],
  ['native_react', NativeReActAgent],
  ['react', NativeReActAgent],
  ['native_openhands', NativeOpenHandsAgent],
  ['rlm', RLMAgent],
];

/** The built-in memory backends by registry key. */
export const BUILTIN_MEMORY_BACKENDS: ReadonlyArray<readonly [string, unknown]> = [
  ['sqlite', SQLiteMemory],
];

/** Registers the built-in memory backends in the memory registry (the global one by default); idempotent. */
export function registerBuiltinMemory(backends: Registry<unknown> = MemoryRegistry): void {
  for (const [key, entry] of BUILTIN_MEMORY_BACKENDS) {
    if (!backends.contains(key)) backends.registerValue(key, entry);
  }
}

/** Registers the built-in agents in the agent registry (the global one by default); idempotent. */
export function registerBuiltinAgents(agents: Registry<AgentRegistryEntry> = AgentRegistry): void {
  for (const [key, entry] of BUILTIN_AGENTS) {
    if (!agents.contains(key)) agents.registerValue(key, entry);
  }
}
