import { isAbsolute, join, resolve } from 'node:path';
import { resolveOllamaHost } from '../engine/index.js';

/** The outcome of checking one config value: the accepted value, or what would have been accepted. */
export type Check<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly expected: string };

/** Checks one raw value read from TOML or the environment. */
export type Checker<T> = (value: unknown) => Check<T>;

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

/** What an engine key looks like: lowercase letters, digits, `_` and `-` (`ollama`, `llamacpp`, `my-engine`). */
export const ENGINE_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

function pass<T>(value: T): Check<T> {
  return { ok: true, value };
}

function fail<T>(expected: string): Check<T> {
  return { ok: false, expected };
}

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

/** Text; empty or blank text counts as not set (upstream writes `default_model = ""` for "none"). */
export function textChecker(rule: TextRule = {}): Checker<string | undefined> {
  return (value) => {
    if (typeof value !== 'string') return fail(describeText(rule));
    const text = value.trim();
    if (text === '') return rule.required === true ? fail(describeText(rule)) : pass(undefined);
    if (rule.oneOf !== undefined && !rule.oneOf.includes(text)) return fail(describeText(rule));
    if (rule.pattern !== undefined && !rule.pattern.regex.test(text))
      return fail(describeText(rule));
    return pass(text);
  };
}

function describeText(rule: TextRule): string {
  if (rule.oneOf !== undefined) return `one of ${rule.oneOf.map((item) => `"${item}"`).join(', ')}`;
  if (rule.pattern !== undefined) return rule.pattern.description;
  return rule.required === true ? 'a non-empty string' : 'a string';
}

/** A finite number within `range`; `integer` also requires a whole number. */
export function numberChecker(range: NumberRange, integer: boolean): Checker<number> {
  const expected = describeRange(range, integer);
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return fail(expected);
    if (integer && !Number.isInteger(value)) return fail(expected);
    const { min, max, exclusiveMin = false } = range;
    if (min !== undefined && (exclusiveMin ? value <= min : value < min)) return fail(expected);
    if (max !== undefined && value > max) return fail(expected);
    return pass(value);
  };
}

function describeRange({ min, max, exclusiveMin = false }: NumberRange, integer: boolean): string {
  const kind = integer ? 'a whole number' : 'a number';
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (min !== undefined) return `${kind} ${exclusiveMin ? '>' : '>='} ${min}`;
  if (max !== undefined) return `${kind} <= ${max}`;
  return kind;
}

/** `true` or `false`. */
export const booleanChecker: Checker<boolean> = (value) =>
  typeof value === 'boolean' ? pass(value) : fail('true or false');

/**
 * An http(s) server address; `host:port` without a scheme gets `http://` (that is how `OLLAMA_HOST` is often set).
 * Blank counts as not set.
 */
export const urlChecker: Checker<string | undefined> = (value) =>
  typeof value === 'string' && value.trim() === '' ? pass(undefined) : requiredUrlChecker(value);

/** An http(s) address as `urlChecker` takes it, where blank is an error too. */
export const requiredUrlChecker: Checker<string> = (value) => {
  const expected = 'an http:// or https:// address such as "http://localhost:8000"';
  if (typeof value !== 'string') return fail(expected);
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(expected);
    return url.hostname === '' ? fail(expected) : pass(withScheme);
  } catch {
    return fail(expected);
  }
};

/** An Ollama address as `OLLAMA_HOST` takes it (`host`, `host:port`, `http(s)://…`), stored as a full URL. */
export const ollamaHostChecker: Checker<string | undefined> = (value) => {
  const expected = 'an Ollama address such as "127.0.0.1:11434" or "http://localhost:11434"';
  if (typeof value !== 'string') return fail(expected);
  if (value.trim() === '') return pass(undefined);
  try {
    return pass(resolveOllamaHost(value));
  } catch {
    return fail(expected);
  }
};

/** The address checker of one engine key: Ollama's own rules for `ollama`, an http(s) URL otherwise. */
export function hostChecker(engineKey: string): Checker<string | undefined> {
  return engineKey === 'ollama' ? ollamaHostChecker : urlChecker;
}

/** A list of non-empty strings: a TOML array, or (when `commaSeparated`) also one comma-separated string. */
export function stringListChecker(commaSeparated: boolean): Checker<string[]> {
  const expected = commaSeparated
    ? 'an array of strings or a comma-separated string'
    : 'an array of non-empty strings';
  return (value) => {
    if (commaSeparated && typeof value === 'string') {
      return pass(
        value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      );
    }
    if (!Array.isArray(value)) return fail(expected);
    const items = value.map((item) => (typeof item === 'string' ? item.trim() : ''));
    return items.every((item) => item !== '') ? pass(items) : fail(expected);
  };
}

/** A table of string values whose names match `namePattern` (an MCP server's `env` or `headers`). */
export function stringMapChecker(
  namePattern: RegExp,
  what: string,
): Checker<Record<string, string>> {
  const expected = `a table of ${what} = "text" entries`;
  return (value) => {
    if (!isTable(value)) return fail(expected);
    const entries = Object.entries(value);
    const valid = entries.every(
      ([name, item]) => namePattern.test(name) && typeof item === 'string',
    );
    return valid ? pass(Object.fromEntries(entries as [string, string][])) : fail(expected);
  };
}

/** True for a TOML table (a plain object, not an array or a date). */
export function isTable(value: unknown): value is Readonly<Record<string, unknown>> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/** Expands a leading `~` (`~` or `~/…`) to `homeDir`; other paths are returned as they are. */
export function expandHome(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  if (path.startsWith('~/') || path.startsWith('~\\')) return join(homeDir, path.slice(2));
  return path;
}

/** An absolute path: `~` expanded, relative paths resolved against `base`. */
export function resolvePath(path: string, base: string, homeDir: string): string {
  const expanded = expandHome(path, homeDir);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
}
