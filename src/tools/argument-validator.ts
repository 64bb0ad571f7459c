import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { JarvisError, type JsonSchema } from '../core/index.js';

/** The outcome of validating arguments: fine, or the list of problems in words a model understands. */
export type ArgumentCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Validates (and, where the schema says so, fills defaults and coerces scalars in) an arguments object. */
export type ArgumentValidator = (args: Record<string, unknown>) => ArgumentCheck;

const MAX_PROBLEMS = 8;

// One Ajv for the process, loaded on the first compile (the CLI's start-up never pays for it). Scalars are
// coerced ("5" for an integer) because small local models often quote numbers.
let ajv: Ajv | undefined;

function sharedAjv(): Ajv {
  if (ajv !== undefined) return ajv;
  const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  ajv = new AjvClass({
    allErrors: true,
    strict: false,
    coerceTypes: true,
    useDefaults: true,
    verbose: true,
  });
  return ajv;
}

/** How many distinct schema texts keep a compiled validator (least recently used ones are dropped). */
export const MAX_COMPILED_SCHEMAS = 256;

/** A compiled schema: the object Ajv compiled (its cache key, to drop it again) and the validator. */
interface Compiled {
  readonly schema: object;
  readonly validator: ArgumentValidator;
}

// Tools are often built anew for every run (a new spec, so a new schema object each time). Validators are
// therefore cached by the schema's JSON text, least recently used first out: a run over an equal schema reuses
// the compiled one. Ajv keeps every schema object it compiled in a cache of its own, so a validator dropped
// here is removed from Ajv too; without both, the process kept one compiled validator per run forever.
const byText = new Map<string, Compiled>();
const byObject = new WeakMap<object, ArgumentValidator>();

/**
 * Compiles a validator for a tool's parameters schema, once per distinct schema text (equal schemas share one
 * validator); throws on an invalid schema.
 */
export function compileArgumentValidator(schema: JsonSchema, toolName: string): ArgumentValidator {
  const known = byObject.get(schema);
  if (known !== undefined) return known;
  const validator = isEmptySchema(schema) ? acceptAnything : cachedValidator(schema, toolName);
  byObject.set(schema, validator);
  return validator;
}

/** How many compiled validators the cache holds (each also held by Ajv); for tests and diagnostics. */
export function compiledValidatorCount(): number {
  return byText.size;
}

const VALID: ArgumentCheck = { ok: true };
const acceptAnything: ArgumentValidator = () => VALID;

function isEmptySchema(schema: JsonSchema): boolean {
  return Object.keys(schema).length === 0;
}

function cachedValidator(schema: JsonSchema, toolName: string): ArgumentValidator {
  // `$schema` names a draft this Ajv may not have loaded; the keywords tools use are the same across drafts.
  const { $schema: _draft, ...rest } = schema;
  const text = schemaText(rest);
  if (text === undefined) return wrap(compile(rest, toolName)); // not JSON (a cycle): compiled on its own
  const hit = byText.get(text);
  if (hit !== undefined) {
    byText.delete(text); // most recently used last
    byText.set(text, hit);
    return hit.validator;
  }
  const compiled: Compiled = { schema: rest, validator: wrap(compile(rest, toolName)) };
  byText.set(text, compiled);
  if (byText.size > MAX_COMPILED_SCHEMAS) dropOldest();
  return compiled.validator;
}

function schemaText(schema: object): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined;
  }
}

function dropOldest(): void {
  const oldest = byText.entries().next().value;
  if (oldest === undefined) return;
  byText.delete(oldest[0]);
  sharedAjv().removeSchema(oldest[1].schema);
}

function compile(schema: object, toolName: string): ValidateFunction {
  try {
    return sharedAjv().compile(schema);
  } catch (cause) {
    sharedAjv().removeSchema(schema); // Ajv caches a schema before it finds it invalid
    throw new JarvisError({
      code: 'invalid_tool_definition',
      message: `Tool '${toolName}' has an invalid parameters JSON Schema: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    });
  }
}

function wrap(validate: ValidateFunction): ArgumentValidator {
  return (args) => {
    if (validate(args)) return VALID;
    return { ok: false, problems: describeProblems(validate.errors ?? []) };
  };
}

function describeProblems(errors: readonly ErrorObject[]): readonly string[] {
  const problems = [...new Set(errors.map(describeProblem))];
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [
    ...problems.slice(0, MAX_PROBLEMS),
    `…and ${problems.length - MAX_PROBLEMS} more problems`,
  ];
}

function describeProblem(error: ErrorObject): string {
  const where = argumentPath(error.instancePath);
  const label = where === '' ? 'the arguments object' : `argument '${where}'`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const name = joinPath(where, String(params.missingProperty));
      return `missing required argument '${name}'${describeExpected(propertySchema(error, String(params.missingProperty)))}`;
    }
    case 'additionalProperties': {
      const accepted = Object.keys(objectProperties(error.parentSchema)).join(', ') || 'none';
      return `unknown argument '${joinPath(where, String(params.additionalProperty))}' (accepted: ${accepted})`;
    }
    case 'type':
      return `${label} must be ${String(params.type)}, got ${describeValue(error.data)}`;
    case 'enum':
      return `${label} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(error.data)}`;
    default:
      return `${label} ${error.message ?? 'is invalid'} (got ${describeValue(error.data)})`;
  }
}

function argumentPath(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

function joinPath(parent: string, child: string): string {
  return parent === '' ? child : `${parent}.${child}`;
}

function objectProperties(schema: unknown): Record<string, unknown> {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null
    ? (properties as Record<string, unknown>)
    : {};
}

function propertySchema(error: ErrorObject, name: string): Record<string, unknown> | undefined {
  const schema = objectProperties(error.parentSchema)[name];
  return typeof schema === 'object' && schema !== null
    ? (schema as Record<string, unknown>)
    : undefined;
}

function describeExpected(schema: Record<string, unknown> | undefined): string {
  if (schema === undefined) return '';
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
  const typeText = typeof type === 'string' ? ` (${type})` : '';
  const description =
    typeof schema.description === 'string' && schema.description !== ''
      ? `: ${schema.description}`
      : '';
  return `${typeText}${description}`;
}

function describeValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length > 60) text = `${text.slice(0, 57)}...`;
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return `${type} ${text}`;
}
