import {
  type AgentContext,
  type AgentResult,
  type AgentRunOptions,
  type Tool,
  wholeNumberOption,
} from '../core/index.js';
import { buildToolDescriptions, type ToolExecutor } from '../tools/index.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { runTextProtocolLoop, type TextProtocolLoopDeps } from './text-protocol-loop.js';

/** Options of a `NativeReActAgent`. */
export interface NativeReActAgentOptions extends BaseAgentOptions {
  /** Tools the model may call (default none). */
  readonly tools?: readonly Tool[];
  /** Most engine calls per run (default 10); 0 returns the max-turns result at once. */
  readonly maxTurns?: number;
  /** Replaces the default ReAct prompt (`buildReActSystemPrompt(tools)`). */
  readonly systemPrompt?: string;
}

/** Registry keys of the ReAct agent: its own key and the `react` alias. */
export const NATIVE_REACT_AGENT_KEYS = ['native_react', 'react'] as const;

/** The ReAct system prompt: the Thought / Action / Action Input or Thought / Final Answer format, then the tools. */
export function buildReActSystemPrompt(tools: readonly Tool[]): string {
  return [
    'You are a ReAct agent. For each step, respond with exactly one of:',
    '',
    '1. To use a tool:',
    'Thought: <your reasoning about what to do next>',
    'Action: <the tool name, exactly as listed below>',
    'Action Input: <the arguments as a JSON object, e.g. {"expression": "2 + 2"}; a tool with a single parameter also takes plain text, e.g. 2 + 2>',
    '',
    '2. To answer:',
    'Thought: <your reasoning>',
    'Final Answer: <the answer for the user>',
    '',
    'After an Action, stop: the result comes back to you as "Observation: <result>". Never write an Observation yourself.',
    '',
    'Available tools:',
    '',
    buildToolDescriptions(tools),
  ].join('\n');
}

/**
 * An agent for models without native tool calling: the model writes `Thought:`, `Action:` and `Action Input:`
 * lines (or `Final Answer:`), each action runs through the tool executor (id `react_<turn>`) and its result is
 * sent back as `Observation: <content>`. Forgiving of small models' formatting: case, markdown, code fences,
 * plain-text input, `Action: calculator(2+2)`.
 */
export class NativeReActAgent extends BaseAgent {
  readonly agentId: string = 'native_react';
  /** The tools offered to the model. */
  readonly tools: readonly Tool[];
  readonly maxTurns: number;
  protected readonly systemPrompt: string;
  protected readonly executor: ToolExecutor;

  constructor(options: NativeReActAgentOptions) {
    super(options);
    this.tools = [...(options.tools ?? [])];
    this.maxTurns = wholeNumberOption('maxTurns', options.maxTurns, 10);
    this.systemPrompt = options.systemPrompt || buildReActSystemPrompt(this.tools);
    this.executor = this.createToolExecutor(this.tools);
  }

  /** Runs the Thought / Action / Observation loop until a final answer or the turn limit. */
  async run(
    input: string,
    context?: AgentContext,
    options: AgentRunOptions = {},
  ): Promise<AgentResult> {
    this.publishTurnStart(input, options.runId);
    return runTextProtocolLoop(this.loopDeps(), input, context, options);
  }

  private loopDeps(): TextProtocolLoopDeps {
    return {
      agentId: this.agentId,
      tools: this.tools,
      executor: this.executor,
      maxTurns: this.maxTurns,
      systemPrompt: this.systemPrompt,
      callIdPrefix: 'react',
      generate: (messages, turn, signal) => this.generateTurn(messages, turn, signal),
      publishTurnEnd: (data) => this.publishTurnEnd(data),
    };
  }
}
