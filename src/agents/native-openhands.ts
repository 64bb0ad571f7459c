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
  toolFailure,
  ZERO_USAGE,
} from '../core/index.js';
import { buildToolDescriptions, capOutput, type ToolExecutor } from '../tools/index.js';
import { stripThinkTags } from './agent-messages.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { buildTextToolCall, parseTextProtocolReply } from './text-protocol.js';
import {
  findToolCallBlocks,
  MAX_TOOL_CALL_BLOCKS,
  stripToolCallBlocks,
  type ToolCallBlock,
  type ToolCallBlocks,
} from './tool-call-blocks.js';

/** Most characters of a tool's output fed back to the model. */
export const CODE_OBSERVATION_MAX_CHARS = 4000;

/** Options of a `NativeOpenHandsAgent`. */
export interface NativeOpenHandsAgentOptions extends BaseAgentOptions {
  /** Tools: `code_interpreter` runs the code blocks; others are called with `Action:` or `<tool_call>` blocks. */
  readonly tools?: readonly Tool[];
  /** Most engine calls per run (default 3); 0 returns the max-turns result at once. */
  readonly maxTurns?: number;
  /** Replaces the default CodeAct prompt (`buildOpenHandsSystemPrompt(tools)`). */
  readonly systemPrompt?: string;
}

/** The CodeAct system prompt: write a python block to run code, or answer plainly; then the tools. */
export function buildOpenHandsSystemPrompt(tools: readonly Tool[]): string {
  return [
    'You are a helpful assistant that solves tasks by writing and running Python code.',
    '',
    'To run code, reply with one fenced block:',
    '```python',
    'print(2 + 2)',
    '```',
    'Its output comes back to you as "Output: <text>". Print what you need to see.',
    '',
    'To call another tool, reply with:',
    'Action: <the tool name, exactly as listed below>',
    'Action Input: <the arguments as a JSON object>',
    '',
    'When you know the answer, reply with the answer only, without a code block.',
    '',
    'Available tools:',
    '',
    buildToolDescriptions(tools),
  ].join('\n');
}

/** The code of the first ```python (or ```py) block; `allowBare` also accepts an unlabelled ``` block. */
export function extractPythonBlock(text: string, allowBare = false): string | undefined {
  const pattern = allowBare
    ? /```(?:python3?|py)?[ \t]*\n([\s\S]*?)```/i
    : /```(?:python3?|py)[ \t]*\n([\s\S]*?)```/i;
  const code = pattern.exec(text)?.[1];
  return code === undefined || code.trim() === '' ? undefined : code;
}

/** Cuts an observation to `CODE_OBSERVATION_MAX_CHARS` with a marker. */
export function truncateObservation(text: string): string {
  return capOutput(text, CODE_OBSERVATION_MAX_CHARS).content;
}

/** The state of a code-running agent's loop, shared by the CodeAct and RLM agents. */
export interface CodeLoopState {
  readonly agentId: string;
  readonly signal: AbortSignal | undefined;
  readonly messages: Message[];
  readonly toolResults: ToolResult[];
  turns: number;
  usage: TokenUsage;
  publishTurnEnd(data: Readonly<Record<string, unknown>>): void;
}

/** One engine call of a code loop: sums usage; failures and cancellation become `AgentError`s. */
export async function generateCodeTurn(
  state: CodeLoopState,
  turn: number,
  generate: (messages: readonly Message[], turn: number) => Promise<GenerateResult>,
): Promise<string> {
  if (state.signal?.aborted) throw codeLoopFailure(state, 'agent_cancelled', state.signal.reason);
  let result: GenerateResult;
  try {
    result = await generate([...state.messages], turn);
  } catch (error) {
    const cancelled =
      state.signal?.aborted || (JarvisError.isInstance(error) && error.code === 'engine_cancelled');
    throw codeLoopFailure(
      state,
      cancelled ? 'agent_cancelled' : 'agent_engine_failed',
      error,
      turn,
    );
  }
  state.turns = turn;
  state.usage = addUsage(state.usage, result.usage ?? ZERO_USAGE);
  return typeof result.content === 'string' ? result.content : '';
}

/** Publishes `agent_turn_end` with the error and builds the `AgentError` carrying the partial result. */
export function codeLoopFailure(
  state: CodeLoopState,
  code: 'agent_cancelled' | 'agent_engine_failed' | 'agent_runtime_failed',
  cause: unknown,
  turn?: number,
): AgentError {
  const { agentId } = state;
  const message =
    code === 'agent_cancelled'
      ? `Agent '${agentId}' was cancelled after ${state.turns} turn(s)`
      : code === 'agent_engine_failed'
        ? `Agent '${agentId}' failed: the engine call of turn ${turn} failed: ${describeError(cause)}`
        : `Agent '${agentId}' failed: ${describeError(cause)}`;
  state.publishTurnEnd({ turns: state.turns, error: message });
  return new AgentError({
    code,
    agentId,
    message,
    cause,
    partialResult: codeLoopResult(state, ''),
  });
}

/** The result of a code loop with `content` and the state's tool results, turns and usage. */
export function codeLoopResult(
  state: CodeLoopState,
  content: string,
  metadata: Readonly<Record<string, unknown>> = {},
): AgentResult {
  return {
    content,
    toolResults: [...state.toolResults],
    turns: state.turns,
    metadata: { ...metadata, usage: state.usage },
  };
}

/**
 * A CodeAct agent: the model writes a ```python block, the agent runs it through the `code_interpreter` tool
 * (id `code_<turn>`) and sends back `Output:\n<content>`; other tools are called with `<tool_call>` blocks (see
 * `findToolCallBlocks`; up to 8 a reply, run in order, ids `tool_<turn>` or `tool_<turn>_<n>`) or with `Action:` /
 * `Action Input:` (id `tool_<turn>`), fed back as `Result: <content>`; a reply without any is the answer, with
 * any leftover `<tool_call>` markup removed.
 */
export class NativeOpenHandsAgent extends BaseAgent {
  readonly agentId: string = 'native_openhands';
  /** The tools offered to the model. */
  readonly tools: readonly Tool[];
  readonly maxTurns: number;
  protected readonly systemPrompt: string;
  protected readonly executor: ToolExecutor;

  constructor(options: NativeOpenHandsAgentOptions) {
    super({ ...options, maxTokens: options.maxTokens ?? 2048 });
    this.tools = [...(options.tools ?? [])];
    this.maxTurns = checkMaxTurns(options.maxTurns ?? 3);
    this.systemPrompt = options.systemPrompt || buildOpenHandsSystemPrompt(this.tools);
    this.executor = this.createToolExecutor(this.tools);
  }

  /** Runs the write-code / observe loop until a reply without code or the turn limit. */
  async run(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): Promise<AgentResult> {
    this.publishTurnStart(input);
    const state: CodeLoopState = {
      agentId: this.agentId,
      signal: options.signal,
      messages: this.buildMessages(input, context, this.systemPrompt),
      toolResults: [],
      turns: 0,
      usage: ZERO_USAGE,
      publishTurnEnd: (data) => this.publishTurnEnd(data),
    };
    let lastContent = '';
    for (let turn = 1; turn <= this.maxTurns; turn += 1) {
      const content = stripThinkTags(
        await generateCodeTurn(state, turn, (messages, t) => this.callEngine(messages, t, state)),
      );
      if (content.trim() !== '') lastContent = content;
      const observation = await this.act(state, content, turn);
      if (observation === undefined) return this.finish(state, content);
      state.messages.push({ role: 'assistant', content }, { role: 'user', content: observation });
    }
    return this.maxTurnsResult({
      toolResults: [...state.toolResults],
      turns: state.turns,
      content: stripToolCallBlocks(lastContent),
      metadata: { usage: state.usage },
    });
  }

  private callEngine(
    messages: readonly Message[],
    turn: number,
    state: CodeLoopState,
  ): Promise<GenerateResult> {
    return this.generate(
      messages,
      state.signal === undefined ? { turn } : { turn, signal: state.signal },
    );
  }

  /** Runs the reply's code or tool call and returns the observation, or `undefined` for a final answer. */
  private async act(
    state: CodeLoopState,
    content: string,
    turn: number,
  ): Promise<string | undefined> {
    const code = extractPythonBlock(content);
    if (code !== undefined) {
      const result = await this.runCode(state, code, turn);
      return `Output:\n${truncateObservation(result.content)}`;
    }
    const blocks = findToolCallBlocks(content, this.executor.availableTools());
    if (blocks.blocks.length > 0) return this.runToolCallBlocks(state, blocks, turn);
    const reply = parseTextProtocolReply(content);
    if (reply.kind !== 'tool_call') return undefined;
    const call = buildTextToolCall(reply, this.executor.availableTools(), `tool_${turn}`);
    const result = await this.execute(state, call);
    return `Result: ${truncateObservation(result.content)}`;
  }

  /** Runs the blocks in order (a malformed one becomes a failed result) and returns their observation. */
  private async runToolCallBlocks(
    state: CodeLoopState,
    found: ToolCallBlocks,
    turn: number,
  ): Promise<string> {
    const several = found.blocks.length > 1 || found.omitted > 0;
    const results: ToolResult[] = [];
    for (const [index, block] of found.blocks.entries()) {
      const id = several ? `tool_${turn}_${index + 1}` : `tool_${turn}`;
      results.push(await this.runBlock(state, block, id));
    }
    if (found.omitted > 0) {
      const skipped = `Only the first ${MAX_TOOL_CALL_BLOCKS} <tool_call> blocks of a reply are run; ${found.omitted} more were not run. Send them again in your next reply if you still need them.`;
      results.push(this.recordFailure(state, toolFailure('tool_call', 'too_many_calls', skipped)));
    }
    if (results.length === 1) return `Result: ${truncateObservation(results[0]?.content ?? '')}`;
    return results
      .map((result, index) => {
        const content = truncateObservation(result.content);
        return `Result ${index + 1} (${result.toolName}): ${content}`;
      })
      .join('\n\n');
  }

  private runBlock(state: CodeLoopState, block: ToolCallBlock, id: string): Promise<ToolResult> {
    if (block.kind === 'call') {
      return this.execute(state, { id, name: block.name, arguments: block.arguments });
    }
    const failure = toolFailure(block.toolName, block.errorCode, block.problem);
    return Promise.resolve(this.recordFailure(state, failure));
  }

  private recordFailure(state: CodeLoopState, result: ToolResult): ToolResult {
    state.toolResults.push(result);
    return result;
  }

  private runCode(state: CodeLoopState, code: string, turn: number): Promise<ToolResult> {
    const hasInterpreter = this.tools.some((tool) => tool.spec.name === 'code_interpreter');
    if (hasInterpreter) {
      const call = { id: `code_${turn}`, name: 'code_interpreter', arguments: { code } };
      return this.execute(state, call);
    }
    const result = toolFailure(
      'code_interpreter',
      'unknown_tool',
      'Code execution is unavailable: no code_interpreter tool is configured. Answer without running code.',
    );
    return Promise.resolve(this.recordFailure(state, result));
  }

  private async execute(
    state: CodeLoopState,
    call: { readonly id: string; readonly name: string; readonly arguments: unknown },
  ): Promise<ToolResult> {
    const signal = state.signal;
    const result = await this.executor.execute(call, signal === undefined ? {} : { signal });
    state.toolResults.push(result);
    if (signal?.aborted) throw codeLoopFailure(state, 'agent_cancelled', signal.reason);
    return result;
  }

  /** Ends the run with the reply (the text after `Final Answer:` when the model wrote one), markup removed. */
  private finish(state: CodeLoopState, content: string): AgentResult {
    const reply = parseTextProtocolReply(content);
    const answer = stripToolCallBlocks(reply.kind === 'final' ? reply.answer : content);
    this.publishTurnEnd({ turns: state.turns, contentLength: answer.length });
    return codeLoopResult(state, answer);
  }
}

/** Checks a `maxTurns` option: a whole number of at least 0. */
export function checkMaxTurns(maxTurns: number): number {
  if (!Number.isInteger(maxTurns) || maxTurns < 0) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `maxTurns must be a whole number of at least 0, got ${String(maxTurns)}`,
    });
  }
  return maxTurns;
}
