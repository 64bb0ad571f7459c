import {
  type Clock,
  createToolSpec,
  describeError,
  type EventBus,
  elapsedSeconds,
  JarvisError,
  type JsonValue,
  type OpenAIFunctionTool,
  positiveNumberOption,
  systemClock,
  type Tool,
  type ToolErrorCode,
  type ToolResult,
  type ToolSpec,
  toOpenAIFunction,
  toolFailure,
} from '../core/index.js';

/** Options here accept any positive number, Infinity included (no limit). */
const ANY_POSITIVE = { finite: false } as const;

import { type ArgumentValidator, compileArgumentValidator } from './argument-validator.js';
import { DeadlineQueue } from './deadline-queue.js';
import { capOutput } from './output-cap.js';
import { parseToolArguments } from './parse-arguments.js';
import { runWithDeadline } from './run-with-deadline.js';

/** A call to execute: a model's `ToolCall`, whose `arguments` may also be an already-parsed object. */
export interface ToolCallInput {
  readonly id?: string;
  readonly name: string;
  readonly arguments?: unknown;
}

/** What a confirmation callback is asked to approve. */
export interface ConfirmationRequest {
  readonly toolName: string;
  readonly callId: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly spec: ToolSpec;
}

/** Approves (true) or refuses (false) a call of a tool whose spec has `requiresConfirmation`. */
export type ConfirmCallback = (request: ConfirmationRequest) => boolean | Promise<boolean>;

/** Options of a `ToolExecutor`. */
export interface ToolExecutorOptions {
  /** Where `tool_call_start`, `tool_call_end` and `tool_timeout` are published. */
  readonly bus?: EventBus;
  /** Asked before each call of a tool that requires confirmation; without it such tools are refused. */
  readonly confirm?: ConfirmCallback;
  /** Timeout for tools whose spec sets none (default 30 s). */
  readonly defaultTimeoutMs?: number;
  /** Longest content handed back; longer output is cut with a marker (default 100,000 characters). */
  readonly maxOutputChars?: number;
  readonly clock?: Clock;
  /** Makes ids for calls that came without one. */
  readonly generateId?: () => string;
}

/** Per-call options. */
export interface ExecuteOptions {
  /** Cancels the call; the tool's own signal is aborted too. */
  readonly signal?: AbortSignal;
}

/** Options of `executeAll`. */
export interface ExecuteAllOptions extends ExecuteOptions {
  /** Most calls running at once (default 8). */
  readonly concurrency?: number;
}

interface ToolEntry {
  readonly tool: Tool;
  readonly spec: ToolSpec;
  readonly validate: ArgumentValidator;
  readonly timeoutMs: number;
}

interface CallState {
  readonly name: string;
  readonly callId: string;
  readonly startedMs: number;
  readonly signal: AbortSignal | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

/**
 * The central dispatch of tool calls: parses and validates arguments, asks for confirmation, runs the tool
 * with a timeout, caps its output, measures latency and reports every call on the bus. `execute` never
 * throws: every problem comes back as a failed `ToolResult` that the model can read and repair.
 */
export class ToolExecutor {
  readonly #entries = new Map<string, ToolEntry>();
  readonly #bus: EventBus | undefined;
  readonly #confirm: ConfirmCallback | undefined;
  readonly #maxOutputChars: number;
  readonly #clock: Clock;
  readonly #generateId: () => string;
  readonly #deadlines: DeadlineQueue;
  readonly #toolNames: readonly string[];

  constructor(tools: Iterable<Tool>, options: ToolExecutorOptions = {}) {
    this.#bus = options.bus;
    this.#confirm = options.confirm;
    this.#maxOutputChars = positiveNumberOption(
      'maxOutputChars',
      options.maxOutputChars,
      DEFAULT_MAX_OUTPUT_CHARS,
      ANY_POSITIVE,
    );
    this.#clock = options.clock ?? systemClock;
    this.#deadlines = new DeadlineQueue(this.#clock);
    this.#generateId = options.generateId ?? (() => `call_${crypto.randomUUID()}`);
    const defaultTimeoutMs = positiveNumberOption(
      'defaultTimeoutMs',
      options.defaultTimeoutMs,
      DEFAULT_TIMEOUT_MS,
      ANY_POSITIVE,
    );
    for (const tool of tools) this.#add(tool, defaultTimeoutMs);
    this.#toolNames = Object.freeze([...this.#entries.keys()]);
  }

  /** Specs of all tools, in the order given. */
  availableTools(): readonly ToolSpec[] {
    return [...this.#entries.values()].map((entry) => entry.spec);
  }

  /** All tools in OpenAI function-calling format, in the order given. */
  getOpenAITools(): readonly OpenAIFunctionTool[] {
    return [...this.#entries.values()].map((entry) => toOpenAIFunction(entry.spec));
  }

  /** Whether a tool of that name can be called. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Runs one call through parse, validate, confirm, execute-with-timeout, cap and report. Never throws. */
  async execute(call: ToolCallInput, options: ExecuteOptions = {}): Promise<ToolResult> {
    const state: CallState = {
      name: typeof call.name === 'string' ? call.name : String(call.name),
      callId: typeof call.id === 'string' && call.id !== '' ? call.id : this.#generateId(),
      startedMs: this.#clock.monotonicMs(),
      signal: options.signal,
    };
    const parsed = parseToolArguments(call.arguments);
    this.#publishStart(state, parsed.ok ? (parsed.value as JsonValue) : parsed.raw);
    let result: ToolResult;
    try {
      const outcome = parsed.ok
        ? this.#dispatch(state, parsed.value)
        : this.#fail(state, 'invalid_arguments', parsed.message);
      result = outcome instanceof Promise ? await outcome : outcome;
    } catch (error) {
      result = this.#fail(
        state,
        'execution_failed',
        `Tool execution error: ${describeError(error)}`,
      );
    }
    return this.#finish(state, result);
  }

  /** Runs several calls at once (at most `concurrency`) and returns their results in call order. */
  async executeAll(
    calls: readonly ToolCallInput[],
    options: ExecuteAllOptions = {},
  ): Promise<ToolResult[]> {
    const concurrency = positiveNumberOption('concurrency', options.concurrency, 8, ANY_POSITIVE);
    const results = new Array<ToolResult>(calls.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < calls.length) {
        const index = next++;
        results[index] = await this.execute(calls[index] as ToolCallInput, options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
    return results;
  }

  #add(tool: Tool, defaultTimeoutMs: number): void {
    const spec = createToolSpec(tool.spec);
    if (typeof spec.name !== 'string' || spec.name === '') {
      throw new JarvisError({
        code: 'invalid_tool_definition',
        message: 'Every tool needs a non-empty spec.name',
      });
    }
    if (this.#entries.has(spec.name)) {
      throw new JarvisError({
        code: 'invalid_tool_definition',
        message: `Two tools are named '${spec.name}'; tool names must be unique within one executor`,
      });
    }
    const timeoutMs = positiveNumberOption(
      `${spec.name}.timeoutMs`,
      spec.timeoutMs,
      defaultTimeoutMs,
      ANY_POSITIVE,
    );
    this.#entries.set(spec.name, {
      tool,
      spec,
      validate: compileArgumentValidator(spec.parameters, spec.name),
      timeoutMs,
    });
  }

  /** Validates, confirms and runs; synchronous failures come back as plain results (the hot path awaits less). */
  #dispatch(state: CallState, args: Record<string, unknown>): ToolResult | Promise<ToolResult> {
    const entry = this.#entries.get(state.name);
    if (entry === undefined) return this.#unknownTool(state);
    const check = entry.validate(args);
    if (!check.ok) return this.#invalidArguments(state, entry, check.problems);
    if (entry.spec.requiresConfirmation) {
      return this.#confirmation(state, entry, args).then(
        (refusal) => refusal ?? this.#run(state, entry, args),
      );
    }
    return this.#run(state, entry, args);
  }

  #run(state: CallState, entry: ToolEntry, args: Record<string, unknown>): Promise<ToolResult> {
    return runWithDeadline({
      entry,
      deadlines: this.#deadlines,
      args,
      callId: state.callId,
      startedMs: state.startedMs,
      signal: state.signal,
      bus: this.#bus,
      runToolNames: this.#toolNames,
      fail: (code, content) => this.#fail(state, code, content),
    });
  }

  #unknownTool(state: CallState): ToolResult {
    const available = [...this.#entries.keys()];
    const list =
      available.length === 0
        ? 'no tools are available'
        : `available tools: ${available.join(', ')}`;
    return this.#fail(state, 'unknown_tool', `Unknown tool: ${state.name} (${list})`);
  }

  #invalidArguments(state: CallState, entry: ToolEntry, problems: readonly string[]): ToolResult {
    const lines = problems.map((problem) => `- ${problem}`).join('\n');
    const expected = describeParameters(entry.spec);
    return this.#fail(
      state,
      'invalid_arguments',
      `Invalid arguments for tool '${state.name}':\n${lines}\nExpected arguments: ${expected}`,
    );
  }

  async #confirmation(
    state: CallState,
    entry: ToolEntry,
    args: Record<string, unknown>,
  ): Promise<ToolResult | undefined> {
    if (!entry.spec.requiresConfirmation) return undefined;
    if (this.#confirm === undefined) {
      return this.#fail(
        state,
        'confirmation_required',
        `Tool '${state.name}' requires confirmation but no confirmation callback is available.`,
      );
    }
    let approved: boolean;
    try {
      approved =
        (await this.#confirm({
          toolName: state.name,
          callId: state.callId,
          arguments: args,
          spec: entry.spec,
        })) === true;
    } catch (error) {
      return this.#fail(
        state,
        'confirmation_denied',
        `Tool '${state.name}' was not approved: ${describeError(error)}`,
      );
    }
    return approved
      ? undefined
      : this.#fail(state, 'confirmation_denied', `Tool '${state.name}' execution denied by user.`);
  }

  #fail(state: CallState, errorCode: ToolErrorCode, content: string): ToolResult {
    return toolFailure(state.name, errorCode, content);
  }

  #finish(state: CallState, raw: ToolResult): ToolResult {
    const capped = capOutput(raw.content, this.#maxOutputChars);
    const metadata = capped.truncated
      ? { ...raw.metadata, truncated: true, original_length: capped.originalLength }
      : raw.metadata;
    const latencySeconds = elapsedSeconds(this.#clock, state.startedMs);
    const { usage, costUsd } = raw;
    // Built field by field rather than spread: this runs on every call.
    const result: ToolResult = raw.success
      ? {
          toolName: state.name,
          content: capped.content,
          success: true,
          usage,
          costUsd,
          latencySeconds,
          metadata,
        }
      : {
          toolName: state.name,
          content: capped.content,
          success: false,
          errorCode: raw.errorCode,
          usage,
          costUsd,
          latencySeconds,
          metadata,
        };
    this.#publishEnd(state, result);
    return result;
  }

  #publishStart(state: CallState, args: JsonValue): void {
    const bus = this.#bus;
    if (bus === undefined || !bus.hasSubscribers('tool_call_start')) return;
    bus.publish('tool_call_start', { toolName: state.name, callId: state.callId, arguments: args });
  }

  #publishEnd(state: CallState, result: ToolResult): void {
    const bus = this.#bus;
    if (bus === undefined || !bus.hasSubscribers('tool_call_end')) return;
    const { name: toolName, callId } = state;
    const { latencySeconds } = result;
    bus.publish(
      'tool_call_end',
      result.success
        ? { toolName, callId, success: true, latencySeconds, result }
        : { toolName, callId, success: false, latencySeconds, errorCode: result.errorCode, result },
    );
  }
}

function describeParameters(spec: ToolSpec): string {
  const properties = (spec.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(Array.isArray(spec.parameters.required) ? spec.parameters.required : []);
  const parts = Object.entries(properties).map(([name, schema]) => {
    const type = Array.isArray(schema?.type)
      ? schema.type.join(' | ')
      : typeof schema?.type === 'string'
        ? schema.type
        : 'any';
    return `${name} (${type}${required.has(name) ? ', required' : ''})`;
  });
  return parts.length === 0 ? 'an object' : parts.join(', ');
}
