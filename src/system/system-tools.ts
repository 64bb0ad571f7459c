import {
  type InferenceEngine,
  isTool,
  JarvisError,
  type MemoryBackend,
  NoSuchToolError,
  type Registry,
  type Tool,
  ToolRegistry,
  type ToolRegistryEntry,
} from '../core/index.js';
import {
  CancelScheduledTaskTool,
  ListScheduledTasksTool,
  PauseScheduledTaskTool,
  ResumeScheduledTaskTool,
  type SchedulerToolOptions,
  ScheduleTaskTool,
  type TaskScheduler,
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
import {
  type BuiltinEntry,
  builtinBuilder,
  registeredClasses,
  registerMissing,
  type WritableRegistry,
} from './builtin-entry.js';
import type { JarvisConfig } from './config/index.js';
import { webSearchSettings } from './tool-settings.js';

/** What the built-in tools are built with; every dependency is fetched only when a tool needs it. */
export interface ToolDependencies {
  readonly config: JarvisConfig;
  /** The engine and model `llm` uses; undefined while listing tools (the tool then fails when called). */
  readonly engine?: { readonly engine: InferenceEngine; readonly model: string } | undefined;
  readonly memory?: (() => MemoryBackend) | undefined;
  readonly scheduler?: (() => TaskScheduler) | undefined;
  /** The one code interpreter of the system (its sandbox is chosen once). */
  readonly codeInterpreter: () => CodeInterpreterTool;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A built-in tool: its key, its class (what the tool registry holds) and how it is built with its dependencies. */
export type BuiltinToolEntry = BuiltinEntry<ToolRegistryEntry, ToolDependencies, Tool>;

/** A scheduler tool's entry: it gets the system's scheduler, opened only when the tool is built. */
function schedulerTool(
  key: string,
  Class: new (options: SchedulerToolOptions) => Tool,
): BuiltinToolEntry {
  return {
    key,
    class: Class,
    build: (deps) => new Class(deps.scheduler ? { scheduler: deps.scheduler() } : {}),
  };
}

/**
 * The built-in tools, in registration order. Tools with dependencies (`llm` an engine, `file_read` its allowed
 * directories, the scheduler tools a scheduler) get them from `build`; the registry's class alone makes them
 * without (`ToolRegistry.create('calculator')`).
 */
export const BUILTIN_TOOL_ENTRIES: readonly BuiltinToolEntry[] = [
  { key: 'calculator', class: CalculatorTool, build: () => new CalculatorTool() },
  { key: 'think', class: ThinkTool, build: () => new ThinkTool() },
  {
    key: 'retrieval',
    class: RetrievalTool,
    build: (deps) => new RetrievalTool(deps.memory ? { backend: deps.memory() } : {}),
  },
  {
    key: 'llm',
    class: LLMTool,
    build: (deps) =>
      new LLMTool(deps.engine ? { engine: deps.engine.engine, model: deps.engine.model } : {}),
  },
  {
    key: 'file_read',
    class: FileReadTool,
    build: ({ config }) =>
      new FileReadTool({
        allowedDirs: config.tools.fileReadAllowedDirs,
        allowSecrets: config.tools.fileReadAllowSecretFiles,
      }),
  },
  {
    key: 'web_search',
    class: WebSearchTool,
    build: ({ config, env }) =>
      new WebSearchTool(
        webSearchSettings(env, {
          provider: config.tools.webSearchProvider,
          baseUrl: config.tools.webSearchBaseUrl,
        }),
      ),
  },
  { key: 'code_interpreter', class: CodeInterpreterTool, build: (deps) => deps.codeInterpreter() },
  schedulerTool('schedule_task', ScheduleTaskTool),
  schedulerTool('list_scheduled_tasks', ListScheduledTasksTool),
  schedulerTool('pause_scheduled_task', PauseScheduledTaskTool),
  schedulerTool('resume_scheduled_task', ResumeScheduledTaskTool),
  schedulerTool('cancel_scheduled_task', CancelScheduledTaskTool),
];

/** Registers the built-in tools (the global `ToolRegistry` by default); a user's tool under a built-in key stays. */
export function registerBuiltinTools(
  tools: WritableRegistry<ToolRegistryEntry> = ToolRegistry,
): void {
  registerMissing(tools, registeredClasses(BUILTIN_TOOL_ENTRIES));
}

/**
 * Makes the tool registered under `name`: built-ins get their dependencies injected, other entries (a user's
 * class, factory or instance) are created without arguments. Unknown names throw, listing the available ones.
 */
export function createRegisteredTool(
  name: string,
  registry: Registry<ToolRegistryEntry>,
  deps: ToolDependencies,
): Tool {
  if (!registry.contains(name)) throw unknownToolError(name, registry.keys());
  const entry: unknown = registry.get(name);
  if (isTool(entry)) return entry;
  const build = builtinBuilder(BUILTIN_TOOL_ENTRIES, entry);
  if (build !== undefined) return build(deps);
  const tool: unknown = registry.create(name);
  if (!isTool(tool)) {
    throw new JarvisError({
      code: 'invalid_tool',
      message: `The tool registered as '${name}' did not produce a tool (an object with spec and execute)`,
    });
  }
  return tool;
}

/** The error for a tool name nobody registered, listing the available ones and suggesting the closest. */
export function unknownToolError(name: string, available: readonly string[]): NoSuchToolError {
  return new NoSuchToolError({ toolName: name, availableTools: available });
}
