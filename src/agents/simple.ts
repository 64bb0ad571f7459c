import {
  type AgentContext,
  type AgentError,
  type AgentResult,
  type AgentRunOptions,
  type GenerateResult,
  ZERO_USAGE,
} from '../core/index.js';
import { stripThinkTags } from './agent-messages.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { failureTurnEnd, toAgentError, untilAborted } from './orchestrator-failure.js';

/** Options of a `SimpleAgent`: the engine settings of every engine-backed agent. */
export type SimpleAgentOptions = BaseAgentOptions;

/**
 * Single-turn agent (registry key `simple`): sends the context conversation and the input to the engine once,
 * without tools, and returns the answer with `<think>` reasoning removed. Usage is reported in
 * `metadata.usage`; a failed or cancelled run rejects with an `AgentError` carrying the partial result
 * (`turns: 0`, no content).
 */
export class SimpleAgent extends BaseAgent {
  readonly agentId = 'simple';

  /** Runs one engine call on the input. */
  async run(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): Promise<AgentResult> {
    const { signal } = options;
    this.publishTurnStart(input);
    const messages = this.buildMessages(input, context);
    let answer: GenerateResult;
    try {
      if (signal?.aborted) throw signal.reason;
      answer = await untilAborted(
        this.generate(messages, signal === undefined ? { turn: 1 } : { turn: 1, signal }),
        signal,
      );
    } catch (error) {
      throw this.#failed(error, signal);
    }
    const content = typeof answer.content === 'string' ? stripThinkTags(answer.content) : '';
    this.publishTurnEnd({ turns: 1, contentLength: content.length });
    return { content, toolResults: [], turns: 1, metadata: { usage: answer.usage ?? ZERO_USAGE } };
  }

  /** The error of a run whose engine call failed or was cancelled: no turn completed. */
  #failed(error: unknown, signal: AbortSignal | undefined): AgentError {
    const failure = toAgentError({
      agentId: this.agentId,
      error,
      signal,
      partialResult: { content: '', toolResults: [], turns: 0, metadata: { usage: ZERO_USAGE } },
    });
    this.publishTurnEnd(failureTurnEnd(failure));
    return failure;
  }
}
