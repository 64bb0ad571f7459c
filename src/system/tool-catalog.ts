import { describeError, type JsonSchema, type ToolSpec } from '../core/index.js';
import { CodeInterpreterTool } from '../tools/index.js';
import type { JarvisSystem } from './system.js';
import { createRegisteredTool, type ToolDependencies } from './system-tools.js';
import { isTemplateAgent, TEMPLATE_AGENT_DESCRIPTION } from './template-agent.js';

/** One registered tool as `jarvis tools list` shows it (from its spec). */
export interface ToolCatalogEntry {
  /** The registry key: what `--tools` and `AskOptions.tools` accept. */
  readonly name: string;
  readonly category: string;
  readonly description: string;
  readonly requiresConfirmation: boolean;
  /** Estimated cost per call in US dollars. */
  readonly costEstimate: number;
  /** Estimated latency per call in seconds. */
  readonly latencyEstimate: number;
  readonly parameters: JsonSchema;
  /** Set when the tool could not be built (a custom tool whose constructor needs arguments, …). */
  readonly problem?: string;
}

/** One registered agent: its key and the class (or factory) registered under it. */
export interface AgentCatalogEntry {
  readonly key: string;
  readonly className: string;
  /** True for the agent used when none is named (`[agent] default_agent`). */
  readonly isDefault: boolean;
  /** True for a template to subclass in code (`custom`): listed, but not runnable by its key. */
  readonly template: boolean;
  /** Set for templates: `template: subclass CustomAgent in code; not runnable by name`. */
  readonly description?: string;
}

/** Options of `toolCatalog`. */
export interface ToolCatalogOptions {
  /** Environment the web_search provider is chosen from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What a catalog needs of a system: its config and registries (nothing is opened). */
export type CatalogSource = Pick<JarvisSystem, 'config' | 'registries'>;

/**
 * Every registered tool, sorted by name, built without an engine, memory or scheduler so that listing them
 * opens no database, probes no engine and chooses no sandbox.
 */
export function toolCatalog(
  system: CatalogSource,
  options: ToolCatalogOptions = {},
): readonly ToolCatalogEntry[] {
  const deps: ToolDependencies = {
    config: system.config,
    codeInterpreter: () => new CodeInterpreterTool(),
    env: options.env ?? process.env,
  };
  const names = [...system.registries.tools.keys()].sort();
  return names.map((name) => catalogEntry(name, system, deps));
}

/** A tool's catalog entry from its spec. */
function catalogEntryOf(name: string, spec: ToolSpec): ToolCatalogEntry {
  return {
    name,
    category: spec.category,
    description: spec.description,
    requiresConfirmation: spec.requiresConfirmation,
    costEstimate: spec.costEstimate,
    latencyEstimate: spec.latencyEstimate,
    parameters: spec.parameters,
  };
}

/** What `mcpToolCatalog` found: the tools of the configured MCP servers, and the servers that failed. */
export interface McpToolCatalog {
  readonly entries: readonly ToolCatalogEntry[];
  readonly warnings: readonly { readonly server: string; readonly message: string }[];
}

/** The tools of every configured MCP server (connecting them); a server that fails is a warning. */
export async function mcpToolCatalog(
  system: Pick<JarvisSystem, 'mcpTools'>,
  signal?: AbortSignal,
): Promise<McpToolCatalog> {
  const listing = await system.mcpTools(signal);
  const entries = listing.tools.map((tool) => catalogEntryOf(tool.spec.name, tool.spec));
  return { entries, warnings: listing.warnings };
}

function catalogEntry(
  name: string,
  system: CatalogSource,
  deps: ToolDependencies,
): ToolCatalogEntry {
  try {
    return catalogEntryOf(name, createRegisteredTool(name, system.registries.tools, deps).spec);
  } catch (error) {
    return {
      name,
      category: '',
      description: '',
      requiresConfirmation: false,
      costEstimate: 0,
      latencyEstimate: 0,
      parameters: {},
      problem: `could not be built: ${describeError(error)}`,
    };
  }
}

/** Every registered agent, sorted by key, with the name of the class or factory behind it; templates are marked. */
export function agentCatalog(system: CatalogSource): readonly AgentCatalogEntry[] {
  return [...system.registries.agents.items()]
    .map(([key, entry]): AgentCatalogEntry => {
      const template = isTemplateAgent(entry);
      return {
        key,
        className: entryName(entry),
        isDefault: key === system.config.agent.default,
        template,
        ...(template ? { description: TEMPLATE_AGENT_DESCRIPTION } : {}),
      };
    })
    .sort((left, right) => left.key.localeCompare(right.key));
}

/** The class or function name of a registry entry; an instance gives its constructor's name. */
function entryName(entry: unknown): string {
  if (typeof entry === 'function') return entry.name || '(anonymous)';
  if (typeof entry === 'object' && entry !== null) {
    const constructorName = (entry as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof constructorName === 'string' && constructorName !== '') return constructorName;
  }
  return '(value)';
}
