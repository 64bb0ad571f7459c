import type { JsonObject } from './json.js';

/** A JSON Schema describing a tool's arguments (an object schema in practice). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Describes a tool's interface and characteristics (tools.md `ToolSpec`). */
export interface ToolSpec {
  /** Unique tool identifier, as the model calls it. */
  readonly name: string;
  /** What the tool does; sent to the model. */
  readonly description: string;
  /** JSON Schema of the arguments object; `{}` accepts any object. */
  readonly parameters: JsonSchema;
  /** Category such as `math`, `memory`, `reasoning`; `''` when none. */
  readonly category: string;
  /** Estimated cost per invocation in US dollars. */
  readonly costEstimate: number;
  /** Estimated latency per invocation in seconds. */
  readonly latencyEstimate: number;
  /** Whether a person must approve each call before it runs. */
  readonly requiresConfirmation: boolean;
  /** Longest a call may run before it is reported as timed out; the executor's default when absent. */
  readonly timeoutMs?: number;
  readonly metadata: JsonObject;
}

/** The fields a tool author must give; the rest take the documented defaults. */
export type ToolSpecInit = Pick<ToolSpec, 'name' | 'description'> &
  Partial<Omit<ToolSpec, 'name' | 'description'>>;

/** Fills a spec with its documented defaults (`parameters: {}`, `category: ''`, zero estimates, …). */
export function createToolSpec(init: ToolSpecInit): ToolSpec {
  return {
    parameters: {},
    category: '',
    costEstimate: 0,
    latencyEstimate: 0,
    requiresConfirmation: false,
    metadata: {},
    ...init,
  };
}

/** A tool in the OpenAI function-calling format. */
export interface OpenAIFunctionTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}

/** Converts a spec to the OpenAI function-calling format (parameters passed through verbatim). */
export function toOpenAIFunction(spec: ToolSpec): OpenAIFunctionTool {
  return {
    type: 'function',
    function: { name: spec.name, description: spec.description, parameters: spec.parameters },
  };
}
