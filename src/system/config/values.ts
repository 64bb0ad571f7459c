import * as z from 'zod/mini';
import { resolveOllamaHost } from '../../engine/index.js';
import type { KeyPath } from './lines.js';

/** A numeric range; `exclusiveMin` makes `min` itself invalid (timeouts must be above 0). */
export interface NumberRange {
  readonly min?: number;
  readonly max?: number;
  readonly exclusiveMin?: boolean;
}

/** Rules for a text value beyond being a string. */
export interface TextRule {
  /** The value must match this, and `description` says what it accepts. */
  readonly pattern?: { readonly regex: RegExp; readonly description: string };
  /** The value must be one of these. */
  readonly oneOf?: readonly string[];
  /** Blank text is an error instead of "not set". */
  readonly required?: boolean;
}

/**
 * `build`, run on the first call and its result kept for the next calls. The config schemas are built on first use
 * this way, not when their modules load, so that importing the package does not pay for them.
 */
export function once<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** What an engine key looks like: lowercase letters, digits, `_` and `-` (`ollama`, `llamacpp`, `my-engine`). */
export const ENGINE_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** A name of letters, digits, `_` and `-` (agents, memory backends, MCP servers). */
export const NAME_RULE = {
  pattern: { regex: /^[A-Za-z0-9_-]+$/, description: 'a name of letters, digits, _ and -' },
} as const;

/** A short description of a raw value for error messages (`"ten"`, `0`, `an array`). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 57)}..."` : text;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object' && value !== null) return 'a table';
  return String(value);
}

/** Writes a key path the way a person reads it: `mcp.servers[1].name`. */
export function formatKeyPath(path: KeyPath): string {
  return path
    .map((part, index) => {
      if (typeof part === 'number') return `[${part}]`;
      const name = /^[A-Za-z0-9_-]+$/.test(part) ? part : JSON.stringify(part);
      return index === 0 ? name : `.${name}`;
    })
    .join('');
}

/** The zod `error` option that words every issue of a value as `expected <what>, got <the value>`. */
export function expecting(what: string | ((path: KeyPath) => string)) {
  return {
    error: (issue: { readonly input?: unknown; readonly path?: PropertyKey[] | undefined }) => {
      const path = (issue.path ?? []).filter((part) => typeof part !== 'symbol');
      const expected = typeof what === 'string' ? what : what(path);
      return `expected ${expected}, got ${describeValue(issue.input)}`;
    },
  };
}

/**
 * A value of type `T` when `accepts` says so; the issue does not stop the checks of the tables around it
 * (which z.custom does by default), so that every problem is reported at once.
 */
function accepted<T>(accepts: (value: unknown) => boolean, what: Parameters<typeof expecting>[0]) {
  return z.custom<T>(accepts, { ...expecting(what), abort: false });
}

/** True for a TOML table (a plain object, not an array or a date). */
export function isTable(value: unknown): value is Readonly<Record<string, unknown>> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/** The name of the table at `path` as its header reads: `engine.ollama`, `mcp.servers`. */
function tableName(path: KeyPath): string {
  return formatKeyPath(path.filter((part) => typeof part === 'string'));
}

/** A TOML table whose keys follow `shape`; other keys pass through (the warnings name them). */
export function table<Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
  ...checks: z.core.$ZodCheck<Record<string, unknown>>[]
) {
  const what = (path: KeyPath) => `a table ([${tableName(path)}])`;
  return z.pipe(
    accepted<Record<string, unknown>>(isTable, what),
    z.looseObject(shape).check(...checks),
  );
}

/** An array of TOML tables (`[[mcp.servers]]`), each checked by `entry`. */
export function tables<Entry extends z.core.$ZodType>(entry: Entry) {
  const what = (path: KeyPath) => `an array of tables ([[${tableName(path)}]])`;
  const isTables = (value: unknown) => Array.isArray(value) && value.every(isTable);
  return z.pipe(accepted<unknown[]>(isTables, what), z.array(entry));
}

function accepts(rule: TextRule, text: string): boolean {
  if (text === '') return rule.required !== true;
  if (rule.oneOf !== undefined && !rule.oneOf.includes(text)) return false;
  return rule.pattern === undefined || rule.pattern.regex.test(text);
}

function describeText(rule: TextRule): string {
  if (rule.oneOf !== undefined) return `one of ${rule.oneOf.map((item) => `"${item}"`).join(', ')}`;
  if (rule.pattern !== undefined) return rule.pattern.description;
  return rule.required === true ? 'a non-empty string' : 'a string';
}

/** Text, trimmed; empty or blank text counts as not set (upstream writes `default_model = ""` for "none"). */
export function text(rule: TextRule = {}) {
  const error = expecting(describeText(rule));
  return z.pipe(
    z.string(error).check(z.refine((value) => accepts(rule, value.trim()), error)),
    z.transform((value): string | undefined => value.trim() || undefined),
  );
}

/** One of `values` (trimmed); blank text counts as not set. */
export function choice<const T extends readonly string[]>(values: T) {
  return z.pipe(
    text({ oneOf: values }),
    z.transform((value) => value as T[number] | undefined),
  );
}

function describeRange({ min, max, exclusiveMin = false }: NumberRange, integer: boolean): string {
  const kind = integer ? 'a whole number' : 'a number';
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (min !== undefined) return `${kind} ${exclusiveMin ? '>' : '>='} ${min}`;
  if (max !== undefined) return `${kind} <= ${max}`;
  return kind;
}

function inRange(value: number, { min, max, exclusiveMin = false }: NumberRange): boolean {
  if (min !== undefined && (exclusiveMin ? value <= min : value < min)) return false;
  return max === undefined || value <= max;
}

/** A finite number within `range`. */
export function number(range: NumberRange = {}) {
  const error = expecting(describeRange(range, false));
  return z.number(error).check(z.refine((value) => inRange(value, range), error));
}

/** A whole number within `range`. */
export function wholeNumber(range: NumberRange = {}) {
  const error = expecting(describeRange(range, true));
  return z
    .number(error)
    .check(z.refine((value) => Number.isInteger(value) && inRange(value, range), error));
}

/** `true` or `false`. */
export const flag = once(() => z.boolean(expecting('true or false')));

/** What `convert` returns for a string it does not accept. */
const INVALID = Symbol('invalid');

/** A string turned into a value by `convert`, which returns `INVALID` for a string it does not accept. */
function converted<T>(what: string, convert: (value: string) => T | typeof INVALID) {
  const error = expecting(what);
  return z.pipe(
    z.string(error),
    z.transform((value, context) => {
      const result = convert(value);
      if (result !== INVALID) return result;
      context.issues.push({ code: 'custom', input: value, message: error.error({ input: value }) });
      return z.NEVER;
    }),
  );
}

const URL_EXPECTED = 'an http:// or https:// address such as "http://localhost:8000"';

/** `value` as an http(s) address; `host:port` without a scheme gets `http://`. */
function httpAddress(value: string): string | typeof INVALID {
  const trimmed = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return INVALID;
    return url.hostname === '' ? INVALID : withScheme;
  } catch {
    return INVALID;
  }
}

/** An http(s) server address where blank is an error; `host:port` without a scheme gets `http://`. */
export const requiredUrl = once(() => converted(URL_EXPECTED, httpAddress));

/** An http(s) server address as `requiredUrl` takes it, where blank counts as not set. */
export const url = once(() =>
  converted(URL_EXPECTED, (value) => (value.trim() === '' ? undefined : httpAddress(value))),
);

/** An Ollama address as `OLLAMA_HOST` takes it (`host`, `host:port`, `http(s)://…`), stored as a full URL. */
export const ollamaHost = once(() =>
  converted('an Ollama address such as "127.0.0.1:11434" or "http://localhost:11434"', (value) => {
    if (value.trim() === '') return undefined;
    try {
      return resolveOllamaHost(value);
    } catch {
      return INVALID;
    }
  }),
);

/** The address schema of one engine key: Ollama's own rules for `ollama`, an http(s) URL otherwise. */
export function host(engineKey: string) {
  return engineKey === 'ollama' ? ollamaHost() : url();
}

function nonBlankStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim());
}

/** A TOML array of non-empty strings, trimmed. */
export const stringList = once(() =>
  z.pipe(
    accepted<string[]>(nonBlankStrings, 'an array of non-empty strings'),
    z.transform((items) => items.map((item) => item.trim())),
  ),
);

/** A list of names: a TOML array of non-empty strings, or one comma-separated string. */
export const nameList = once(() =>
  z.pipe(
    accepted<string | string[]>(
      (value) => typeof value === 'string' || nonBlankStrings(value),
      'an array of strings or a comma-separated string',
    ),
    z.transform((value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '')
        : value.map((item) => item.trim()),
    ),
  ),
);

/** A table of string values whose names match `namePattern` (an MCP server's `env` or `headers`). */
export function stringMap(namePattern: RegExp, what: string) {
  const valid = (value: unknown): value is Record<string, string> =>
    isTable(value) &&
    Object.entries(value).every(
      ([name, item]) => namePattern.test(name) && typeof item === 'string',
    );
  return accepted<Record<string, string>>(valid, `a table of ${what} = "text" entries`);
}
