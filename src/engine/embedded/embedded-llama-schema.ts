import type { GbnfJsonSchema } from 'node-llama-cpp';
import { isPlainObject, type JsonSchema } from '../../core/index.js';

type Schema = Readonly<Record<string, unknown>>;
type Primitive = string | number | boolean | null;

const BASIC_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const STRING_FORMATS = new Set(['date-time', 'time', 'date']);
/** How deep `$ref`s are followed before the rest is accepted as any JSON (recursive schemas). */
const MAX_REF_DEPTH = 8;

/** Any JSON value, in the subset of JSON Schema that node-llama-cpp turns into a grammar. */
const ANY_JSON: GbnfJsonSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'array' },
    { type: 'object', additionalProperties: true },
  ],
};

/** Any JSON object: what a tool whose parameters say nothing more accepts. */
const ANY_OBJECT: GbnfJsonSchema = { type: 'object', additionalProperties: true };

/**
 * Converts a tool's JSON Schema to the subset node-llama-cpp compiles into a grammar, so every value the
 * grammar allows is valid against the original schema wherever the subset can say so: `$ref`s are inlined,
 * `anyOf` becomes `oneOf`, unsupported keywords (`pattern`, `minimum`, `allOf`, …) are dropped, and parts it
 * cannot express become "any JSON". Note that node-llama-cpp always emits every declared property.
 */
export function toGbnfJsonSchema(parameters: JsonSchema): GbnfJsonSchema {
  const converted = convert(parameters, { root: parameters, depth: 0 });
  return isObjectSchema(converted) ? converted : ANY_OBJECT;
}

interface Scope {
  readonly root: Schema;
  readonly depth: number;
}

function convert(schema: unknown, scope: Scope): GbnfJsonSchema {
  if (!isPlainObject(schema)) return ANY_JSON;
  const described = (result: GbnfJsonSchema): GbnfJsonSchema =>
    typeof schema.description === 'string' && !('description' in result)
      ? { ...result, description: schema.description }
      : result;
  if (typeof schema.$ref === 'string') return described(convertRef(schema.$ref, scope));
  if ('const' in schema)
    return described(isPrimitive(schema.const) ? { const: schema.const } : ANY_JSON);
  if (Array.isArray(schema.enum)) return described(convertEnum(schema.enum));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return described({ oneOf: alternatives.map((item) => convert(item, scope)) });
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1)
    return convert(schema.allOf[0], scope);
  return described(convertTyped(schema, scope));
}

function convertTyped(schema: Schema, scope: Scope): GbnfJsonSchema {
  const type = schema.type ?? inferType(schema);
  if (Array.isArray(type)) return convertTypeList(schema, type, scope);
  switch (type) {
    case 'object':
      return convertObject(schema, scope);
    case 'array':
      return convertArray(schema, scope);
    case 'string':
      return convertString(schema);
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type: type as 'number' | 'integer' | 'boolean' | 'null' };
    default:
      return ANY_JSON;
  }
}

function inferType(schema: Schema): string | undefined {
  if ('properties' in schema || 'additionalProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  return undefined;
}

function convertTypeList(schema: Schema, types: readonly unknown[], scope: Scope): GbnfJsonSchema {
  const names = types.filter((type): type is string => typeof type === 'string');
  if (names.length === 0) return ANY_JSON;
  if (names.every((name) => BASIC_TYPES.has(name) && name !== 'string')) {
    return { type: names as ('number' | 'integer' | 'boolean' | 'null')[] };
  }
  return { oneOf: names.map((name) => convertTyped({ ...schema, type: name }, scope)) };
}

function convertObject(schema: Schema, scope: Scope): GbnfJsonSchema {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const entries = Object.entries(properties).map(
    ([key, value]) => [key, convert(value, scope)] as const,
  );
  const extra = schema.additionalProperties;
  // Without declared properties JSON Schema accepts any keys, and so must the grammar.
  const additionalProperties: boolean | GbnfJsonSchema = isPlainObject(extra)
    ? convert(extra, scope)
    : extra === true || (extra === undefined && entries.length === 0);
  const result: Record<string, unknown> = {
    type: 'object',
    properties: Object.fromEntries(entries),
  };
  if (additionalProperties !== false) {
    result.additionalProperties = additionalProperties;
    copyCount(schema, result, 'minProperties', 0);
    copyCount(schema, result, 'maxProperties', entries.length);
  }
  return result as GbnfJsonSchema;
}

function convertArray(schema: Schema, scope: Scope): GbnfJsonSchema {
  const result: Record<string, unknown> = { type: 'array' };
  if (Array.isArray(schema.prefixItems)) {
    result.prefixItems = schema.prefixItems.map((item) => convert(item, scope));
  }
  if (isPlainObject(schema.items)) result.items = convert(schema.items, scope);
  const prefixLength = Array.isArray(schema.prefixItems) ? schema.prefixItems.length : 0;
  copyCount(schema, result, 'minItems', 0);
  copyCount(schema, result, 'maxItems', Math.max(prefixLength, numberOr(result.minItems, 0)));
  return result as GbnfJsonSchema;
}

function convertString(schema: Schema): GbnfJsonSchema {
  if (typeof schema.format === 'string' && STRING_FORMATS.has(schema.format)) {
    return { type: 'string', format: schema.format as 'date-time' | 'time' | 'date' };
  }
  const result: Record<string, unknown> = { type: 'string' };
  copyCount(schema, result, 'minLength', 0);
  copyCount(schema, result, 'maxLength', numberOr(result.minLength, 0));
  return result as GbnfJsonSchema;
}

function convertEnum(values: readonly unknown[]): GbnfJsonSchema {
  const primitives = values.filter(isPrimitive);
  // An enum with object or array members cannot be expressed; accepting any JSON is the honest fallback.
  return primitives.length === values.length && primitives.length > 0
    ? { enum: primitives }
    : ANY_JSON;
}

function convertRef(ref: string, scope: Scope): GbnfJsonSchema {
  if (scope.depth >= MAX_REF_DEPTH) return ANY_JSON;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return ANY_JSON;
  const definitions = scope.root[match[1] ?? ''];
  const target = isPlainObject(definitions)
    ? definitions[decodePointer(match[2] ?? '')]
    : undefined;
  return target === undefined ? ANY_JSON : convert(target, { ...scope, depth: scope.depth + 1 });
}

function decodePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Copies a non-negative integer keyword when it is at least `minimum` (a smaller one would warn or fail). */
function copyCount(from: Schema, to: Record<string, unknown>, key: string, minimum: number): void {
  const value = from[key];
  if (typeof value === 'number' && Number.isInteger(value) && value >= minimum) to[key] = value;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function isPrimitive(value: unknown): value is Primitive {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isObjectSchema(schema: GbnfJsonSchema): boolean {
  return 'type' in schema && schema.type === 'object';
}
