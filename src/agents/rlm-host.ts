import {
  addUsage,
  describeError,
  type GenerateResult,
  type JsonValue,
  type TokenUsage,
  type ToolResult,
  ZERO_USAGE,
} from '../core/index.js';
import type { ToolExecutor } from '../tools/index.js';
import { stripThinkTags } from './agent-messages.js';

/** Most `llm_query` prompts one run may send (a batch counts each prompt). */
export const RLM_MAX_SUB_CALLS = 64;

/** What the interpreter's `host_call`s reach during a run, and what they leave behind. */
export interface RlmHostState {
  /** Sends one `llm_query` prompt to the sub-model (with the agent's inference events around it). */
  readonly subGenerate: (prompt: string) => Promise<GenerateResult>;
  readonly executor: ToolExecutor;
  readonly context: string;
  readonly signal: AbortSignal | undefined;
  readonly toolResults: ToolResult[];
  usage: TokenUsage;
  subCalls: number;
  toolCalls: number;
  /** Set by `FINAL` / `FINAL_VAR` (or `answer["ready"]`). */
  final: string | undefined;
  /** `answer["value"]` reported when the turns ran out. */
  partial: string;
}

/** Answers the interpreter's `host_call(name, payload)`: context, sub-model queries, tools, FINAL. */
export async function answerHostCall(
  state: RlmHostState,
  name: string,
  payload: JsonValue,
): Promise<JsonValue> {
  switch (name) {
    case 'context':
      return state.context;
    case 'llm_query':
      return subQuery(state, String(payload));
    case 'llm_batch':
      return llmBatch(state, payload);
    case 'tool':
      return callTool(state, payload);
    case 'final':
      state.final = String(payload);
      return null;
    case 'partial':
      state.partial = String(payload);
      return null;
    default:
      throw new Error(`unknown host function '${name}'`);
  }
}

async function llmBatch(state: RlmHostState, payload: JsonValue): Promise<JsonValue> {
  if (!Array.isArray(payload)) throw new Error('llm_batch expects a list of prompts');
  const answers: string[] = [];
  for (const prompt of payload) answers.push(await subQuery(state, String(prompt)));
  return answers;
}

/** One sub-model call (the agent sends it: temperature 0.3, 1,024 tokens, no tools); its usage is added to the run's. */
async function subQuery(state: RlmHostState, prompt: string): Promise<string> {
  if (state.subCalls >= RLM_MAX_SUB_CALLS)
    throw new Error(`llm_query limit reached (${RLM_MAX_SUB_CALLS} calls per run)`);
  state.subCalls += 1;
  try {
    const result = await state.subGenerate(prompt);
    state.usage = addUsage(state.usage, result.usage ?? ZERO_USAGE);
    return stripThinkTags(typeof result.content === 'string' ? result.content : '');
  } catch (error) {
    throw new Error(`llm_query failed: ${describeError(error)}`);
  }
}

async function callTool(state: RlmHostState, payload: JsonValue): Promise<JsonValue> {
  const request: Readonly<Record<string, JsonValue>> =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? (payload as Readonly<Record<string, JsonValue>>)
      : {};
  const name = typeof request.name === 'string' ? request.name : '';
  state.toolCalls += 1;
  const result = await state.executor.execute(
    { id: `rlm_tool_${state.toolCalls}`, name, arguments: request.arguments ?? {} },
    state.signal === undefined ? {} : { signal: state.signal },
  );
  state.toolResults.push(result);
  if (!result.success) throw new Error(result.content);
  return result.content;
}
