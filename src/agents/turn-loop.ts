import {
  AgentError,
  type AgentErrorCode,
  type AgentResult,
  addUsage,
  type GenerateResult,
  type Message,
  type TokenUsage,
  type ToolResult,
  throwIfAborted,
  untilAborted,
  ZERO_USAGE,
} from '../core/index.js';
import type { ToolExecutor } from '../tools/index.js';
import { failureTurnEnd, toAgentError } from './run-failure.js';
import type { PublishTurnEnd } from './run-results.js';
import { isStopConditionMet, type StopCondition } from './stop-conditions.js';

/** What every engine-backed turn loop keeps about its run. */
export interface TurnLoopState {
  readonly agentId: string;
  readonly signal: AbortSignal | undefined;
  /** The conversation sent to the engine; the loop appends to it (it is the run's own). */
  readonly messages: Message[];
  readonly toolResults: ToolResult[];
  /** Completed turns: engine calls that answered. */
  turns: number;
  usage: TokenUsage;
  /** The answer text a failed run's partial result carries ('' unless the loop keeps one). */
  lastContent: string;
  /**
   * The completed exchanges of the run as its result reports them (`AgentResult.messages` without the final
   * answer): appended with `recordExchange` once a reply's calls have their results.
   */
  readonly runMessages: Message[];
  readonly publishTurnEnd: PublishTurnEnd;
}

/** The start of a turn loop: nothing done yet. */
export function createTurnLoopState(
  init: Pick<TurnLoopState, 'agentId' | 'signal' | 'messages' | 'publishTurnEnd'>,
): TurnLoopState {
  // Written out rather than spread: this runs once per run, and a spread of a caller's object is the slow path.
  return {
    agentId: init.agentId,
    signal: init.signal,
    messages: init.messages,
    publishTurnEnd: init.publishTurnEnd,
    toolResults: [],
    turns: 0,
    usage: ZERO_USAGE,
    lastContent: '',
    runMessages: [],
  };
}

/**
 * Records one completed exchange in the run's reported messages: the assistant's reply and what answered it
 * (`tool` results, or the observation a text-protocol loop sent back), never a reply without its answers.
 */
export function recordExchange(state: TurnLoopState, ...messages: readonly Message[]): void {
  state.runMessages.push(...messages);
}

/** The rules of one loop. */
export interface TurnLoop {
  /** Checked before each turn; when one holds, the run ends with `outOfTurns()`. */
  readonly stopWhen: readonly StopCondition[];
  /** Runs turn `turn` (1-based): the run's result when it ends there, else `undefined` to go on. */
  step(turn: number): Promise<AgentResult | undefined>;
  /** The result of a run stopped by `stopWhen` (the max-turns result). */
  outOfTurns(): AgentResult | Promise<AgentResult>;
}

/**
 * Runs turns until one returns the result or a stop condition holds, checking for cancellation before each.
 * Any failure (engine error, cancellation) rejects with an `AgentError` carrying the partial result, after
 * `agent_turn_end` `{ turns, error, errorCode }` is published.
 */
export async function runTurnLoop(state: TurnLoopState, loop: TurnLoop): Promise<AgentResult> {
  try {
    for (let turn = 1; !isStopConditionMet(loop.stopWhen, { turns: turn - 1 }); turn += 1) {
      throwIfAborted(state.signal);
      const result = await loop.step(turn);
      if (result !== undefined) return result;
    }
    return await loop.outOfTurns();
  } catch (error) {
    const failure = toAgentError({
      agentId: state.agentId,
      error,
      signal: state.signal,
      partialResult: partialResult(state),
    });
    state.publishTurnEnd(failureTurnEnd(failure));
    throw failure;
  }
}

/**
 * One engine call of turn `turn`, cancelled as soon as the run's signal aborts (even when the engine ignores
 * it); counts the turn and sums its usage (fields a plain-JavaScript engine left out count as nothing).
 */
export async function engineTurn(
  state: TurnLoopState,
  turn: number,
  call: () => Promise<GenerateResult>,
): Promise<GenerateResult> {
  const result = await untilAborted(call(), state.signal);
  state.turns = turn;
  state.usage = addUsage(state.usage, result.usage ?? ZERO_USAGE);
  return result;
}

/** The text of an engine answer ('' when an engine left it out). */
export function answerText(result: GenerateResult): string {
  return typeof result.content === 'string' ? result.content : '';
}

/** Runs one tool call with the run's signal, records its result, and stops the run if it was cancelled meanwhile. */
export async function executeCall(
  state: TurnLoopState,
  executor: ToolExecutor,
  call: Parameters<ToolExecutor['execute']>[0],
): Promise<ToolResult> {
  const result = await runCallRecorded(state, executor, call);
  throwIfAborted(state.signal);
  return result;
}

/**
 * Runs one tool call with the run's signal and records its result, without stopping a cancelled run (the
 * caller records the exchange first, then calls `throwIfAborted`).
 */
export async function runCallRecorded(
  state: TurnLoopState,
  executor: ToolExecutor,
  call: Parameters<ToolExecutor['execute']>[0],
): Promise<ToolResult> {
  const { signal } = state;
  const result = await executor.execute(call, signal === undefined ? {} : { signal });
  state.toolResults.push(result);
  return result;
}

/** An `AgentError` for a failure the loop itself found (`agent_turn_end` is published when the loop ends). */
export function loopError(
  state: TurnLoopState,
  code: AgentErrorCode,
  message: string,
  cause?: unknown,
): AgentError {
  const { agentId } = state;
  return new AgentError({ code, agentId, message, cause, partialResult: partialResult(state) });
}

function partialResult(state: TurnLoopState): AgentResult {
  return {
    content: state.lastContent,
    toolResults: [...state.toolResults],
    turns: state.turns,
    metadata: { usage: state.usage },
    messages: [...state.runMessages],
  };
}
