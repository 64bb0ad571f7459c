import type { z } from 'zod';
import {
  createToolSpec,
  type JsonObject,
  type JsonSchema,
  type TokenUsage,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../core/index.js';
import { BaseTool } from './base-tool.js';
import { normalizeResult } from './run-with-deadline.js';

/** What a defined tool's `execute` may return: text, or text with metadata, usage, cost, or a failure flag. */
export type ToolOutput =
  | string
  | {
      readonly content: string;
      /** `false` reports a failure the model should see (`tool_error`); a thrown error does the same. */
      readonly success?: boolean;
      readonly metadata?: JsonObject;
      readonly usage?: Partial<TokenUsage>;
      readonly costUsd?: number;
    };

interface ToolDefinitionBase<Args> {
  readonly name: string;
  readonly description: string;
  readonly category?: string;
  readonly requiresConfirmation?: boolean;
  readonly timeoutMs?: number;
  readonly costEstimate?: number;
  readonly latencyEstimate?: number;
  readonly metadata?: JsonObject;
  /** Runs the tool with validated arguments; may return text or a `ToolOutput` object, or throw. */
  execute(args: Args, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** A tool definition whose parameters are a zod object: `execute` receives the parsed, typed arguments. */
export interface ZodToolDefinition<Schema extends z.ZodObject>
  extends ToolDefinitionBase<z.output<Schema>> {
  readonly parameters: Schema;
}

/** A tool definition whose parameters are a JSON Schema: `execute` receives the validated arguments object. */
export interface JsonSchemaToolDefinition<Args> extends ToolDefinitionBase<Args> {
  readonly parameters?: JsonSchema;
}

/** Defines a tool from one object with a zod object schema (argument types inferred). */
export function defineTool<Schema extends z.ZodObject>(
  definition: ZodToolDefinition<Schema>,
): BaseTool;
/** Defines a tool from one object with a JSON Schema (arguments typed by the caller, `ToolArguments` by default). */
export function defineTool<Args = ToolArguments>(
  definition: JsonSchemaToolDefinition<Args>,
): BaseTool;
export function defineTool(
  definition: ZodToolDefinition<z.ZodObject> | JsonSchemaToolDefinition<ToolArguments>,
): BaseTool {
  return new DefinedTool(definition);
}

const NEVER_ABORTED = new AbortController().signal;

class DefinedTool extends BaseTool {
  readonly toolId: string;
  readonly spec: ToolSpec;
  readonly #zodSchema: z.ZodObject | undefined;
  readonly #run: ToolDefinitionBase<unknown>['execute'];

  constructor(
    definition: ZodToolDefinition<z.ZodObject> | JsonSchemaToolDefinition<ToolArguments>,
  ) {
    super();
    const { parameters, execute, ...rest } = definition;
    this.#zodSchema = isZodSchema(parameters) ? parameters : undefined;
    this.toolId = definition.name;
    this.spec = createToolSpec({
      ...rest,
      parameters: isZodSchema(parameters) ? zodToParameters(parameters) : (parameters ?? {}),
    });
    this.#run = execute as ToolDefinitionBase<unknown>['execute'];
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    let args: unknown = params;
    if (this.#zodSchema !== undefined) {
      const parsed = this.#zodSchema.safeParse(params);
      if (!parsed.success) {
        // zod itself loads only on this path: the schema's own methods did the rest.
        const { z: zod } = await import('zod');
        return this.failure(
          `Invalid arguments for tool '${this.toolId}': ${zod.prettifyError(parsed.error)}`,
          'invalid_arguments',
        );
      }
      args = parsed.data;
    }
    const output = await this.#run(args, context ?? { signal: NEVER_ABORTED });
    return normalizeResult(this.toolId, output);
  }
}

function isZodSchema(value: unknown): value is z.ZodObject {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** The JSON Schema of a zod object as a model should see it: input shape, no `$schema`, no int64 noise. */
function zodToParameters(schema: z.ZodObject): JsonSchema {
  const { $schema: _draft, ...json } = schema.toJSONSchema({
    io: 'input',
    unrepresentable: 'any',
  });
  return stripSafeIntegerBounds(json) as JsonSchema;
}

function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'minimum' && item === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && item === Number.MAX_SAFE_INTEGER) continue;
    result[key] = stripSafeIntegerBounds(item);
  }
  return result;
}
