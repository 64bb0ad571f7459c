import {
  type AgentError,
  type AgentResult,
  addUsage,
  type EventBus,
  type GenerateResult,
  type Message,
  type TokenUsage,
  type ToolCall,
  type ToolResult,
  ZERO_USAGE,
} from '../core/index.js';
import type { ExecuteOptions, ToolExecutor } from '../tools/index.js';
import { stripThinkTags } from './agent-messages.js';
import { LoopGuard } from './loop-guard.js';
import { abortReason, failureTurnEnd, toAgentError, untilAborted } from './orchestrator-failure.js';
import {
  type EmitEvent,
  executeToolCalls,
  planToolCalls,
  type TurnPlan,
} from './orchestrator-turn.js';

/** What the function-calling loop needs from its agent. */
export interface FunctionCallingDeps {
  readonly agentId: string;
  readonly executor: ToolExecutor;
  readonly bus: EventBus | undefined;
  readonly maxTurns: number;
  readonly maxToolCallsPerTurn: number;
  /** Most tool calls of one turn in flight at once (1 runs them in order). */
  readonly concurrency: number;
  /** One model call (streamed when `emit` is given); the loop makes it cancellable. */
  callModel(
    messages: readonly Message[],
    turn: number,
    signal: AbortSignal | undefined,
    emit: EmitEvent | undefined,
  ): Promise<GenerateResult>;
  publishTurnEnd(data: Readonly<Record<string, unknown>>): void;
  maxTurnsResult(options: {
    readonly toolResults: readonly ToolResult[];
    readonly turns: number;
    readonly content?: string;
    readonly metadata?: Readonly<Record<string, unknown>>;
  }): AgentResult;
}

/** One run of the loop. */
export interface FunctionCallingRun {
  /** The opening messages; the loop appends to this array (it is the run's own). */
  readonly messages: Message[];
  readonly signal: AbortSignal | undefined;
  /** Receives progress events when the run is streamed. */
  readonly emit: EmitEvent | undefined;
}

/** What a run has done so far. */
class RunState {
  readonly toolResults: ToolResult[] = [];
  readonly guard = new LoopGuard();
  readonly callIds = new Set<string>();
  readonly executeOptions: ExecuteOptions;
  /** Completed turns: engine calls that answered. */
  turns = 0;
  usage: TokenUsage = ZERO_USAGE;
  /** The last non-empty answer text, reasoning removed. */
  lastContent = '';

  constructor(signal: AbortSignal | undefined) {
    this.executeOptions = signal === undefined ? {} : { signal };
  }

  /** The result of a run that failed now. */
  partial(): AgentResult {
    return {
      content: this.lastContent,
      toolResults: this.toolResults,
      turns: this.turns,
      metadata: { usage: this.usage },
    };
  }
}

/**
 * The function-calling loop shared by `run` and `stream`: call the model with the tools, run the calls it asks
 * for (concurrently, bounded, results in issue order), send the results back, until it answers without calls,
 * repeats itself into the loop guard, or reaches `maxTurns`. Failures and cancellation reject with an
 * `AgentError` carrying the partial result; `agent_turn_end` is published in every case.
 */
export async function runFunctionCallingLoop(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
): Promise<AgentResult> {
  const state = new RunState(run.signal);
  try {
    for (let turn = 1; turn <= deps.maxTurns; turn += 1) {
      const outcome = await runTurn(deps, run, state, turn);
      if (outcome !== undefined) return outcome;
    }
  } catch (error) {
    throw failed(deps, run, state, error);
  }
  return deps.maxTurnsResult({
    toolResults: state.toolResults,
    turns: state.turns,
    content: state.lastContent,
    metadata: { usage: state.usage },
  });
}

/** One turn: the model call, then either the final answer, the end of a loop, or the tool calls it asked for. */
async function runTurn(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  turn: number,
): Promise<AgentResult | undefined> {
  throwIfAborted(run.signal);
  run.emit?.({ type: 'turn_start', turn });
  const answer = await untilAborted(
    deps.callModel(run.messages, turn, run.signal, run.emit),
    run.signal,
  );
  state.turns = turn;
  // Engines written in plain JavaScript may leave fields out; the loop must not crash on them.
  state.usage = addUsage(state.usage, answer.usage ?? ZERO_USAGE);
  const raw = typeof answer.content === 'string' ? answer.content : '';
  const content = raw === '' ? '' : stripThinkTags(raw);
  if (content !== '') state.lastContent = content;
  const requested = answer.toolCalls;
  if (requested === undefined || requested.length === 0) {
    return finalAnswer(deps, run, state, content);
  }
  const plan = planToolCalls(requested, {
    guard: state.guard,
    callIds: state.callIds,
    maxToolCallsPerTurn: deps.maxToolCallsPerTurn,
    turn,
  });
  if (plan.loop !== undefined) return loopDetected(deps, run, state, plan.loop);
  await runToolCalls(deps, run, state, raw, plan);
  run.emit?.({ type: 'turn_end', turn, content });
  throwIfAborted(run.signal);
  return undefined;
}

/** Appends the assistant's calls, runs them, and appends one tool message per call in the order issued. */
async function runToolCalls(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  content: string,
  plan: TurnPlan,
): Promise<void> {
  const { calls } = plan;
  run.messages.push({ role: 'assistant', content, toolCalls: calls });
  const results = await executeToolCalls(plan, {
    executor: deps.executor,
    concurrency: deps.concurrency,
    signal: run.signal,
    executeOptions: state.executeOptions,
    emit: run.emit,
    turn: state.turns,
  });
  for (let index = 0; index < calls.length; index += 1) {
    const call = calls[index] as ToolCall;
    const result = results[index] as ToolResult;
    state.toolResults.push(result);
    run.messages.push({
      role: 'tool',
      content: result.content,
      toolCallId: call.id,
      name: call.name,
    });
  }
}

function finalAnswer(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  content: string,
): AgentResult {
  const { turns } = state;
  run.emit?.({ type: 'turn_end', turn: turns, content });
  deps.publishTurnEnd({ turns, contentLength: content.length });
  return { content, toolResults: state.toolResults, turns, metadata: { usage: state.usage } };
}

function loopDetected(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  call: ToolCall,
): AgentResult {
  const { turns } = state;
  const repeats = state.guard.repeats;
  deps.bus?.publish('loop_guard_triggered', {
    agent: deps.agentId,
    toolName: call.name,
    callId: call.id,
    repeats,
    turn: turns,
  });
  const content =
    state.lastContent ||
    `Stopped: the model called the tool '${call.name}' with the same arguments ${repeats} times in a row without reaching an answer.`;
  run.emit?.({ type: 'turn_end', turn: turns, content });
  deps.publishTurnEnd({ turns, loopDetected: true });
  return {
    content,
    toolResults: state.toolResults,
    turns,
    metadata: { loop_detected: true, usage: state.usage },
  };
}

function failed(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  error: unknown,
): AgentError {
  const failure = toAgentError({
    agentId: deps.agentId,
    error,
    signal: run.signal,
    partialResult: state.partial(),
  });
  deps.publishTurnEnd(failureTurnEnd(failure));
  return failure;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw abortReason(signal);
}
