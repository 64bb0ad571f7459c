import {
  createToolSpec,
  type JsonSchema,
  type Tool,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
  toolFailure,
  toolSuccess,
} from '../core/index.js';

/** One scripted answer: text, a full result, an error to throw, or a function of the arguments. */
export type ScriptedToolStep =
  | string
  | ToolResult
  | Error
  | ((
      args: ToolArguments,
      context: ToolContext | undefined,
    ) => string | ToolResult | Promise<string | ToolResult>);

/** Options of a `ScriptedTool`. */
export interface ScriptedToolOptions {
  readonly name: string;
  readonly description?: string;
  readonly parameters?: JsonSchema;
  readonly requiresConfirmation?: boolean;
  readonly timeoutMs?: number;
  readonly steps: readonly ScriptedToolStep[];
}

/**
 * A strict fake tool for tests: it answers each call with the next scripted step, records the calls, and a
 * call beyond the script fails the call and is reported by `assertAllStepsConsumed()`.
 */
export class ScriptedTool implements Tool {
  readonly toolId: string;
  readonly spec: ToolSpec;
  /** The arguments of every call, in order. */
  readonly calls: ToolArguments[] = [];
  readonly #steps: ScriptedToolStep[];
  readonly #unexpected: ToolArguments[] = [];

  constructor(options: ScriptedToolOptions) {
    this.toolId = options.name;
    this.spec = createToolSpec({
      name: options.name,
      description: options.description ?? `Scripted tool ${options.name}.`,
      parameters: options.parameters ?? {},
      requiresConfirmation: options.requiresConfirmation ?? false,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    this.#steps = [...options.steps];
  }

  async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    this.calls.push(params);
    const step = this.#steps.shift();
    if (step === undefined) {
      this.#unexpected.push(params);
      return toolFailure(
        this.toolId,
        'execution_failed',
        `ScriptedTool '${this.toolId}' has no step left for this call`,
      );
    }
    if (step instanceof Error) throw step;
    const output = typeof step === 'function' ? await step(params, context) : step;
    return typeof output === 'string' ? toolSuccess(this.toolId, output) : output;
  }

  /** Throws when steps are left over or a call came after the script ended. */
  assertAllStepsConsumed(): void {
    const problems: string[] = [];
    if (this.#steps.length > 0)
      problems.push(`${this.#steps.length} scripted step(s) were never used`);
    if (this.#unexpected.length > 0) {
      problems.push(
        `${this.#unexpected.length} unexpected call(s): ${JSON.stringify(this.#unexpected)}`,
      );
    }
    if (problems.length > 0)
      throw new Error(`ScriptedTool '${this.toolId}': ${problems.join('; ')}`);
  }
}
