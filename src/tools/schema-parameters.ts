import { createRequire } from 'node:module';
import { describeError, JarvisError, type JsonSchema } from '../core/index.js';
import { isStandardSchema, type StandardSchemaV1 } from './standard-schema.js';

/** A tool definition's `parameters` resolved: the JSON Schema the model sees, and the validator if one was given. */
export interface ResolvedParameters {
  readonly jsonSchema: JsonSchema;
  readonly validator?: StandardSchemaV1;
}

const ZOD3_ADVICE =
  "Use zod 4 instead: `import { z } from 'zod'` with zod 4, or `import { z } from 'zod/v4'` with zod 3.25+; or pass a JSON Schema object as `parameters`.";

/**
 * Resolves a tool's `parameters` (a Standard Schema validator, a JSON Schema or nothing) when the tool is defined,
 * throwing `invalid_tool_definition` with advice for a schema that cannot produce JSON Schema (zod 3).
 */
export function resolveToolParameters(parameters: unknown, toolName: string): ResolvedParameters {
  if (parameters === undefined) return { jsonSchema: {} };
  if (isStandardSchema(parameters)) {
    return { jsonSchema: standardSchemaToJsonSchema(parameters, toolName), validator: parameters };
  }
  if (isZod3Schema(parameters)) {
    throw refusal(
      toolName,
      `its parameters are a zod 3 schema, which cannot produce JSON Schema. ${ZOD3_ADVICE}`,
    );
  }
  return { jsonSchema: parameters as JsonSchema };
}

/** The JSON Schema of a validator's input as a model should see it: an object, no `$schema`, no int64 noise. */
function standardSchemaToJsonSchema(schema: StandardSchemaV1, toolName: string): JsonSchema {
  const { $schema: _draft, ...json } = convert(schema, toolName);
  if (json.type !== 'object') {
    throw refusal(
      toolName,
      `its parameters schema must describe an object (the arguments), got JSON Schema type ${JSON.stringify(json.type ?? null)}`,
    );
  }
  return stripSafeIntegerBounds(json) as JsonSchema;
}

function convert(schema: StandardSchemaV1, toolName: string): Record<string, unknown> {
  const { vendor, jsonSchema } = schema['~standard'];
  try {
    if (jsonSchema !== undefined) {
      // zod's own option: types JSON Schema cannot express (dates, ...) become `{}` instead of throwing.
      const libraryOptions = vendor === 'zod' ? { unrepresentable: 'any' } : undefined;
      return jsonSchema.input({ target: 'draft-2020-12', libraryOptions });
    }
    if (isZodCoreSchema(schema)) return zodCoreToJsonSchema(schema);
  } catch (cause) {
    throw refusal(
      toolName,
      `its ${vendor} parameters schema cannot be written as JSON Schema: ${describeError(cause)}`,
      cause,
    );
  }
  if (vendor === 'zod') {
    throw refusal(
      toolName,
      `its parameters are a zod 3 schema, which cannot produce JSON Schema. ${ZOD3_ADVICE}`,
    );
  }
  throw refusal(
    toolName,
    `its ${vendor} parameters schema cannot produce JSON Schema (it has no \`~standard.jsonSchema\`). Use a validator that implements Standard JSON Schema (zod 4.2+, arktype, valibot through @valibot/to-json-schema), or pass a JSON Schema object as \`parameters\`.`,
  );
}

/** A zod 4 schema (`_zod` internals) from a build without Standard JSON Schema: zod 3.25's `zod/v4`, zod/mini. */
function isZodCoreSchema(schema: object): boolean {
  return '_zod' in schema;
}

/** zod 3 (`_def` and `safeParse`, no `_zod`): it has no JSON Schema of its own, with or without `~standard`. */
function isZod3Schema(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_def' in value &&
    !('_zod' in value) &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

type ZodCore = typeof import('zod/v4/core');
type ZodCoreParams = NonNullable<Parameters<ZodCore['toJSONSchema']>[1]>;

/** Converts with our zod's `toJSONSchema` (loaded on this path only), reading each schema's own metadata. */
function zodCoreToJsonSchema(schema: object): Record<string, unknown> {
  const core = createRequire(import.meta.url)('zod/v4/core') as ZodCore;
  // Another zod build keeps `.describe()` text in its own registry: ask the schema (`.meta()`) when ours has none.
  const metadata = {
    get: (inner: object) =>
      core.globalRegistry.get(inner as never) ??
      (inner as { meta?: () => unknown }).meta?.call(inner),
  };
  return core.toJSONSchema(
    schema as never,
    {
      io: 'input',
      unrepresentable: 'any',
      metadata: metadata as unknown as ZodCoreParams['metadata'],
    } as ZodCoreParams,
  ) as Record<string, unknown>;
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

function refusal(toolName: string, problem: string, cause?: unknown): JarvisError {
  return new JarvisError({
    code: 'invalid_tool_definition',
    message: `Tool '${toolName}': ${problem}`,
    cause,
  });
}
