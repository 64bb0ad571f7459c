import type {
  ChatModelFunctions,
  ChatWrapper,
  ChatWrapperGeneratedContextState,
  ChatWrapperGeneratedPrefixTriggersContextState,
  LlamaText,
} from 'node-llama-cpp';
import {
  JarvisError,
  type OpenAIFunctionTool,
  type ToolCall,
  type ToolChoice,
} from '../../core/index.js';
import { toGbnfJsonSchema } from './embedded-llama-schema.js';

/** The functions offered to node-llama-cpp for one call, and whether the model must call one of them. */
export interface FunctionSelection {
  /** Absent when no tools are offered or `toolChoice` is `none`. */
  readonly functions?: ChatModelFunctions;
  /** True for `toolChoice` `required` or a named function: the answer is a call, never text. */
  readonly forced: boolean;
}

/** Picks the functions to offer from the tools and `toolChoice`; a named function must be among the tools. */
export function selectFunctions(
  tools: readonly OpenAIFunctionTool[] | undefined,
  toolChoice: ToolChoice | undefined,
): FunctionSelection {
  if (tools === undefined || tools.length === 0 || toolChoice === 'none') return { forced: false };
  if (toolChoice === undefined || toolChoice === 'auto' || toolChoice === 'required') {
    return { functions: toChatModelFunctions(tools), forced: toolChoice === 'required' };
  }
  const name = toolChoice.function.name;
  const chosen = tools.filter((tool) => tool.function.name === name);
  if (chosen.length === 0) {
    const offered = tools.map((tool) => tool.function.name).join(', ');
    throw new JarvisError({
      code: 'invalid_argument',
      message: `toolChoice names '${name}', which is not among the offered tools (${offered})`,
    });
  }
  return { functions: toChatModelFunctions(chosen), forced: true };
}

/** Converts OpenAI function tools to node-llama-cpp function definitions with grammar-ready schemas. */
export function toChatModelFunctions(tools: readonly OpenAIFunctionTool[]): ChatModelFunctions {
  const functions: Record<string, ChatModelFunctions[string]> = {};
  for (const tool of tools) {
    functions[tool.function.name] = {
      description: tool.function.description,
      params: toGbnfJsonSchema(tool.function.parameters),
    };
  }
  return functions;
}

/**
 * Wraps a chat wrapper so the model's answer starts in function-calling mode: after the prompt, the
 * wrapper's call prefix is injected and the grammar makes the model pick one of the offered functions.
 */
export function forceFunctionCall(
  wrapper: ChatWrapper,
  createText: (value: ChatWrapper['settings']['functions']['call']['prefix']) => LlamaText,
): ChatWrapper {
  const inject = createText(wrapper.settings.functions.call.prefix);
  const forced = Object.create(wrapper) as ChatWrapper;
  forced.generateContextState = (options) =>
    startWithFunctionCall(wrapper.generateContextState(options), inject);
  return forced;
}

function startWithFunctionCall(
  state: ChatWrapperGeneratedContextState,
  inject: LlamaText,
): ChatWrapperGeneratedPrefixTriggersContextState {
  return {
    contextText: state.contextText,
    stopGenerationTriggers: state.stopGenerationTriggers,
    prefixTriggers: [],
    noPrefixTrigger: { type: 'functionCall', inject },
    detectFunctionCalls: false,
  };
}

/** Converts node-llama-cpp's function calls to our flat tool calls, arguments as JSON text. */
export function toToolCalls(
  calls: readonly { readonly functionName: string; readonly params?: unknown }[] | undefined,
  generateId: () => string,
): ToolCall[] {
  return (calls ?? []).map((call) => ({
    id: generateId(),
    name: call.functionName,
    arguments: JSON.stringify(call.params ?? {}),
  }));
}
