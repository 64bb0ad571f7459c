import { AgentError, type AgentResult, describeError } from '../core/index.js';

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
 * Turns whatever stopped a run into an `AgentError`: `agent_cancelled` (name `AbortError`) when the run's
 * signal was aborted, else `agent_engine_failed` with the engine error as the cause.
 */
export function toAgentError(failure: RunFailure): AgentError {
  const { agentId, error, signal, partialResult } = failure;
  if (error instanceof AgentError) return error;
  if (signal?.aborted === true) {
    return new AgentError({
      code: 'agent_cancelled',
      agentId,
      message: `Agent '${agentId}' was cancelled after ${describeTurns(partialResult.turns)}.`,
      partialResult,
      cause: signal.reason ?? error,
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

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as `signal` aborts, so a run is cancelled
 * promptly even when an engine ignores its signal (the late outcome of `promise` is then dropped).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(ignore);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The reason a signal was aborted with, or a generic `AbortError` when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The run was cancelled.', 'AbortError');
}

function describeTurns(turns: number): string {
  return turns === 1 ? '1 turn' : `${turns} turns`;
}

function ignore(): void {
  // The outcome of an abandoned call is not wanted any more.
}
