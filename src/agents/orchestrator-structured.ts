import {
  type AgentContext,
  AgentError,
  type AgentResult,
  type AgentRunOptions,
  addUsage,
  describeError,
  type GenerateResult,
  JarvisError,
  type Message,
  type TokenUsage,
  type Tool,
  type ToolResult,
  type ToolSpec,
  ZERO_USAGE,
} from '../core/index.js';
import type { ToolExecutor } from '../tools/index.js';
import { buildAgentMessages, MAX_TURNS_MESSAGE } from './agent-messages.js';
import { buildStructuredSystemPrompt } from './orchestrator-prompt.js';
import {
  buildTextToolCall,
  parseTextProtocolReply,
  type TextProtocolReply,
} from './text-protocol.js';

/** What the orchestrator hands to its structured (text-protocol) mode. */
export interface StructuredLoopDeps {
  readonly agentId: string;
  readonly tools: readonly Tool[];
  readonly executor: ToolExecutor;
  readonly maxTurns: number;
  /** Replaces the default structured-mode prompt (`buildStructuredSystemPrompt(tools)`). */
  readonly systemPrompt?: string;
  /** One engine call (with the caller's inference events); `turn` is 1-based. */
  generate(
    messages: readonly Message[],
    turn: number,
    signal?: AbortSignal,
  ): Promise<GenerateResult>;
  /** Publishes `agent_turn_end` with the given data (the caller adds `agent`). */
  publishTurnEnd(data: Readonly<Record<string, unknown>>): void;
}

/** A text-protocol loop: the structured deps with the system prompt fixed and the prefix of call ids. */
export interface TextProtocolLoopDeps extends Omit<StructuredLoopDeps, 'systemPrompt'> {
  readonly systemPrompt: string;
  /** Calls get the id `<callIdPrefix>_<turn>`. */
  readonly callIdPrefix: string;
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
    systemPrompt: deps.systemPrompt || buildStructuredSystemPrompt(deps.tools),
    callIdPrefix: 'structured',
    generate: (messages, turn, signal) => deps.generate(messages, turn, signal),
    publishTurnEnd: (data) => deps.publishTurnEnd(data),
  };
  return runTextProtocolLoop(loopDeps, input, context, options);
}

interface LoopState {
  readonly deps: TextProtocolLoopDeps;
  readonly signal: AbortSignal | undefined;
  readonly messages: Message[];
  readonly specs: readonly ToolSpec[];
  readonly toolResults: ToolResult[];
  turns: number;
  usage: TokenUsage;
  /** The reasoning of the latest reply that had any, kept for a run that ends without an answer. */
  lastThought: string;
}

/**
 * Runs a text-protocol tool loop (structured mode and ReAct): sends the messages, parses the reply, then either
 * returns the final answer (think blocks removed), or runs the tool call and appends the call text and an
 * `Observation:` message. Ends with the max-turns result (content: the last reasoning the model wrote, else the
 * default message); engine failures and cancellation throw `AgentError` with the partial result (tool results,
 * completed turns, usage).
 */
export async function runTextProtocolLoop(
  deps: TextProtocolLoopDeps,
  input: string,
  context: AgentContext | undefined,
  options: AgentRunOptions,
): Promise<AgentResult> {
  const state: LoopState = {
    deps,
    signal: options.signal,
    messages: buildAgentMessages(input, context, deps.systemPrompt),
    specs: deps.executor.availableTools(),
    toolResults: [],
    turns: 0,
    usage: ZERO_USAGE,
    lastThought: '',
  };
  for (let turn = 1; turn <= deps.maxTurns; turn += 1) {
    const reply = parseTextProtocolReply(await generateTurn(state, turn));
    if (reply.thought !== '') state.lastThought = reply.thought;
    if (reply.kind !== 'tool_call') return finish(state, reply.answer);
    await runToolCall(state, reply, turn);
  }
  return maxTurnsReached(state);
}

/** One engine call; failures become `AgentError`s after `agent_turn_end` is published. */
async function generateTurn(state: LoopState, turn: number): Promise<string> {
  if (state.signal?.aborted) throw fail(state, 'agent_cancelled', state.signal.reason);
  let result: GenerateResult;
  try {
    result = await state.deps.generate([...state.messages], turn, state.signal);
  } catch (error) {
    const cancelled = state.signal?.aborted || isCancellation(error);
    throw fail(state, cancelled ? 'agent_cancelled' : 'agent_engine_failed', error, turn);
  }
  state.turns = turn;
  state.usage = addUsage(state.usage, result.usage ?? ZERO_USAGE);
  return typeof result.content === 'string' ? result.content : '';
}

async function runToolCall(
  state: LoopState,
  reply: Extract<TextProtocolReply, { kind: 'tool_call' }>,
  turn: number,
): Promise<void> {
  const call = buildTextToolCall(reply, state.specs, `${state.deps.callIdPrefix}_${turn}`);
  state.messages.push({ role: 'assistant', content: reply.callText });
  const signal = state.signal;
  const result = await state.deps.executor.execute(call, signal === undefined ? {} : { signal });
  state.toolResults.push(result);
  if (signal?.aborted) throw fail(state, 'agent_cancelled', signal.reason);
  state.messages.push({ role: 'user', content: `Observation: ${result.content}` });
}

function finish(state: LoopState, answer: string): AgentResult {
  state.deps.publishTurnEnd({ turns: state.turns, contentLength: answer.length });
  return {
    content: answer,
    toolResults: [...state.toolResults],
    turns: state.turns,
    metadata: { usage: state.usage },
  };
}

function maxTurnsReached(state: LoopState): AgentResult {
  state.deps.publishTurnEnd({ turns: state.turns, maxTurnsExceeded: true });
  return {
    content: state.lastThought || MAX_TURNS_MESSAGE,
    toolResults: [...state.toolResults],
    turns: state.turns,
    metadata: { usage: state.usage, max_turns_exceeded: true },
  };
}

/** Publishes `agent_turn_end` with the error and builds the `AgentError` carrying the partial result. */
function fail(
  state: LoopState,
  code: 'agent_cancelled' | 'agent_engine_failed',
  cause: unknown,
  turn?: number,
): AgentError {
  const { agentId } = state.deps;
  const message =
    code === 'agent_cancelled'
      ? `Agent '${agentId}' was cancelled after ${state.turns} turn(s)`
      : `Agent '${agentId}' failed: the engine call of turn ${turn} failed: ${describeError(cause)}`;
  state.deps.publishTurnEnd({ turns: state.turns, error: message });
  return new AgentError({
    code,
    agentId,
    message,
    cause,
    partialResult: {
      content: '',
      toolResults: [...state.toolResults],
      turns: state.turns,
      metadata: { usage: state.usage },
    },
  });
}

function isCancellation(error: unknown): boolean {
  return JarvisError.isInstance(error) && error.code === 'engine_cancelled';
}
