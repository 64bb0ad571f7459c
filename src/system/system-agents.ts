import { CustomAgent } from '../agents/index.js';
import {
  type Agent,
  type AgentRegistryEntry,
  type Clock,
  type EventBus,
  type InferenceEngine,
  JarvisError,
  type Registry,
  type Tool,
} from '../core/index.js';
import type { ConfirmCallback } from '../tools/index.js';
import { unknownNameMessage } from './unknown-name.js';

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

/** What `jarvis agents list` says of a template agent (one that cannot be run by its registry key). */
export const TEMPLATE_AGENT_DESCRIPTION =
  'template: subclass CustomAgent in code; not runnable by name';

/** True for a registry entry that is a template to subclass (`CustomAgent` itself), not a runnable agent. */
export function isTemplateAgent(entry: unknown): boolean {
  return entry === CustomAgent;
}

/**
 * Throws unless `name` is registered and runnable: an unknown name gives `unknown_agent` (listing the runnable
 * agents, with a did-you-mean), a template such as `custom` gives `invalid_argument` saying how to use it.
 */
export function checkRunnableAgent(name: string, registry: Registry<AgentRegistryEntry>): void {
  const runnable = registry.keys().filter((key) => !isTemplateAgent(registry.get(key)));
  if (!registry.contains(name)) throw unknownAgentError(name, runnable);
  if (isTemplateAgent(registry.get(name))) throw templateAgentError(name, runnable);
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
  const { systemPrompt, confirm, clock, ...rest } = options;
  const agent: unknown = registry.create(name, {
    ...rest,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(confirm === undefined ? {} : { confirm }),
    ...(clock === undefined ? {} : { clock }),
  });
  if (!isAgent(agent)) {
    throw new JarvisError({
      code: 'invalid_agent',
      message: `The agent registered as '${name}' did not produce an agent (an object with agentId and run)`,
    });
  }
  return agent;
}

function isAgent(value: unknown): value is Agent {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Agent>;
  return typeof candidate.run === 'function';
}

/** The error for an agent name nobody registered, listing the available ones and suggesting the closest. */
export function unknownAgentError(name: string, available: readonly string[]): JarvisError {
  return new JarvisError({
    code: 'unknown_agent',
    message: unknownNameMessage('agent', name, available),
  });
}
