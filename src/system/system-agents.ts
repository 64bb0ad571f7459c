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

/** Makes the agent registered under `name`; unknown names throw, listing the available agents. */
export function createRegisteredAgent(
  name: string,
  registry: Registry<AgentRegistryEntry>,
  options: AgentBuildOptions,
): Agent {
  if (!registry.contains(name)) throw unknownAgentError(name, registry.keys());
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

/** The error for an agent name nobody registered. */
export function unknownAgentError(name: string, available: readonly string[]): JarvisError {
  return new JarvisError({
    code: 'unknown_agent',
    message: `Unknown agent '${name}'. Available: ${[...available].sort().join(', ') || 'none'}`,
  });
}
