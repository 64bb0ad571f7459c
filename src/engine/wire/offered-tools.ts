import type { GenerateOptions, JsonSchema, OpenAIFunctionTool } from '../../core/index.js';
import type { OfferedToolSet } from './formats/tool-call-format.js';

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

/** The offered tools whose calls are also looked for in the answer text (none when `enabled` is false). */
export function textToolSet(options: GenerateOptions, enabled: boolean): OfferedToolSet {
  const tools = enabled ? offeredTools(options) : [];
  const schemas = new Map(tools.map((tool) => [tool.function.name, tool.function.parameters]));
  return {
    names: new Set(schemas.keys()),
    parametersOf: (name) => schemas.get(name) as JsonSchema | undefined,
  };
}
