import {
  type Agent,
  type AgentContext,
  AgentError,
  type AgentErrorCode,
  type AgentResult,
  type AgentRunOptions,
  describeError,
  type EventBus,
  type InferenceEngine,
  JarvisError,
  type JsonObject,
  type Message,
  type Tool,
  type ToolResult,
  wholeNumberOption,
} from '../../core/index.js';
import { ToolExecutor } from '../../tools/index.js';
import { failureTurnEnd } from '../run-failure.js';
import { maxTurnsResult, withFinalAnswer } from '../run-results.js';
import { stepCountIs } from '../stop-conditions.js';
import { HttpTransport } from './http-transport.js';
import { createOpenClawMessage, type OpenClawIdOptions, type OpenClawMessage } from './protocol.js';
import { SubprocessTransport } from './subprocess-transport.js';
import type { OpenClawTransport } from './transport.js';

/** How `OpenClawAgent` reaches the runtime when no transport is given. */
export type OpenClawMode = 'http' | 'subprocess';

/** Options of an `OpenClawAgent`. */
export interface OpenClawAgentOptions extends OpenClawIdOptions {
  /** Accepted for symmetry with the other agents; the runtime brings its own model access. */
  readonly engine?: InferenceEngine;
  /** Model name passed to the runtime in the query's `metadata.model` (default `''`). */
  readonly model?: string;
  /** A ready transport; overrides `mode`, `host`, `scriptPath`, `nodePath` and `timeoutMs`. The caller closes it. */
  readonly transport?: OpenClawTransport;
  /** `http` (default) or `subprocess`. */
  readonly mode?: OpenClawMode;
  readonly bus?: EventBus;
  /** The only tools the runtime may call (default none); each call goes through a `ToolExecutor`. */
  readonly tools?: readonly Tool[];
  /** HTTP mode: the runtime's base URL (default `http://localhost:18789`). */
  readonly host?: string;
  /** Subprocess mode: the runtime's Node entry script (required in that mode). */
  readonly scriptPath?: string;
  /** Subprocess mode: the Node.js binary (default: the one running this process). */
  readonly nodePath?: string;
  /** Read timeout of the transport the agent creates (default 30 s). */
  readonly timeoutMs?: number;
  /** Health-check timeout of the transport the agent creates (default 5 s). */
  readonly healthTimeoutMs?: number;
  /** Most messages sent to the runtime per run: the query plus tool results (default 10). */
  readonly maxTurns?: number;
}

interface RunState {
  readonly toolResults: ToolResult[];
  turns: number;
  /** The completed exchanges: each `tool_call` as an assistant message, then its `tool` result. */
  readonly messages: Message[];
}

const AGENT_ID = 'openclaw';

/**
 * Drives an external OpenClaw agent runtime (over HTTP or a Node subprocess) and executes the tool calls it asks
 * for locally, limited to this agent's tools.
 *
 * A run: 1. publishes `agent_turn_start`; 2. checks the runtime's health (once, and again after a failure);
 * 3. sends `query` with the input and `metadata: { model, conversation }`; 4. while the reply is `tool_call` and
 * fewer than `maxTurns` messages were sent, executes it and sends `tool_result`; 5. returns the `response`, or the
 * max-turns result; an `error` reply, a transport failure or cancellation throws `AgentError` with the partial
 * result. `agent_turn_end` is always published. The result's `messages` report each `tool_call` as an assistant
 * message calling it (with the runtime's id) followed by its `tool` result, then the answer.
 */
export class OpenClawAgent implements Agent {
  readonly agentId = AGENT_ID;
  readonly engine: InferenceEngine | undefined;
  readonly model: string;
  readonly maxTurns: number;
  readonly transport: OpenClawTransport;
  readonly #ownsTransport: boolean;
  readonly #bus: EventBus | undefined;
  readonly #tools: readonly Tool[];
  readonly #executor: ToolExecutor;
  readonly #idOptions: OpenClawIdOptions;
  #healthy = false;

  constructor(options: OpenClawAgentOptions = {}) {
    this.engine = options.engine;
    this.model = options.model ?? '';
    this.maxTurns = wholeNumberOption('maxTurns', options.maxTurns, 10, {
      min: 1,
      meaning: 'the most messages sent per run',
    });
    this.#bus = options.bus;
    this.#tools = [...(options.tools ?? [])];
    this.#executor = this.#createExecutor(this.#tools);
    this.#idOptions = options.generateId === undefined ? {} : { generateId: options.generateId };
    this.#ownsTransport = options.transport === undefined;
    this.transport = options.transport ?? createTransport(options);
  }

  /** Runs one query through the runtime; see the class description for the steps. */
  async run(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): Promise<AgentResult> {
    const state: RunState = { toolResults: [], turns: 0, messages: [] };
    this.#bus?.publish(
      'agent_turn_start',
      options.runId === undefined
        ? { agent: AGENT_ID, input }
        : { agent: AGENT_ID, input, runId: options.runId },
    );
    try {
      return await this.#converse(input, context, options.signal, state);
    } catch (error) {
      const failure = this.#toAgentError(error, state, options.signal);
      this.#publishTurnEnd(failureTurnEnd(failure));
      throw failure;
    }
  }

  /** Closes the transport when the agent created it (a transport passed in is left to its owner). */
  async close(): Promise<void> {
    if (this.#ownsTransport) await this.transport.close();
  }

  async #converse(
    input: string,
    context: AgentContext | undefined,
    signal: AbortSignal | undefined,
    state: RunState,
  ): Promise<AgentResult> {
    signal?.throwIfAborted();
    await this.#ensureHealthy(signal, state);
    const executor = this.#executorFor(context);
    let reply = await this.#send(this.#query(input, context), signal, state);
    const outOfTurns = stepCountIs(this.maxTurns);
    while (reply.type === 'tool_call' && !outOfTurns(state)) {
      const result = await executor.execute(
        { id: reply.id, name: reply.toolName ?? '', arguments: reply.toolArgs ?? {} },
        signal === undefined ? {} : { signal },
      );
      state.toolResults.push(result);
      state.messages.push(...toolExchange(reply, result));
      signal?.throwIfAborted();
      reply = await this.#send(this.#toolResult(reply, result), signal, state);
    }
    return this.#finish(reply, state);
  }

  async #ensureHealthy(signal: AbortSignal | undefined, state: RunState): Promise<void> {
    if (this.#healthy) return;
    const healthy = await this.transport.health(signal === undefined ? {} : { signal });
    signal?.throwIfAborted();
    if (!healthy) {
      const reason =
        this.transport.lastHealthFailure ??
        'the health check failed; start the OpenClaw runtime and make sure it answers health checks';
      throw this.#agentError(
        'agent_runtime_failed',
        `OpenClaw runtime is not available (${this.transport.description}): ${reason}`,
        state,
      );
    }
    this.#healthy = true;
  }

  async #send(
    message: OpenClawMessage,
    signal: AbortSignal | undefined,
    state: RunState,
  ): Promise<OpenClawMessage> {
    const reply = await this.transport.send(message, signal === undefined ? {} : { signal });
    state.turns += 1;
    return reply;
  }

  #query(input: string, context: AgentContext | undefined): OpenClawMessage {
    const conversation = (context?.conversation.messages ?? []).map(conversationEntry);
    return createOpenClawMessage(
      { type: 'query', content: input, metadata: { model: this.model, conversation } },
      this.#idOptions,
    );
  }

  #toolResult(call: OpenClawMessage, result: ToolResult): OpenClawMessage {
    const metadata: JsonObject = result.success
      ? { tool_call_id: call.id, success: true }
      : { tool_call_id: call.id, success: false, error_code: result.errorCode };
    return createOpenClawMessage(
      { type: 'tool_result', toolName: result.toolName, toolResult: result.content, metadata },
      this.#idOptions,
    );
  }

  #finish(reply: OpenClawMessage, state: RunState): AgentResult {
    const { toolResults, turns, messages } = state;
    if (reply.type === 'response') {
      this.#publishTurnEnd({ turns });
      const content = reply.content;
      return {
        content,
        toolResults,
        turns,
        metadata: {},
        messages: withFinalAnswer(messages, content),
      };
    }
    if (reply.type === 'tool_call') {
      const publish = (data: Readonly<Record<string, unknown>>) => this.#publishTurnEnd(data);
      return maxTurnsResult(publish, { toolResults, turns, messages });
    }
    if (reply.type === 'error') {
      const reported = reply.error || reply.content || 'Unknown error from OpenClaw';
      throw this.#agentError(
        'agent_runtime_failed',
        `OpenClaw runtime reported an error: ${reported}`,
        state,
      );
    }
    throw this.#agentError(
      'agent_runtime_failed',
      `OpenClaw runtime answered with an unexpected "${reply.type}" message; expected "response", "tool_call" or "error"`,
      state,
    );
  }

  /** The executor of this run: the agent's tools, narrowed to `context.tools` when the context names any. */
  #executorFor(context: AgentContext | undefined): ToolExecutor {
    const names = context?.tools ?? [];
    if (names.length === 0) return this.#executor;
    const allowed = new Set(names);
    return this.#createExecutor(this.#tools.filter((tool) => allowed.has(tool.spec.name)));
  }

  #createExecutor(tools: readonly Tool[]): ToolExecutor {
    return new ToolExecutor(tools, this.#bus === undefined ? {} : { bus: this.#bus });
  }

  #toAgentError(error: unknown, state: RunState, signal: AbortSignal | undefined): AgentError {
    if (signal?.aborted === true) {
      return this.#agentError(
        'agent_cancelled',
        'OpenClaw run was cancelled',
        state,
        signal.reason,
      );
    }
    if (error instanceof AgentError) return error;
    this.#healthy = false;
    return this.#agentError(
      'agent_runtime_failed',
      `OpenClaw runtime failed: ${describeError(error)}`,
      state,
      error,
    );
  }

  #agentError(code: AgentErrorCode, message: string, state: RunState, cause?: unknown): AgentError {
    const partialResult: AgentResult = {
      content: '',
      toolResults: [...state.toolResults],
      turns: state.turns,
      metadata: {},
      messages: [...state.messages],
    };
    return new AgentError({ code, agentId: AGENT_ID, message, partialResult, cause });
  }

  #publishTurnEnd(data: Readonly<Record<string, unknown>>): void {
    this.#bus?.publish('agent_turn_end', { agent: AGENT_ID, ...data });
  }
}

/**
 * One history message as the query's `conversation` carries it: `{ role, content }`, plus the OpenAI-shaped
 * `tool_calls` of an assistant message that called tools and the `tool_call_id` of a tool result, so a runtime
 * that hands the history to a chat API keeps every call paired with its result.
 */
function conversationEntry(message: Message): JsonObject {
  const { role, content, toolCalls, toolCallId } = message;
  if (toolCalls !== undefined && toolCalls.length > 0) {
    const calls = toolCalls.map(({ id, name, arguments: args }) => ({
      id,
      type: 'function',
      function: { name, arguments: args },
    }));
    return { role, content, tool_calls: calls };
  }
  if (role === 'tool' && toolCallId !== undefined)
    return { role, content, tool_call_id: toolCallId };
  return { role, content };
}

/** A runtime's `tool_call` and the result sent back, as the run reports them: an assistant call and its result. */
function toolExchange(call: OpenClawMessage, result: ToolResult): readonly Message[] {
  const toolCall = {
    id: call.id,
    name: call.toolName ?? '',
    arguments: JSON.stringify(call.toolArgs ?? {}),
  };
  return [
    { role: 'assistant', content: call.content, toolCalls: [toolCall] },
    { role: 'tool', content: result.content, toolCallId: call.id, name: toolCall.name },
  ];
}

function createTransport(options: OpenClawAgentOptions): OpenClawTransport {
  const mode = options.mode ?? 'http';
  const shared = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.healthTimeoutMs === undefined ? {} : { healthTimeoutMs: options.healthTimeoutMs }),
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
  };
  if (mode === 'http') {
    return new HttpTransport({
      ...shared,
      ...(options.host === undefined ? {} : { host: options.host }),
    });
  }
  if (mode === 'subprocess') {
    if (options.scriptPath === undefined || options.scriptPath === '') {
      throw new JarvisError({
        code: 'invalid_argument',
        message:
          "OpenClaw mode 'subprocess' needs scriptPath: the path of the OpenClaw runtime's Node entry script",
      });
    }
    const nodePath = options.nodePath === undefined ? {} : { nodePath: options.nodePath };
    return new SubprocessTransport({ ...shared, ...nodePath, scriptPath: options.scriptPath });
  }
  throw new JarvisError({
    code: 'invalid_argument',
    message: `Unknown OpenClaw mode: ${JSON.stringify(mode)}. Use 'http' or 'subprocess'.`,
  });
}
