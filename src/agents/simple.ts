import {
  type AgentContext,
  type AgentError,
  type AgentResult,
  type AgentRunOptions,
  type AgentStreamEvent,
  type GenerateResult,
  untilAborted,
  ZERO_USAGE,
} from '../core/index.js';
import { stripThinkTags } from './agent-messages.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { streamRun } from './orchestrator-stream.js';
import type { EmitEvent } from './orchestrator-turn.js';
import { failureTurnEnd, toAgentError } from './run-failure.js';

/** Options of a `SimpleAgent`: the engine settings of every engine-backed agent. */
export type SimpleAgentOptions = BaseAgentOptions;

/**
 * Single-turn agent (registry key `simple`): sends the context conversation and the input to the engine once,
 * without tools, and returns the answer with `<think>` reasoning removed (`stream` yields the text as it comes). Usage is reported in
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
    this.publishTurnStart(input, options.runId);
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
    return answered(content, answer);
  }

  /**
   * Runs the engine call on its stream and yields `turn_start`, the text (and reasoning) as it arrives,
   * `turn_end` and the `result`; stopping the iteration early cancels the call.
   */
  async *stream(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): AsyncGenerator<AgentStreamEvent, void, undefined> {
    yield* streamRun(options.signal, (signal, emit) =>
      this.#streamOnce(input, context, signal, emit, options.runId),
    );
  }

  async #streamOnce(
    input: string,
    context: AgentContext | undefined,
    signal: AbortSignal,
    emit: EmitEvent,
    runId: string | undefined,
  ): Promise<AgentResult> {
    this.publishTurnStart(input, runId);
    emit({ type: 'turn_start', turn: 1 });
    const messages = this.buildMessages(input, context);
    const options = { model: this.model, temperature: this.temperature, maxTokens: this.maxTokens };
    let answer: GenerateResult;
    try {
      if (signal.aborted) throw signal.reason;
      const call = {
        engine: this.engine,
        messages,
        options: { ...options, signal },
        turn: 1,
        emit,
      };
      answer = await untilAborted(this.streamGenerate(call), signal);
    } catch (error) {
      throw this.#failed(error, signal);
    }
    const content = stripThinkTags(answer.content);
    emit({ type: 'turn_end', turn: 1, content });
    this.publishTurnEnd({ turns: 1, contentLength: content.length });
    return answered(content, answer);
  }

  /** The error of a run whose engine call failed or was cancelled: no turn completed. */
  #failed(error: unknown, signal: AbortSignal | undefined): AgentError {
    const failure = toAgentError({
      agentId: this.agentId,
      error,
      signal,
      partialResult: {
        content: '',
        toolResults: [],
        turns: 0,
        metadata: { usage: ZERO_USAGE },
        messages: [],
      },
    });
    this.publishTurnEnd(failureTurnEnd(failure));
    return failure;
  }
}

/** The result of the one engine call: the answer, and that answer as the run's only message. */
function answered(content: string, answer: GenerateResult): AgentResult {
  return {
    content,
    toolResults: [],
    turns: 1,
    metadata: { usage: answer.usage ?? ZERO_USAGE },
    messages: [{ role: 'assistant', content }],
  };
}
