import {
  type AgentContext,
  type AgentResult,
  type AgentRunOptions,
  type Message,
  type Tool,
  type ToolResult,
  toolFailure,
  wholeNumberOption,
} from '../core/index.js';
import { buildToolDescriptions, type ToolExecutor } from '../tools/index.js';
import { stripThinkTags } from './agent-messages.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { extractPythonBlock, truncateObservation } from './code-blocks.js';
import { answerResult, outOfTurnsResult } from './run-results.js';
import { stepCountIs } from './stop-conditions.js';
import { buildTextToolCall, parseTextProtocolReply } from './text-protocol.js';
import {
  findToolCallBlocks,
  MAX_TOOL_CALL_BLOCKS,
  stripToolCallBlocks,
  type ToolCallBlock,
  type ToolCallBlocks,
} from './tool-call-blocks.js';
import {
  answerText,
  engineTurn,
  executeCall,
  recordExchange,
  runTurnLoop,
  type TurnLoopState,
} from './turn-loop.js';

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
    this.maxTurns = wholeNumberOption('maxTurns', options.maxTurns, 3);
    this.systemPrompt = options.systemPrompt || buildOpenHandsSystemPrompt(this.tools);
    this.executor = this.createToolExecutor(this.tools);
  }

  /** Runs the write-code / observe loop until a reply without code or the turn limit. */
  async run(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): Promise<AgentResult> {
    const state = this.startTurnLoop(
      input,
      context,
      options.signal,
      this.systemPrompt,
      options.runId,
    );
    let lastContent = '';
    return runTurnLoop(state, {
      stopWhen: [stepCountIs(this.maxTurns)],
      step: async (turn) => {
        const content = await this.reply(state, turn);
        if (content.trim() !== '') lastContent = content;
        return this.actOrFinish(state, content, turn);
      },
      outOfTurns: () => outOfTurnsResult(state, stripToolCallBlocks(lastContent)),
    });
  }

  /** The model's reply of turn `turn`, reasoning removed. */
  private async reply(state: TurnLoopState, turn: number): Promise<string> {
    const { messages, signal } = state;
    const answer = await engineTurn(state, turn, () =>
      this.generateTurn([...messages], turn, signal),
    );
    return stripThinkTags(answerText(answer));
  }

  /** Runs the reply's code or tool call and appends the exchange, or ends the run when it is the answer. */
  private async actOrFinish(
    state: TurnLoopState,
    content: string,
    turn: number,
  ): Promise<AgentResult | undefined> {
    const observation = await this.act(state, content, turn);
    if (observation === undefined) return this.finish(state, content);
    const exchange: readonly Message[] = [
      { role: 'assistant', content },
      { role: 'user', content: observation },
    ];
    state.messages.push(...exchange);
    recordExchange(state, ...exchange);
    return undefined;
  }

  /** Runs the reply's code or tool call and returns the observation, or `undefined` for a final answer. */
  private async act(
    state: TurnLoopState,
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
    state: TurnLoopState,
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

  private runBlock(state: TurnLoopState, block: ToolCallBlock, id: string): Promise<ToolResult> {
    if (block.kind === 'call') {
      return this.execute(state, { id, name: block.name, arguments: block.arguments });
    }
    const failure = toolFailure(block.toolName, block.errorCode, block.problem);
    return Promise.resolve(this.recordFailure(state, failure));
  }

  private recordFailure(state: TurnLoopState, result: ToolResult): ToolResult {
    state.toolResults.push(result);
    return result;
  }

  private runCode(state: TurnLoopState, code: string, turn: number): Promise<ToolResult> {
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

  private execute(
    state: TurnLoopState,
    call: { readonly id: string; readonly name: string; readonly arguments: unknown },
  ): Promise<ToolResult> {
    return executeCall(state, this.executor, call);
  }

  /** Ends the run with the reply (the text after `Final Answer:` when the model wrote one), markup removed. */
  private finish(state: TurnLoopState, content: string): AgentResult {
    const reply = parseTextProtocolReply(content);
    const answer = stripToolCallBlocks(reply.kind === 'final' ? reply.answer : content);
    return answerResult(state, answer);
  }
}
