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
  type Agent,
  type AgentRegistryEntry,
  type Clock,
  type EventBus,
  type InferenceEngine,
  JarvisError,
  NoSuchAgentError,
  type Registry,
  type Tool,
} from '../core/index.js';
import type { ConfirmCallback } from '../tools/index.js';
import { type BuiltinEntry, builtinBuilder } from './builtin-entry.js';
import { isTemplateAgent } from './template-agent.js';

/** Everything an agent is constructed with; each agent class takes the options it knows. */
export interface AgentBuildOptions {
  readonly engine: InferenceEngine;
  readonly model: string;
  readonly tools: readonly Tool[];
  readonly bus: EventBus;
  readonly temperature: number;
  readonly maxTokens: number;
  readonly maxTurns: number;
  readonly systemPrompt?: string | undefined;
  readonly confirm?: ConfirmCallback | undefined;
  readonly clock?: Clock | undefined;
}

export { isTemplateAgent, TEMPLATE_AGENT_DESCRIPTION } from './template-agent.js';

/**
 * Throws unless `name` is registered and runnable: an unknown name gives `unknown_agent` (listing the runnable
 * agents, with a did-you-mean), a template such as `custom` gives `invalid_argument` saying how to use it.
 */
export function checkRunnableAgent(name: string, registry: Registry<AgentRegistryEntry>): void {
  const known = registry.contains(name);
  if (known && !isTemplateAgent(registry.get(name))) return; // every run passes here: no list built
  const runnable = registry.keys().filter((key) => !isTemplateAgent(registry.get(key)));
  if (!known) throw unknownAgentError(name, runnable);
  throw templateAgentError(name, runnable);
}

/** The error for running a template agent by its key. */
export function templateAgentError(name: string, runnable: readonly string[]): JarvisError {
  return new JarvisError({
    code: 'invalid_argument',
    message:
      `'${name}' is a template, not an agent you can run by name: subclass CustomAgent (or BaseAgent) in code, ` +
      "override run(), register it with @AgentRegistry.register('your-agent') and run that name " +
      `(import your module with --import or \`imports\` in the config). Runnable agents: ${[...runnable].sort().join(', ') || 'none'}`,
  });
}

/** The options an agent class is constructed with: `AgentBuildOptions` without the options left unset. */
export type AgentConstructorOptions = Omit<
  AgentBuildOptions,
  'systemPrompt' | 'confirm' | 'clock'
> & { readonly systemPrompt?: string; readonly confirm?: ConfirmCallback; readonly clock?: Clock };

/** A built-in agent: its key, its class (what the agent registry holds) and how it is built. */
export type BuiltinAgentEntry = BuiltinEntry<AgentRegistryEntry, AgentConstructorOptions, Agent>;

/** An agent class's entry: the class is constructed with the build options. */
function agentEntry(
  key: string,
  Class: new (options: AgentConstructorOptions) => Agent,
): BuiltinAgentEntry {
  return { key, class: Class, build: (options) => new Class(options) };
}

/** The built-in agents, in registration order (`react` is an alias of `native_react`). */
export const BUILTIN_AGENT_ENTRIES: readonly BuiltinAgentEntry[] = [
  agentEntry('simple', SimpleAgent),
  agentEntry('orchestrator', OrchestratorAgent),
  agentEntry('openclaw', OpenClawAgent),
  agentEntry('custom', CustomAgent),
  agentEntry('native_react', NativeReActAgent),
  agentEntry('react', NativeReActAgent),
  agentEntry('native_openhands', NativeOpenHandsAgent),
  agentEntry('rlm', RLMAgent),
];

/**
 * Makes the agent registered under `name`; unknown names throw, listing the runnable agents, and a template
 * (`custom`) throws saying how to use it.
 */
export function createRegisteredAgent(
  name: string,
  registry: Registry<AgentRegistryEntry>,
  options: AgentBuildOptions,
): Agent {
  checkRunnableAgent(name, registry);
  const settled = constructorOptions(options);
  const build = builtinBuilder(BUILTIN_AGENT_ENTRIES, registry.get(name));
  const agent: unknown = build ? build(settled) : registry.create(name, settled);
  if (!isAgent(agent)) {
    throw new JarvisError({
      code: 'invalid_agent',
      message: `The agent registered as '${name}' did not produce an agent (an object with agentId and run)`,
    });
  }
  return agent;
}

/** The build options without the optional ones that are unset (agents take them as absent, not undefined). */
function constructorOptions(options: AgentBuildOptions): AgentConstructorOptions {
  const { systemPrompt, confirm, clock, ...rest } = options;
  return {
    ...rest,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(confirm === undefined ? {} : { confirm }),
    ...(clock === undefined ? {} : { clock }),
  };
}

function isAgent(value: unknown): value is Agent {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Agent>;
  return typeof candidate.run === 'function';
}

/** The error for an agent name nobody registered, listing the available ones and suggesting the closest. */
export function unknownAgentError(name: string, available: readonly string[]): NoSuchAgentError {
  return new NoSuchAgentError({ agentName: name, availableAgents: available });
}
