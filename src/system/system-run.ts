import {
  type Agent,
  type AgentContext,
  type AgentRunOptions,
  Conversation,
  createAgentContext,
  type EventBus,
  type MemoryBackend,
  type Tool,
} from '../core/index.js';
import { buildContextMessage } from '../memory/index.js';
import type { JarvisConfig } from './config/index.js';
import type { ResolvedEngine } from './system-engine.js';

/** What one question is run with (the SDK's `AskOptions`); everything left out comes from the config. */
export interface RunRequest {
  /** Agent registry key; default: `orchestrator` when tools are given, else the configured default agent. */
  readonly agent?: string | undefined;
  /** Tool names (built-in, registered or `<server>.<tool>` from MCP) or tool objects. */
  readonly tools?: readonly (string | Tool)[] | undefined;
  readonly temperature?: number | undefined;
  readonly maxTokens?: number | undefined;
  readonly maxTurns?: number | undefined;
  readonly systemPrompt?: string | undefined;
  /** Inject what memory knows about the question (default: the config's `context_injection`). */
  readonly context?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The id the run's trace is kept under (see `AgentRunOptions.runId`); default: a fresh one. */
  readonly runId?: string | undefined;
}

/** The agent's run options of a request: its signal and run id. */
export function agentRunOptions(request: RunRequest): AgentRunOptions {
  return {
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.runId === undefined ? {} : { runId: request.runId }),
  };
}

/** A run ready to start: the agent, its context, and the engine it uses. */
export interface PreparedRun {
  readonly agent: Agent;
  readonly agentName: string;
  readonly context: AgentContext;
  readonly engine: ResolvedEngine;
  readonly tools: readonly Tool[];
}

/** The tools a run gets: the request's, else the config's default tools. */
export function requestedTools(
  request: RunRequest,
  config: JarvisConfig,
): readonly (string | Tool)[] {
  return request.tools ?? config.agent.tools;
}

/** The agent a run uses: the named one; `orchestrator` when tools are given; else the configured default. */
export function chooseAgentName(
  request: RunRequest,
  config: JarvisConfig,
  tools: readonly unknown[],
): string {
  if (request.agent !== undefined && request.agent !== '') return request.agent;
  return tools.length > 0 ? 'orchestrator' : config.agent.default;
}

/** The agent context: memory's context message first when injection is on and memory has something. */
export async function buildRunContext(
  query: string,
  request: RunRequest,
  config: JarvisConfig,
  memory: MemoryBackend | undefined,
  bus: EventBus,
): Promise<AgentContext> {
  const inject = request.context ?? config.memory.contextInjection;
  if (!inject || memory === undefined) return createAgentContext();
  const message = await buildContextMessage(memory, query, {
    topK: config.memory.topK,
    minScore: config.memory.minScore,
    maxContextTokens: config.memory.maxContextTokens,
    bus,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  if (message === undefined) return createAgentContext();
  const conversation = new Conversation();
  conversation.add(message);
  return createAgentContext({ conversation });
}

/** Tool names must be unique within a run: the model could not tell two tools of one name apart. */
export function duplicateToolName(tools: readonly Tool[]): string | undefined {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.spec.name)) return tool.spec.name;
    seen.add(tool.spec.name);
  }
  return undefined;
}
