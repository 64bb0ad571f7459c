import type { AgentContext, AgentResult, AgentRunOptions } from '../core/index.js';
import { buildStructuredSystemPrompt } from './orchestrator-prompt.js';
import { runTextProtocolLoop, type TextProtocolLoopDeps } from './text-protocol-loop.js';

/** What the orchestrator hands to its structured (text-protocol) mode. */
export interface StructuredLoopDeps
  extends Omit<TextProtocolLoopDeps, 'systemPrompt' | 'callIdPrefix'> {
  /** Replaces the default structured-mode prompt (`buildStructuredSystemPrompt(tools)`). */
  readonly systemPrompt?: string;
}

/**
 * The orchestrator's structured mode: the model answers in THOUGHT / TOOL / INPUT / FINAL_ANSWER text, each
 * tool call runs through the executor (id `structured_<turn>`) and its result comes back as a user message
 * `Observation: <content>`. The caller publishes `agent_turn_start`; this publishes `agent_turn_end`.
 */
export function runStructuredLoop(
  deps: StructuredLoopDeps,
  input: string,
  context: AgentContext | undefined,
  options: AgentRunOptions,
): Promise<AgentResult> {
  const loopDeps: TextProtocolLoopDeps = {
    agentId: deps.agentId,
    tools: deps.tools,
    executor: deps.executor,
    maxTurns: deps.maxTurns,
    generate: (messages, turn, signal) => deps.generate(messages, turn, signal),
    publishTurnEnd: (data) => deps.publishTurnEnd(data),
    systemPrompt: deps.systemPrompt || buildStructuredSystemPrompt(deps.tools),
    callIdPrefix: 'structured',
  };
  return runTextProtocolLoop(loopDeps, input, context, options);
}
