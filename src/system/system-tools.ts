import {
  type InferenceEngine,
  isTool,
  JarvisError,
  type MemoryBackend,
  type Registry,
  type Tool,
  type ToolRegistryEntry,
} from '../core/index.js';
import type { TaskScheduler } from '../scheduler/index.js';
import {
  CancelScheduledTaskTool,
  ListScheduledTasksTool,
  PauseScheduledTaskTool,
  ResumeScheduledTaskTool,
  ScheduleTaskTool,
} from '../scheduler/index.js';
import {
  CodeInterpreterTool,
  FileReadTool,
  LLMTool,
  RetrievalTool,
  WebSearchTool,
} from '../tools/index.js';
import type { JarvisConfig } from './config-types.js';
import { webSearchSettings } from './tool-settings.js';
import { unknownNameMessage } from './unknown-name.js';

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

/** Builds one built-in tool class with what it depends on. */
type BuiltinFactory = (deps: ToolDependencies) => Tool;

const SCHEDULER_TOOLS = [
  ScheduleTaskTool,
  ListScheduledTasksTool,
  PauseScheduledTaskTool,
  ResumeScheduledTaskTool,
  CancelScheduledTaskTool,
] as const;

const BUILTIN_FACTORIES = new Map<unknown, BuiltinFactory>([
  [RetrievalTool, (deps) => new RetrievalTool(deps.memory ? { backend: deps.memory() } : {})],
  [
    LLMTool,
    (deps) =>
      new LLMTool(deps.engine ? { engine: deps.engine.engine, model: deps.engine.model } : {}),
  ],
  [
    FileReadTool,
    (deps) =>
      new FileReadTool({
        allowedDirs: deps.config.tools.fileReadAllowedDirs,
        allowSecrets: deps.config.tools.fileReadAllowSecretFiles,
      }),
  ],
  [
    WebSearchTool,
    (deps) =>
      new WebSearchTool(
        webSearchSettings(deps.env, {
          provider: deps.config.tools.webSearchProvider,
          baseUrl: deps.config.tools.webSearchBaseUrl,
        }),
      ),
  ],
  [CodeInterpreterTool, (deps) => deps.codeInterpreter()],
  ...SCHEDULER_TOOLS.map(
    (Tool) =>
      [
        Tool,
        (deps: ToolDependencies) => new Tool(deps.scheduler ? { scheduler: deps.scheduler() } : {}),
      ] as const,
  ),
]);

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
  const factory = BUILTIN_FACTORIES.get(entry);
  if (factory !== undefined) return factory(deps);
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
export function unknownToolError(name: string, available: readonly string[]): JarvisError {
  return new JarvisError({
    code: 'unknown_tool',
    message: unknownNameMessage('tool', name, available),
  });
}
