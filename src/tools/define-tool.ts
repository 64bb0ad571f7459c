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
import { resolveToolParameters } from './schema-parameters.js';
import type {
  StandardIssue,
  StandardJsonSchemaConverter,
  StandardSchemaOutput,
  StandardSchemaV1,
} from './standard-schema.js';

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

/**
 * A validator `defineTool` takes as `parameters`: a Standard Schema of an object that can produce JSON Schema,
 * through Standard JSON Schema (zod 4.2+, arktype, valibot's converter) or as a zod 4 core schema (`zod/mini`,
 * zod 3.25's `zod/v4`). zod 3 schemas have no JSON Schema and are refused.
 */
export type ToolParametersSchema = StandardSchemaV1<unknown, object> &
  (
    | { readonly '~standard': { readonly jsonSchema: StandardJsonSchemaConverter } }
    | { readonly _zod: object }
  );

/** A tool definition whose parameters are a validator (zod 4, ...): `execute` receives the parsed, typed arguments. */
export interface SchemaToolDefinition<Schema extends ToolParametersSchema>
  extends ToolDefinitionBase<StandardSchemaOutput<Schema>> {
  readonly parameters: Schema;
}

/**
 * A tool definition whose parameters are a zod 4 object.
 * @deprecated Use `SchemaToolDefinition`, which takes any validator `defineTool` accepts.
 */
export type ZodToolDefinition<Schema extends z.ZodObject> = SchemaToolDefinition<Schema>;

/** A tool definition whose parameters are a JSON Schema: `execute` receives the validated arguments object. */
export interface JsonSchemaToolDefinition<Args> extends ToolDefinitionBase<Args> {
  readonly parameters?: JsonSchema;
}

/** Defines a tool from one object with a validator schema such as a zod 4 object (argument types inferred). */
export function defineTool<Schema extends ToolParametersSchema>(
  definition: SchemaToolDefinition<Schema>,
): BaseTool;
/** Defines a tool from one object with a JSON Schema (arguments typed by the caller, `ToolArguments` by default). */
export function defineTool<Args = ToolArguments>(
  definition: JsonSchemaToolDefinition<Args>,
): BaseTool;
export function defineTool(
  definition: SchemaToolDefinition<ToolParametersSchema> | JsonSchemaToolDefinition<ToolArguments>,
): BaseTool {
  return new DefinedTool(definition);
}

let neverAbortedSignal: AbortSignal | undefined;

/** The signal of a call made without a context, made on the first such call (at import it cost ~1 ms). */
function neverAborted(): AbortSignal {
  if (neverAbortedSignal === undefined) neverAbortedSignal = new AbortController().signal;
  return neverAbortedSignal;
}

class DefinedTool extends BaseTool {
  readonly toolId: string;
  readonly spec: ToolSpec;
  readonly #validator: StandardSchemaV1 | undefined;
  readonly #run: ToolDefinitionBase<unknown>['execute'];

  constructor(
    definition:
      | SchemaToolDefinition<ToolParametersSchema>
      | JsonSchemaToolDefinition<ToolArguments>,
  ) {
    super();
    const { parameters, execute, ...rest } = definition;
    const resolved = resolveToolParameters(parameters, definition.name);
    this.#validator = resolved.validator;
    this.toolId = definition.name;
    this.spec = createToolSpec({ ...rest, parameters: resolved.jsonSchema });
    this.#run = execute as ToolDefinitionBase<unknown>['execute'];
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    let args: unknown = params;
    if (this.#validator !== undefined) {
      const parsed = await this.#validator['~standard'].validate(params);
      if (parsed.issues !== undefined) {
        return this.failure(
          `Invalid arguments for tool '${this.toolId}': ${parsed.issues.map(describeIssue).join('; ')}`,
          'invalid_arguments',
        );
      }
      args = parsed.value;
    }
    const output = await this.#run(args, context ?? { signal: neverAborted() });
    return normalizeResult(this.toolId, output);
  }
}

/** One validator issue in the executor's words: `argument 'a.b[0]': <message>`. */
function describeIssue(issue: StandardIssue): string {
  const path = (issue.path ?? [])
    .map((segment) => (typeof segment === 'object' ? segment.key : segment))
    .map((key, index) =>
      typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`,
    )
    .join('');
  return path === '' ? issue.message : `argument '${path}': ${issue.message}`;
}
