import type { GenerateOptions, OpenAIFunctionTool } from '../../core/index.js';

/**
 * The tools a call offers after its `toolChoice`: `none` offers none, naming one function offers only that
 * one; `auto` and `required` offer them all. Tool calls written as text are looked for only among these.
 */
export function offeredTools(options: GenerateOptions): readonly OpenAIFunctionTool[] {
  const tools = options.tools ?? [];
  const choice = options.toolChoice;
  if (choice === 'none') return [];
  if (typeof choice !== 'object') return tools;
  return tools.filter((tool) => tool.function.name === choice.function.name);
}

/** The names of the tools whose calls are also looked for in the answer text; none when `enabled` is false. */
export function textToolNames(options: GenerateOptions, enabled: boolean): string[] {
  return enabled ? offeredTools(options).map((tool) => tool.function.name) : [];
}
