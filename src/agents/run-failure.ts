import { AgentError, type AgentResult, describeError, JarvisError } from '../core/index.js';

/** What a failed run had done, and where it failed. */
export interface RunFailure {
  readonly agentId: string;
  /** Why the run stopped: an engine error, the signal's reason, or an `AgentError` already made. */
  readonly error: unknown;
  /** The run's signal; when it is aborted, the failure is a cancellation whatever the error says. */
  readonly signal: AbortSignal | undefined;
  /** What the run had done: the tool results so far and the completed turns (engine calls that answered). */
  readonly partialResult: AgentResult;
}

/**
 * Turns whatever stopped a run into an `AgentError` (one passed in stays as it is): `agent_cancelled` (name
 * `AbortError`) when the run's signal was aborted or the engine reports `engine_cancelled`, else
 * `agent_engine_failed` with the engine error as the cause.
 */
export function toAgentError(failure: RunFailure): AgentError {
  const { agentId, error, signal, partialResult } = failure;
  if (error instanceof AgentError) return error;
  if (signal?.aborted === true || isEngineCancellation(error)) {
    return new AgentError({
      code: 'agent_cancelled',
      agentId,
      message: `Agent '${agentId}' was cancelled after ${describeTurns(partialResult.turns)}.`,
      partialResult,
      cause: signal?.reason ?? error,
    });
  }
  return new AgentError({
    code: 'agent_engine_failed',
    agentId,
    message: `Agent '${agentId}' stopped: the engine call of turn ${partialResult.turns + 1} failed: ${describeError(error)}`,
    partialResult,
    cause: error,
  });
}

/** The `agent_turn_end` fields of a failed run. */
export function failureTurnEnd(error: AgentError): Readonly<Record<string, unknown>> {
  return {
    turns: error.partialResult.turns,
    error: error.message,
    errorCode: error.code,
  };
}

function describeTurns(turns: number): string {
  return turns === 1 ? '1 turn' : `${turns} turns`;
}

function isEngineCancellation(error: unknown): boolean {
  return JarvisError.isInstance(error) && error.code === 'engine_cancelled';
}
