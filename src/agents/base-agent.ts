import {
  type Agent,
  type AgentContext,
  type AgentResult,
  type AgentRunOptions,
  type Clock,
  createRedactor,
  describeError,
  type EventBus,
  type EventPayloadMap,
  elapsedSeconds,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  type Message,
  systemClock,
  type Tool,
  ZERO_USAGE,
} from '../core/index.js';
import { type ConfirmCallback, ToolExecutor, type ToolExecutorOptions } from '../tools/index.js';
import { buildAgentMessages } from './agent-messages.js';
import { collectStream, type StreamedTurn } from './orchestrator-stream.js';
import { type MaxTurnsRecord, maxTurnsResult } from './run-results.js';
import { createTurnLoopState, type TurnLoopState } from './turn-loop.js';

type InferenceStartPayload = EventPayloadMap['inference_start'];
type InferenceEndPayload = EventPayloadMap['inference_end'];

/** Options shared by the engine-backed agents. */
export interface BaseAgentOptions {
  readonly engine: InferenceEngine;
  /** Model identifier as the engine knows it. */
  readonly model: string;
  /** Where the agent publishes its events. */
  readonly bus?: EventBus;
  /** Sampling temperature (default 0.7). */
  readonly temperature?: number;
  /** Most tokens per answer (default 1024). */
  readonly maxTokens?: number;
  readonly clock?: Clock;
  /** Asked before each call of a tool that requires confirmation; without it such tools are refused. */
  readonly confirm?: ConfirmCallback;
}

/** Per-call extras of `BaseAgent.generate`. */
export type AgentGenerateExtras = Partial<
  Pick<GenerateOptions, 'tools' | 'toolChoice' | 'signal' | 'model' | 'temperature' | 'maxTokens'>
> & {
  /** The turn this call belongs to (1-based), reported on the inference events. */
  readonly turn: number;
};

/** The agent's settings, overridden by the call's own (an extra left `undefined` overrides too, as a spread would). */
function generateOptions(
  model: string,
  temperature: number,
  maxTokens: number,
  extras: AgentGenerateExtras,
): GenerateOptions {
  // Written out rather than rest-and-spread: this runs on every model call. Extras stay own properties only
  // when present, so the options look the same as a spread of them would.
  const options: { -readonly [K in keyof GenerateOptions]: GenerateOptions[K] } = {
    model,
    temperature,
    maxTokens,
  };
  if ('model' in extras) options.model = extras.model as string;
  if ('temperature' in extras) options.temperature = extras.temperature as number;
  if ('maxTokens' in extras) options.maxTokens = extras.maxTokens as number;
  if ('tools' in extras) options.tools = extras.tools as NonNullable<GenerateOptions['tools']>;
  if ('toolChoice' in extras)
    options.toolChoice = extras.toolChoice as NonNullable<GenerateOptions['toolChoice']>;
  if ('signal' in extras) options.signal = extras.signal as AbortSignal;
  return options;
}

/** Core's redaction of secret shapes (bearer tokens, `api_key=...`, `sk-...`) for published error texts. */
const redactShapes = createRedactor();

/** The `inference_end` payload of a call that returned `result`. */
function succeededCall(
  start: InferenceStartPayload,
  latencySeconds: number,
  result: GenerateResult,
): InferenceEndPayload {
  // `??`: a non-conforming engine may leave out usage or ttft; the payload stays well-formed.
  const usage = result.usage ?? ZERO_USAGE;
  return { ...start, success: true, latencySeconds, usage, ttftSeconds: result.ttftSeconds ?? 0 };
}

/** The `inference_end` payload of a call that threw `error`. */
function failedCall(
  start: InferenceStartPayload,
  latencySeconds: number,
  error: unknown,
): InferenceEndPayload {
  const usage = ZERO_USAGE;
  const message = redactShapes(describeError(error));
  return { ...start, success: false, latencySeconds, usage, ttftSeconds: 0, error: message };
}

/**
 * Helper base class for agents that call an engine: holds the engine settings and provides message building,
 * turn events, inference events around each engine call, and the max-turns result.
 */
export abstract class BaseAgent implements Agent {
  abstract readonly agentId: string;
  protected readonly engine: InferenceEngine;
  protected readonly model: string;
  protected readonly bus: EventBus | undefined;
  protected readonly temperature: number;
  protected readonly maxTokens: number;
  protected readonly clock: Clock;
  protected readonly confirm: ConfirmCallback | undefined;

  constructor(options: BaseAgentOptions) {
    this.engine = options.engine;
    this.model = options.model;
    this.bus = options.bus;
    this.temperature = options.temperature ?? 0.7;
    this.maxTokens = options.maxTokens ?? 1024;
    this.clock = options.clock ?? systemClock;
    this.confirm = options.confirm;
  }

  /** Runs the agent on one input. */
  abstract run(
    input: string,
    context?: AgentContext,
    options?: AgentRunOptions,
  ): Promise<AgentResult>;

  /**
   * A ToolExecutor for `tools` that reports on the agent's bus, measures with the agent's clock and asks the
   * agent's `confirm` callback before tools that require confirmation.
   */
  protected createToolExecutor(
    tools: readonly Tool[],
    options: Omit<ToolExecutorOptions, 'bus' | 'clock'> = {},
  ): ToolExecutor {
    return new ToolExecutor(tools, {
      ...(this.confirm === undefined ? {} : { confirm: this.confirm }),
      ...options,
      clock: this.clock,
      ...(this.bus === undefined ? {} : { bus: this.bus }),
    });
  }

  /** System prompt (when given), context conversation, then the user input. */
  protected buildMessages(input: string, context?: AgentContext, systemPrompt?: string): Message[] {
    return buildAgentMessages(input, context, systemPrompt);
  }

  /** Publishes `agent_turn_start` `{ agent, input }` (and the caller's `runId`, when the run has one). */
  protected publishTurnStart(input: string, runId?: string): void {
    this.bus?.publish(
      'agent_turn_start',
      runId === undefined ? { agent: this.agentId, input } : { agent: this.agentId, input, runId },
    );
  }

  /** Publishes `agent_turn_end` `{ agent, ...data }`. */
  protected publishTurnEnd(data: Readonly<Record<string, unknown>>): void {
    this.bus?.publish('agent_turn_end', { agent: this.agentId, ...data });
  }

  /**
   * Calls the engine with the agent's model, temperature and token limit (or the call's own, e.g. a
   * sub-model's); publishes `inference_start` and `inference_end` around it.
   */
  protected generate(
    messages: readonly Message[],
    extras: AgentGenerateExtras,
  ): Promise<GenerateResult> {
    const options = generateOptions(this.model, this.temperature, this.maxTokens, extras);
    const bus = this.bus;
    // Without a bus there is nothing to report: the engine's own promise is the answer.
    if (bus === undefined) {
      try {
        return this.engine.generate(messages, options);
      } catch (error) {
        // An engine written in plain JavaScript may throw rather than reject; callers always get a promise.
        return Promise.reject(error);
      }
    }
    return this.#reported(options.model, extras.turn, () =>
      this.engine.generate(messages, options),
    );
  }

  /**
   * Streams one model call (text and reasoning passed on as events) and returns what `generate` would have;
   * publishes `inference_start` and `inference_end` around it.
   */
  protected streamGenerate(call: StreamedTurn): Promise<GenerateResult> {
    return this.#reported(this.model, call.turn, () => collectStream(call));
  }

  /**
   * Runs one model call between `inference_start` and `inference_end`: the agent is their only publisher
   * (engines, instrumented or not, never publish them), so every call has exactly one pair.
   */
  async #reported(
    model: string,
    turn: number,
    call: () => Promise<GenerateResult>,
  ): Promise<GenerateResult> {
    const bus = this.bus;
    if (bus === undefined) return call();
    const start: InferenceStartPayload = { model, engine: this.engine.engineId, turn };
    bus.publish('inference_start', start);
    const startedMs = this.clock.monotonicMs();
    try {
      const result = await call();
      bus.publish(
        'inference_end',
        succeededCall(start, elapsedSeconds(this.clock, startedMs), result),
      );
      return result;
    } catch (error) {
      bus.publish('inference_end', failedCall(start, elapsedSeconds(this.clock, startedMs), error));
      throw error;
    }
  }

  /** The documented result of a run that hit its turn limit, after publishing `agent_turn_end`. */
  protected maxTurnsResult(record: MaxTurnsRecord): AgentResult {
    return maxTurnsResult((data) => this.publishTurnEnd(data), record);
  }

  /** Publishes `agent_turn_start` and returns the state of a turn loop over the run's opening messages. */
  protected startTurnLoop(
    input: string,
    context: AgentContext | undefined,
    signal: AbortSignal | undefined,
    systemPrompt?: string,
    runId?: string,
  ): TurnLoopState {
    this.publishTurnStart(input, runId);
    return createTurnLoopState({
      agentId: this.agentId,
      signal,
      messages: this.buildMessages(input, context, systemPrompt),
      publishTurnEnd: (data) => this.publishTurnEnd(data),
    });
  }

  /** One engine call of turn `turn` with the agent's settings and the run's signal (when it has one). */
  protected generateTurn(
    messages: readonly Message[],
    turn: number,
    signal: AbortSignal | undefined,
  ): Promise<GenerateResult> {
    return this.generate(messages, signal === undefined ? { turn } : { turn, signal });
  }
}
