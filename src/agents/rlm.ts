import {
  type AgentContext,
  type AgentError,
  type AgentResult,
  type AgentRunOptions,
  type Message,
  type Tool,
  type ToolResult,
  throwIfAborted,
  toolFailure,
  toolSuccess,
  wholeNumberOption,
} from '../core/index.js';
import { openSandboxSession, type ToolExecutor } from '../tools/index.js';
import { stripThinkTags } from './agent-messages.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { extractPythonBlock, truncateObservation } from './code-blocks.js';
import { answerHostCall, type RlmHostState } from './rlm-host.js';
import {
  buildRlmSystemPrompt,
  RLM_PARTIAL_PROBE,
  RLM_PRELUDE,
  RLM_READY_PROBE,
} from './rlm-prompt.js';
import type { RlmInterpreter, RlmInterpreterFactory, RlmStepResult } from './rlm-session.js';
import { answerResult, outOfTurnsResult } from './run-results.js';
import { stepCountIs } from './stop-conditions.js';
import {
  answerText,
  engineTurn,
  loopError,
  recordExchange,
  runTurnLoop,
  type TurnLoopState,
} from './turn-loop.js';

/** Options of an `RLMAgent`. */
export interface RLMAgentOptions extends BaseAgentOptions {
  /** Tools listed in the prompt and callable from the code with `call_tool(name, **arguments)`. */
  readonly tools?: readonly Tool[];
  /** Most engine calls of the root model per run (default 10). */
  readonly maxTurns?: number;
  /** Replaces the default prompt (`buildRlmSystemPrompt(tools)`). */
  readonly systemPrompt?: string;
  /** Wall-clock limit of one code step, not counting sub-model calls (default 30 s). */
  readonly stepTimeoutMs?: number;
  /** Model answering `llm_query` / `llm_batch` (default: `model`). */
  readonly subModel?: string;
  /** Opens the persistent sandboxed interpreter (the tools layer's `openSandboxSession`). */
  readonly openInterpreter?: RlmInterpreterFactory;
}

interface RlmRunState extends TurnLoopState, RlmHostState {
  interpreter: RlmInterpreter | undefined;
}

const PRELUDE_TIMEOUT_MS = 10_000;

/**
 * The recursive language model agent: the model writes Python run in one sandboxed interpreter kept for the
 * whole run, with the run's context in `context`, `llm_query` / `llm_batch` reaching the engine and `FINAL(value)`
 * ending the run; each step is recorded as an `rlm_repl` tool result.
 */
export class RLMAgent extends BaseAgent {
  readonly agentId: string = 'rlm';
  readonly tools: readonly Tool[];
  readonly maxTurns: number;
  readonly stepTimeoutMs: number;
  protected readonly systemPrompt: string;
  protected readonly executor: ToolExecutor;
  private readonly subModel: string;
  private readonly openInterpreter: RlmInterpreterFactory | undefined;

  constructor(options: RLMAgentOptions) {
    super({ ...options, maxTokens: options.maxTokens ?? 2048 });
    this.tools = [...(options.tools ?? [])];
    this.maxTurns = wholeNumberOption('maxTurns', options.maxTurns, 10);
    this.stepTimeoutMs = options.stepTimeoutMs ?? 30_000;
    this.systemPrompt = options.systemPrompt || buildRlmSystemPrompt(this.tools);
    this.subModel = options.subModel ?? options.model;
    this.openInterpreter =
      options.openInterpreter ?? (({ lifetimeMs }) => openSandboxSession({ lifetimeMs }));
    this.executor = this.createToolExecutor(this.tools);
  }

  /** Runs the write-code / observe loop until FINAL, a reply without code, or the turn limit. */
  async run(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): Promise<AgentResult> {
    const state = this.initialState(input, context, options.signal, options.runId);
    try {
      return await this.loop(state);
    } finally {
      await state.interpreter?.close();
    }
  }

  private initialState(
    input: string,
    context: AgentContext | undefined,
    signal: AbortSignal | undefined,
    runId: string | undefined,
  ): RlmRunState {
    const state: RlmRunState = {
      ...this.startTurnLoop(input, context, signal, this.systemPrompt, runId),
      subGenerate: (prompt) =>
        this.generate([{ role: 'user', content: prompt }], {
          turn: state.turns,
          model: this.subModel,
          temperature: 0.3,
          maxTokens: 1024,
          ...(signal === undefined ? {} : { signal }),
        }),
      executor: this.executor,
      context: contextText(context),
      subCalls: 0,
      toolCalls: 0,
      final: undefined,
      partial: '',
      interpreter: undefined,
    };
    return state;
  }

  private loop(state: RlmRunState): Promise<AgentResult> {
    return runTurnLoop(state, {
      stopWhen: [stepCountIs(this.maxTurns)],
      step: (turn) => this.turn(state, turn),
      outOfTurns: async () => {
        await this.probePartial(state);
        return outOfTurnsResult(state, state.partial);
      },
    });
  }

  /** One turn: a reply without code is the answer; else its code runs, and `FINAL(...)` ends the run. */
  private async turn(state: RlmRunState, turn: number): Promise<AgentResult | undefined> {
    const { messages, signal } = state;
    const answer = await engineTurn(state, turn, () =>
      this.generateTurn([...messages], turn, signal),
    );
    const content = stripThinkTags(answerText(answer));
    const code = extractPythonBlock(content, true);
    if (code === undefined) return this.finish(state, content.trim(), false);
    const request: Message = { role: 'assistant', content };
    state.messages.push(request);
    const observation = await this.step(state, code, turn);
    // The reply that called FINAL got no observation: the run reports the answer in its place.
    if (state.final !== undefined) return this.finish(state, state.final, true);
    const reply: Message = { role: 'user', content: observation };
    state.messages.push(reply);
    recordExchange(state, request, reply);
    return undefined;
  }

  /** Runs one code block and returns the observation for the model. */
  private async step(state: RlmRunState, code: string, turn: number): Promise<string> {
    const restarted = state.interpreter !== undefined && !state.interpreter.alive;
    const interpreter = await this.interpreterFor(state);
    const result = await interpreter.exec(code, this.stepOptions(state, this.stepTimeoutMs));
    state.toolResults.push(stepToolResult(result, turn));
    throwIfAborted(state.signal);
    if (result.end === 'aborted') {
      const message = `Agent '${state.agentId}' was cancelled: its interpreter step was aborted`;
      throw loopError(state, 'agent_cancelled', message);
    }
    if (result.end === 'completed' && state.final === undefined)
      await interpreter.exec(RLM_READY_PROBE, this.stepOptions(state, PRELUDE_TIMEOUT_MS));
    const note = restarted
      ? 'Note: the interpreter had been stopped and was restarted; earlier variables are lost.\n'
      : '';
    return note + observationOf(result);
  }

  private stepOptions(state: RlmRunState, timeoutMs: number) {
    return {
      timeoutMs,
      ...(state.signal === undefined ? {} : { signal: state.signal }),
      onCall: (name: string, payload: Parameters<typeof answerHostCall>[2]) =>
        answerHostCall(state, name, payload),
    };
  }

  /** The run's interpreter, opened (with the prelude) on first use and again after a timeout killed it. */
  private async interpreterFor(state: RlmRunState): Promise<RlmInterpreter> {
    if (state.interpreter?.alive) return state.interpreter;
    await state.interpreter?.close();
    state.interpreter = undefined;
    if (this.openInterpreter === undefined)
      throw runtimeFailure(state, unavailable('no interpreter factory configured'));
    const lifetimeMs = (this.maxTurns + 2) * (this.stepTimeoutMs + PRELUDE_TIMEOUT_MS);
    const opened = await this.openInterpreter({ lifetimeMs });
    if (!opened.ok) throw runtimeFailure(state, unavailable(opened.reason));
    state.interpreter = opened.session;
    const prelude = await opened.session.exec(
      RLM_PRELUDE,
      this.stepOptions(state, PRELUDE_TIMEOUT_MS),
    );
    if (!prelude.ok)
      throw runtimeFailure(state, `RLM interpreter set-up failed: ${prelude.error ?? ''}`);
    return opened.session;
  }

  /** Asks a live interpreter for `answer["value"]` so a run out of turns can return it. */
  private async probePartial(state: RlmRunState): Promise<void> {
    if (!state.interpreter?.alive || state.signal?.aborted) return;
    await state.interpreter.exec(RLM_PARTIAL_PROBE, this.stepOptions(state, PRELUDE_TIMEOUT_MS));
  }

  private finish(state: RlmRunState, answer: string, final: boolean): AgentResult {
    return answerResult(state, answer, final ? { final: true } : {});
  }
}

/** A failure of the interpreter (not of the engine): `agent_runtime_failed`. */
function runtimeFailure(state: RlmRunState, problem: string): AgentError {
  const cause = new Error(problem);
  return loopError(
    state,
    'agent_runtime_failed',
    `Agent '${state.agentId}' failed: ${problem}`,
    cause,
  );
}

function unavailable(reason: string): string {
  return `RLM agent unavailable: no sandboxed interpreter (${reason})`;
}

/** The run's context: `metadata.context` when it is a string, else the memory results joined. */
function contextText(context: AgentContext | undefined): string {
  if (context === undefined) return '';
  const value = context.metadata.context;
  if (typeof value === 'string') return value;
  return context.memoryResults
    .map((item) => (typeof item === 'string' ? item : memoryText(item)))
    .join('\n\n');
}

function memoryText(item: unknown): string {
  if (typeof item === 'object' && item !== null && 'content' in item) {
    const content = (item as { readonly content: unknown }).content;
    if (typeof content === 'string') return content;
  }
  return JSON.stringify(item) ?? '';
}

/** What the model reads after a step: its output, then the error or traceback. */
function observationOf(result: RlmStepResult): string {
  const dropped =
    result.droppedChars > 0 ? `\n[${result.droppedChars} more characters not shown]` : '';
  const output = result.output === '' ? '' : `Output:\n${result.output}${dropped}`;
  if (result.ok) return truncateObservation(output || 'Output:\n(no output)');
  const error = `Error:\n${result.error ?? 'unknown error'}`;
  return truncateObservation(output === '' ? error : `${output}\n${error}`);
}

function stepToolResult(result: RlmStepResult, turn: number): ToolResult {
  const extra = {
    latencySeconds: result.elapsedMs / 1000,
    metadata: { turn, end: result.end, droppedChars: result.droppedChars },
  };
  const content = observationOf(result);
  if (result.ok) return toolSuccess('rlm_repl', content, extra);
  const code =
    result.end === 'timeout'
      ? 'timed_out'
      : result.end === 'aborted'
        ? 'cancelled'
        : 'execution_failed';
  return toolFailure('rlm_repl', code, content, extra);
}
