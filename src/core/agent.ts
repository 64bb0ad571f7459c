import { Conversation } from './conversation.js';
import type { AgentErrorCode } from './error-codes.js';
import { JarvisError } from './errors.js';
import type { Message, ToolCall } from './messages.js';
import type { ToolResult } from './tool-result.js';

/** The runtime context handed to an agent on each run. */
export interface AgentContext {
  /** Message history, sent before the input (pre-filled with memory context when injection is on). */
  readonly conversation: Conversation;
  /** Names of the tools available to the run. */
  readonly tools: readonly string[];
  /** Memory retrieval results fetched before the run. */
  readonly memoryResults: readonly unknown[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Builds a context; every field is optional and defaults to empty. */
export function createAgentContext(init: Partial<AgentContext> = {}): AgentContext {
  return {
    conversation: init.conversation ?? new Conversation(),
    tools: init.tools ?? [],
    memoryResults: init.memoryResults ?? [],
    metadata: init.metadata ?? {},
  };
}

/**
 * What a run produced. `metadata` uses the documented snake_case keys: `max_turns_exceeded`, `loop_detected`,
 * and `usage` (token counts summed over the run's engine calls).
 */
export interface AgentResult {
  readonly content: string;
  readonly toolResults: readonly ToolResult[];
  /** Number of turns (engine calls) taken. */
  readonly turns: number;
  readonly metadata: Readonly<Record<string, unknown>>;
  /**
   * The messages the run added after the user input, in order: assistant messages (with their tool calls,
   * reasoning stripped as the answer is) and `tool` results, ending with the final assistant answer; paired:
   * every tool call has its result. Text-protocol agents report the text they exchanged (the assistant's reply,
   * then the observation sent back as a `user` message). In an `AgentError`'s partial result: the exchanges
   * completed before the failure, without a final answer. Optional: agents written before it may leave it out.
   */
  readonly messages?: readonly Message[];
}

/** Per-run options. */
export interface AgentRunOptions {
  /** Cancels the run: reaches the engine call and the running tools. */
  readonly signal?: AbortSignal;
  /**
   * The id the run's trace is kept under (`jarvis telemetry show <id>`, `/api/runs/<id>`), chosen by the caller
   * so it can find the run afterwards: 1-128 of `A-Z a-z 0-9 . _ : -`, unique per run (default: a fresh id).
   */
  readonly runId?: string;
}

/** What a streaming run yields, in order; the last event is always `result` (or the stream throws). */
export type AgentStreamEvent =
  | { readonly type: 'turn_start'; readonly turn: number }
  | { readonly type: 'text_delta'; readonly turn: number; readonly text: string }
  | { readonly type: 'reasoning_delta'; readonly turn: number; readonly text: string }
  | { readonly type: 'tool_call_start'; readonly turn: number; readonly toolCall: ToolCall }
  | {
      readonly type: 'tool_call_end';
      readonly turn: number;
      readonly toolCall: ToolCall;
      readonly result: ToolResult;
    }
  | { readonly type: 'turn_end'; readonly turn: number; readonly content: string }
  | { readonly type: 'result'; readonly result: AgentResult };

/** The contract every agent implements; `BaseAgent` is an optional helper class behind it. */
export interface Agent {
  /** Registry key of the agent. */
  readonly agentId: string;
  /** Runs the agent on one input. */
  run(input: string, context?: AgentContext, options?: AgentRunOptions): Promise<AgentResult>;
  /** Runs the agent and yields its progress; agents without streaming support may leave it out. */
  stream?(
    input: string,
    context?: AgentContext,
    options?: AgentRunOptions,
  ): AsyncIterable<AgentStreamEvent>;
}

export type { AgentErrorCode } from './error-codes.js';

/** Options of an `AgentError`. */
export interface AgentErrorOptions {
  readonly code: AgentErrorCode;
  readonly agentId: string;
  readonly message: string;
  /** What the run had done before it failed: tool results so far, turns taken. */
  readonly partialResult: AgentResult;
  readonly cause?: unknown;
}

/**
 * A run that could not finish: the engine failed, the run was cancelled (then `name` is `AbortError`), or an
 * external runtime broke. `partialResult` keeps the work done so far.
 */
export class AgentError extends JarvisError {
  override readonly code: AgentErrorCode;
  readonly agentId: string;
  readonly partialResult: AgentResult;

  constructor(options: AgentErrorOptions) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.code = options.code;
    this.agentId = options.agentId;
    this.partialResult = options.partialResult;
    if (options.code === 'agent_cancelled') this.name = 'AbortError';
  }
}
