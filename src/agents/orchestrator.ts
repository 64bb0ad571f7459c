import {
  type AgentContext,
  type AgentResult,
  type AgentRunOptions,
  type AgentStreamEvent,
  type GenerateOptions,
  type GenerateResult,
  JarvisError,
  type Message,
  type OpenAIFunctionTool,
  type Tool,
  wholeNumberOption,
} from '../core/index.js';
import type { ToolExecutor, ToolExecutorOptions } from '../tools/index.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { type FunctionCallingDeps, runFunctionCallingLoop } from './orchestrator-loop.js';
import { streamRun } from './orchestrator-stream.js';
import { runStructuredLoop, type StructuredLoopDeps } from './orchestrator-structured.js';
import type { EmitEvent } from './orchestrator-turn.js';
import { stepCountIs } from './stop-conditions.js';

/** How the orchestrator talks to the model: native tool calls, or the THOUGHT/TOOL/INPUT text protocol. */
export type OrchestratorMode = 'function_calling' | 'structured';

/** Options of an `OrchestratorAgent`. */
export interface OrchestratorAgentOptions extends BaseAgentOptions {
  /** The tools this agent may run (default none); nothing else can be executed. */
  readonly tools?: readonly Tool[];
  /** Most engine calls per run, a whole number (default 10); 0 returns the max-turns result at once. */
  readonly maxTurns?: number;
  /** Sent as the first message (both modes; structured mode builds its own prompt when absent). */
  readonly systemPrompt?: string;
  /** Default `function_calling`. */
  readonly mode?: OrchestratorMode;
  /** Run the calls of one turn concurrently (default true); false runs them one after another. */
  readonly parallelToolCalls?: boolean;
  /** Most tool calls in flight at once when running concurrently (default 8). */
  readonly maxParallelTools?: number;
  /** Most tool calls executed per turn (default 20); the rest are answered with `too_many_calls`. */
  readonly maxToolCallsPerTurn?: number;
  /** Tool executor: timeout of tools whose spec sets none (default 30 s). */
  readonly defaultTimeoutMs?: number;
  /** Tool executor: longest tool output handed back to the model (default 100,000 characters). */
  readonly maxOutputChars?: number;
}

const MODES: readonly OrchestratorMode[] = ['function_calling', 'structured'];

/**
 * Multi-turn tool-calling agent (registry key `orchestrator`). In `function_calling` mode it offers its tools
 * to the model, runs the calls the model asks for (concurrently, bounded, results in the order issued, at most
 * `maxToolCallsPerTurn` per turn, identical repeats refused and then stopped), sends the results back and
 * repeats until the model answers without tool calls or `maxTurns` is reached. `stream` runs the same loop on
 * the engine's stream. Usage over all engine calls is reported in `metadata.usage`.
 */
export class OrchestratorAgent extends BaseAgent {
  readonly agentId = 'orchestrator';
  readonly mode: OrchestratorMode;
  readonly tools: readonly Tool[];
  readonly maxTurns: number;
  readonly systemPrompt: string | undefined;
  /** The executor of this agent's tools, reporting on the agent's bus. */
  readonly executor: ToolExecutor;
  readonly #openAITools: readonly OpenAIFunctionTool[] | undefined;
  readonly #loop: FunctionCallingDeps;

  constructor(options: OrchestratorAgentOptions) {
    super(options);
    this.mode = checkMode(options.mode);
    this.tools = [...(options.tools ?? [])];
    this.maxTurns = wholeNumberOption('maxTurns', options.maxTurns, 10);
    this.systemPrompt = options.systemPrompt;
    this.executor = this.createToolExecutor(this.tools, executorOptions(options));
    this.#openAITools =
      this.tools.length > 0 ? frozenCopy(this.executor.getOpenAITools()) : undefined;
    this.#loop = this.#loopDeps(options);
  }

  /** Runs the agent on one input. */
  run(input: string, context?: AgentContext, options: AgentRunOptions = {}): Promise<AgentResult> {
    // Not async itself (one async step less per run): `#start` answers with a promise, and so do bad options.
    let signal: AbortSignal | undefined;
    let runId: string | undefined;
    try {
      signal = options.signal;
      runId = options.runId;
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#start(input, context, signal, undefined, runId);
  }

  /**
   * Runs the agent and yields its progress (`turn_start`, `text_delta`, `reasoning_delta`, `tool_call_start`,
   * `tool_call_end`, `turn_end`) and finally `result`; failures are thrown as `AgentError`. Stopping the
   * iteration early cancels the run. The run starts with the iteration. Structured mode yields only the
   * `result`.
   */
  async *stream(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): AsyncGenerator<AgentStreamEvent, void, undefined> {
    yield* streamRun(options.signal, (signal, emit) =>
      this.#start(input, context, signal, emit, options.runId),
    );
  }

  /** Starts a run; even a synchronous failure (a malformed context) becomes a rejection. */
  #start(
    input: string,
    context: AgentContext | undefined,
    signal: AbortSignal | undefined,
    emit: EmitEvent | undefined,
    runId?: string,
  ): Promise<AgentResult> {
    try {
      this.publishTurnStart(input, runId);
      if (this.mode === 'structured') {
        const options = signal === undefined ? {} : { signal };
        return runStructuredLoop(this.#structuredDeps(), input, context, options);
      }
      const messages = this.buildMessages(input, context, this.systemPrompt);
      return runFunctionCallingLoop(this.#loop, { messages, signal, emit });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #loopDeps(options: OrchestratorAgentOptions): FunctionCallingDeps {
    const parallel = options.parallelToolCalls ?? true;
    return {
      agentId: this.agentId,
      executor: this.executor,
      bus: this.bus,
      maxTurns: this.maxTurns,
      stopWhen: [stepCountIs(this.maxTurns)],
      maxToolCallsPerTurn: positiveInteger('maxToolCallsPerTurn', options.maxToolCallsPerTurn, 20),
      concurrency: parallel ? positiveInteger('maxParallelTools', options.maxParallelTools, 8) : 1,
      callModel: (messages, turn, signal, emit) => this.#callModel(messages, turn, signal, emit),
      publishTurnEnd: (data) => this.publishTurnEnd(data),
    };
  }

  #structuredDeps(): StructuredLoopDeps {
    return {
      agentId: this.agentId,
      tools: this.tools,
      executor: this.executor,
      maxTurns: this.maxTurns,
      ...(this.systemPrompt === undefined ? {} : { systemPrompt: this.systemPrompt }),
      generate: (messages, turn, signal) => this.generateTurn(messages, turn, signal),
      publishTurnEnd: (data) => this.publishTurnEnd(data),
    };
  }

  /** One model call with this agent's tools: `generate` for `run`, the engine's stream for `stream`. */
  #callModel(
    messages: readonly Message[],
    turn: number,
    signal: AbortSignal | undefined,
    emit: EmitEvent | undefined,
  ): Promise<GenerateResult> {
    const tools = this.#openAITools;
    if (emit === undefined) {
      if (tools === undefined) return this.generate(messages, signal ? { turn, signal } : { turn });
      return this.generate(messages, signal ? { turn, tools, signal } : { turn, tools });
    }
    const options: GenerateOptions = {
      model: this.model,
      temperature: this.temperature,
      maxTokens: this.maxTokens,
      ...(tools === undefined ? {} : { tools }),
      ...(signal === undefined ? {} : { signal }),
    };
    return this.streamGenerate({ engine: this.engine, messages, options, turn, emit });
  }
}

function executorOptions(
  options: OrchestratorAgentOptions,
): Omit<ToolExecutorOptions, 'bus' | 'clock'> {
  return {
    ...(options.defaultTimeoutMs === undefined
      ? {}
      : { defaultTimeoutMs: options.defaultTimeoutMs }),
    ...(options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars }),
  };
}

function checkMode(mode: unknown): OrchestratorMode {
  if (mode === undefined) return 'function_calling';
  if (MODES.includes(mode as OrchestratorMode)) return mode as OrchestratorMode;
  throw new JarvisError({
    code: 'invalid_argument',
    message: `mode must be one of ${MODES.map((name) => `'${name}'`).join(', ')}, got ${String(mode)}`,
  });
}

/**
 * A deeply frozen copy of the offered tools, sent on every model call: an engine writes out a frozen list's JSON
 * once rather than on every call (the tools' own specs stay as they are). Tools whose schemas cannot be copied
 * (functions in them) are offered as they are.
 */
function frozenCopy(tools: readonly OpenAIFunctionTool[]): readonly OpenAIFunctionTool[] {
  let copy: OpenAIFunctionTool[];
  try {
    copy = structuredClone(tools) as OpenAIFunctionTool[];
  } catch {
    return tools;
  }
  return deepFreeze(copy);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  return wholeNumberOption(name, value, fallback, { min: 1 });
}
