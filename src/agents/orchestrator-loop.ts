import {
  type AgentResult,
  addUsage,
  type EventBus,
  type GenerateResult,
  type Message,
  type ToolCall,
  type ToolResult,
  throwIfAborted,
  untilAborted,
  ZERO_USAGE,
} from '../core/index.js';
import type { ExecuteOptions, ToolExecutor } from '../tools/index.js';
import { stripThinkTags } from './agent-messages.js';
import { LoopGuard } from './loop-guard.js';
import {
  type EmitEvent,
  executeToolCalls,
  planToolCalls,
  type TurnPlan,
} from './orchestrator-turn.js';
import {
  answerResult,
  outOfTurnsResult,
  type PublishTurnEnd,
  withFinalAnswer,
} from './run-results.js';
import type { StopCondition } from './stop-conditions.js';
import { answerText, recordExchange, runTurnLoop, type TurnLoopState } from './turn-loop.js';

/** What the function-calling loop needs from its agent. */
export interface FunctionCallingDeps {
  readonly agentId: string;
  readonly executor: ToolExecutor;
  readonly bus: EventBus | undefined;
  readonly maxTurns: number;
  /** Checked before each turn: `[stepCountIs(maxTurns)]`, made once per agent. */
  readonly stopWhen: readonly StopCondition[];
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
  readonly publishTurnEnd: PublishTurnEnd;
}

/** One run of the loop. */
export interface FunctionCallingRun {
  /** The opening messages; the loop appends to this array (it is the run's own). */
  readonly messages: Message[];
  readonly signal: AbortSignal | undefined;
  /** Receives progress events when the run is streamed. */
  readonly emit: EmitEvent | undefined;
}

/** What a run has done so far: the turn-loop state plus the loop guard and the call ids used. */
interface RunState extends TurnLoopState {
  readonly guard: LoopGuard;
  readonly callIds: Set<string>;
  /** `{ signal }` when there is one, else empty; built once per run. */
  readonly executeOptions: ExecuteOptions;
}

/**
 * The function-calling loop shared by `run` and `stream`: call the model with the tools, run the calls it asks
 * for (concurrently, bounded, results in issue order), send the results back, until it answers without calls,
 * repeats itself into the loop guard, or reaches `maxTurns`. Failures and cancellation reject with an
 * `AgentError` carrying the partial result; `agent_turn_end` is published in every case.
 */
export function runFunctionCallingLoop(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
): Promise<AgentResult> {
  const { agentId, publishTurnEnd } = deps;
  const { messages, signal } = run;
  // Written out rather than a spread of `createTurnLoopState`: this runs once per run.
  const state: RunState = {
    agentId,
    signal,
    messages,
    publishTurnEnd,
    toolResults: [],
    turns: 0,
    usage: ZERO_USAGE,
    lastContent: '',
    runMessages: [],
    guard: new LoopGuard(),
    callIds: new Set<string>(),
    executeOptions: signal === undefined ? NO_SIGNAL : { signal },
  };
  return runTurnLoop(state, {
    stopWhen: deps.stopWhen,
    step: (turn) => runTurn(deps, run, state, turn),
    outOfTurns: () => outOfTurnsResult(state, state.lastContent),
  });
}

/** The execute options of a run without a signal: shared, as nothing writes to them. */
const NO_SIGNAL: ExecuteOptions = Object.freeze({});

/** One turn: the model call, then either the final answer, the end of a loop, or the tool calls it asked for. */
async function runTurn(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  turn: number,
): Promise<AgentResult | undefined> {
  run.emit?.({ type: 'turn_start', turn });
  // `engineTurn` written out (no closure and no async step of its own): this runs on every model call.
  const answer = await untilAborted(
    deps.callModel(run.messages, turn, run.signal, run.emit),
    run.signal,
  );
  state.turns = turn;
  state.usage = addUsage(state.usage, answer.usage ?? ZERO_USAGE);
  // Engines written in plain JavaScript may leave fields out; the loop must not crash on them.
  const raw = answerText(answer);
  const content = raw === '' ? '' : stripThinkTags(raw);
  if (content !== '') state.lastContent = content;
  const requested = answer.toolCalls;
  if (requested === undefined || requested.length === 0) {
    return finalAnswer(run, state, content);
  }
  const plan = planToolCalls(requested, {
    guard: state.guard,
    callIds: state.callIds,
    maxToolCallsPerTurn: deps.maxToolCallsPerTurn,
    turn,
  });
  if (plan.loop !== undefined) return loopDetected(deps, run, state, plan.loop);
  await runToolCalls(deps, run, state, { raw, content }, plan);
  run.emit?.({ type: 'turn_end', turn, content });
  throwIfAborted(run.signal);
  return undefined;
}

/** The text of a reply: as the model wrote it (sent back within the run), and with reasoning removed (reported). */
interface ReplyText {
  readonly raw: string;
  readonly content: string;
}

/**
 * Appends the assistant's calls, runs them, and appends one tool message per call in the order issued; the
 * exchange is then recorded in the run's messages (the reply's text without reasoning).
 */
async function runToolCalls(
  deps: FunctionCallingDeps,
  run: FunctionCallingRun,
  state: RunState,
  text: ReplyText,
  plan: TurnPlan,
): Promise<void> {
  const { calls } = plan;
  run.messages.push({ role: 'assistant', content: text.raw, toolCalls: calls });
  const results = await executeToolCalls(plan, {
    executor: deps.executor,
    concurrency: deps.concurrency,
    signal: run.signal,
    executeOptions: state.executeOptions,
    emit: run.emit,
    turn: state.turns,
  });
  // The exchange is recorded in the run's messages (the reply's text without reasoning), then its answers.
  recordExchange(state, { role: 'assistant', content: text.content, toolCalls: calls });
  for (let index = 0; index < calls.length; index += 1) {
    const call = calls[index] as ToolCall;
    const result = results[index] as ToolResult;
    state.toolResults.push(result);
    const answer: Message = {
      role: 'tool',
      content: result.content,
      toolCallId: call.id,
      name: call.name,
    };
    run.messages.push(answer);
    state.runMessages.push(answer);
  }
}

function finalAnswer(run: FunctionCallingRun, state: RunState, content: string): AgentResult {
  run.emit?.({ type: 'turn_end', turn: state.turns, content });
  return answerResult(state, content);
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
    messages: withFinalAnswer(state.runMessages, content),
  };
}
