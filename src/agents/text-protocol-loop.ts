import {
  type AgentContext,
  type AgentResult,
  type AgentRunOptions,
  type GenerateResult,
  type Message,
  type Tool,
  type ToolSpec,
  throwIfAborted,
} from '../core/index.js';
import type { ToolExecutor } from '../tools/index.js';
import { buildAgentMessages } from './agent-messages.js';
import { answerResult, outOfTurnsResult, type PublishTurnEnd } from './run-results.js';
import { stepCountIs } from './stop-conditions.js';
import {
  buildTextToolCall,
  parseTextProtocolReply,
  type TextProtocolReply,
} from './text-protocol.js';
import {
  answerText,
  createTurnLoopState,
  engineTurn,
  recordExchange,
  runCallRecorded,
  runTurnLoop,
  type TurnLoopState,
} from './turn-loop.js';

/** What a text-protocol loop (structured mode, ReAct) needs from its agent. */
export interface TextProtocolLoopDeps {
  readonly agentId: string;
  readonly tools: readonly Tool[];
  readonly executor: ToolExecutor;
  readonly maxTurns: number;
  readonly systemPrompt: string;
  /** Calls get the id `<callIdPrefix>_<turn>`. */
  readonly callIdPrefix: string;
  /** One engine call (with the caller's inference events); `turn` is 1-based. */
  generate(
    messages: readonly Message[],
    turn: number,
    signal?: AbortSignal,
  ): Promise<GenerateResult>;
  /** Publishes `agent_turn_end` with the given data (the caller adds `agent`). */
  readonly publishTurnEnd: PublishTurnEnd;
}

interface TextLoopState extends TurnLoopState {
  readonly deps: TextProtocolLoopDeps;
  readonly specs: readonly ToolSpec[];
  /** The reasoning of the latest reply that had any, kept for a run that ends without an answer. */
  lastThought: string;
}

/**
 * Runs a text-protocol tool loop (structured mode and ReAct): sends the messages, parses the reply, then either
 * returns the final answer (think blocks removed), or runs the tool call and appends the call text and an
 * `Observation:` message. Ends with the max-turns result (content: the last reasoning the model wrote, else the
 * default message); engine failures and cancellation throw `AgentError` with the partial result (tool results,
 * completed turns, usage). The run's messages are the text exchanged, so that they make sense as this agent's
 * history: each call reply as an assistant message followed by its observation as a `user` message, then the
 * answer (the text after `Final Answer:`) as the last assistant message.
 */
export function runTextProtocolLoop(
  deps: TextProtocolLoopDeps,
  input: string,
  context: AgentContext | undefined,
  options: AgentRunOptions,
): Promise<AgentResult> {
  const state: TextLoopState = {
    ...createTurnLoopState({
      agentId: deps.agentId,
      signal: options.signal,
      messages: buildAgentMessages(input, context, deps.systemPrompt),
      publishTurnEnd: deps.publishTurnEnd,
    }),
    deps,
    specs: deps.executor.availableTools(),
    lastThought: '',
  };
  return runTurnLoop(state, {
    stopWhen: [stepCountIs(deps.maxTurns)],
    step: (turn) => textProtocolTurn(state, turn),
    outOfTurns: () => outOfTurnsResult(state, state.lastThought),
  });
}

/** One turn: the final answer, or the tool call run and its observation appended. */
async function textProtocolTurn(
  state: TextLoopState,
  turn: number,
): Promise<AgentResult | undefined> {
  const { deps, signal } = state;
  const answer = await engineTurn(state, turn, () =>
    deps.generate([...state.messages], turn, signal),
  );
  const reply = parseTextProtocolReply(answerText(answer));
  if (reply.thought !== '') state.lastThought = reply.thought;
  if (reply.kind !== 'tool_call') return answerResult(state, reply.answer);
  await runToolCall(state, reply, turn);
  return undefined;
}

async function runToolCall(
  state: TextLoopState,
  reply: Extract<TextProtocolReply, { kind: 'tool_call' }>,
  turn: number,
): Promise<void> {
  const call = buildTextToolCall(reply, state.specs, `${state.deps.callIdPrefix}_${turn}`);
  const request: Message = { role: 'assistant', content: reply.callText };
  state.messages.push(request);
  const result = await runCallRecorded(state, state.deps.executor, call);
  const observation: Message = { role: 'user', content: `Observation: ${result.content}` };
  state.messages.push(observation);
  recordExchange(state, request, observation);
  throwIfAborted(state.signal);
}
