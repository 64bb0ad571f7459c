import {
  booleanChecker,
  type Checker,
  describeValue,
  isTable,
  type NumberRange,
  numberChecker,
  stringListChecker,
  stringMapChecker,
  type TextRule,
  textChecker,
  urlChecker,
} from './config-checks.js';
import type { KeyPath, LineLocator } from './config-lines.js';
import type { ConfigWarning } from './config-types.js';

/** One invalid value: where it is written and what is wrong with it. */
export interface ConfigProblem {
  /** The config file, or undefined when the value came from an environment variable. */
  readonly file: string | undefined;
  readonly line: number | undefined;
  /** Dotted key (`agent.max_turns`, `mcp.servers[1].name`) or the environment variable's name. */
  readonly key: string;
  readonly message: string;
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

/** Collects every error and warning of one load, so that all of them are reported at once. */
export class ConfigIssues {
  readonly errors: ConfigProblem[] = [];
  readonly warnings: ConfigWarning[] = [];
  readonly #file: string | undefined;
  readonly #lineOf: LineLocator;

  constructor(options: { readonly file: string | undefined; readonly lineOf: LineLocator }) {
    this.#file = options.file;
    this.#lineOf = options.lineOf;
  }

  /** Records an invalid value in the file. */
  error(path: KeyPath, message: string): void {
    this.errors.push({ ...this.#where(path), message });
  }

  /** Records a problem that does not stop loading (an unknown or unused key). */
  warn(path: KeyPath, message: string): void {
    this.warnings.push({ ...this.#where(path), file: this.#file ?? '(no file)', message });
  }

  /** Records an invalid environment variable. */
  environmentError(variable: string, message: string): void {
    this.errors.push({ file: undefined, line: undefined, key: variable, message });
  }

  /** Records a warning about an environment variable. */
  environmentWarning(variable: string, message: string): void {
    this.warnings.push({ file: '(environment)', line: undefined, key: variable, message });
  }

  #where(path: KeyPath): { file: string | undefined; line: number | undefined; key: string } {
    return { file: this.#file, line: this.#lineOf(path), key: formatKeyPath(path) };
  }
}

/**
 * Reads the values of one TOML table, recording a problem for each invalid one (reads then return undefined).
 * Every key read becomes "known"; `finish()` warns about the keys present that nobody read.
 */
export class TableReader {
  readonly path: KeyPath;
  readonly #table: Readonly<Record<string, unknown>>;
  readonly #issues: ConfigIssues;
  readonly #known = new Set<string>();
  readonly #ignored = new Set<string>();
  readonly #children = new Map<string, TableReader | TableReader[]>();

  constructor(table: Readonly<Record<string, unknown>>, path: KeyPath, issues: ConfigIssues) {
    this.#table = table;
    this.path = path;
    this.#issues = issues;
  }

  /** The keys present in this table, in file order. */
  keys(): string[] {
    return Object.keys(this.#table);
  }

  /** True when `key` is present (whatever its value). */
  has(key: string): boolean {
    return this.#ownValue(key) !== undefined;
  }

  /** True when `key` is present and holds a table. */
  holdsTable(key: string): boolean {
    return isTable(this.#ownValue(key));
  }

  /** Checks `key` with `checker`; undefined when absent or invalid (then an error is recorded). */
  read<T>(key: string, checker: Checker<T>): T | undefined {
    this.#known.add(key);
    const value = this.#ownValue(key);
    if (value === undefined) return undefined;
    const check = checker(value);
    if (check.ok) return check.value;
    this.error(key, `expected ${check.expected}, got ${describeValue(value)}`);
    return undefined;
  }

  /** Text; blank text counts as absent. */
  text(key: string, rule?: TextRule): string | undefined {
    return this.read(key, textChecker(rule));
  }

  /** A whole number within `range`. */
  integer(key: string, range: NumberRange): number | undefined {
    return this.read(key, numberChecker(range, true));
  }

  /** A number within `range`. */
  number(key: string, range: NumberRange): number | undefined {
    return this.read(key, numberChecker(range, false));
  }

  /** `true` or `false`. */
  boolean(key: string): boolean | undefined {
    return this.read(key, booleanChecker);
  }

  /** An http(s) address (`host:port` gets `http://`). */
  url(key: string): string | undefined {
    return this.read(key, urlChecker);
  }

  /** A list of strings (also a comma-separated string when `commaSeparated`). */
  stringList(key: string, commaSeparated: boolean): string[] | undefined {
    return this.read(key, stringListChecker(commaSeparated));
  }

  /** A table of string values with names matching `namePattern`. */
  stringMap(key: string, namePattern: RegExp, what: string): Record<string, string> | undefined {
    return this.read(key, stringMapChecker(namePattern, what));
  }

  /** The sub-table `key` (`[engine.ollama]`); undefined when absent or not a table (then an error). */
  table(key: string): TableReader | undefined {
    const cached = this.#children.get(key);
    if (cached !== undefined) return Array.isArray(cached) ? undefined : cached;
    const table = this.read(key, (value) =>
      isTable(value)
        ? { ok: true, value }
        : { ok: false, expected: `a table ([${this.#name(key)}])` },
    );
    if (table === undefined) return undefined;
    const child = new TableReader(table, [...this.path, key], this.#issues);
    this.#children.set(key, child);
    return child;
  }

  /** The array of tables `key` (`[[mcp.servers]]`); undefined when absent or invalid (then an error). */
  tables(key: string): TableReader[] | undefined {
    const cached = this.#children.get(key);
    if (cached !== undefined) return Array.isArray(cached) ? cached : undefined;
    const expected = `an array of tables ([[${this.#name(key)}]])`;
    const tables = this.read(key, (value) =>
      Array.isArray(value) && value.every(isTable) ? { ok: true, value } : { ok: false, expected },
    );
    if (tables === undefined) return undefined;
    const children = tables.map(
      (table, index) => new TableReader(table, [...this.path, key, index], this.#issues),
    );
    this.#children.set(key, children);
    return children;
  }

  /** Accepts upstream keys or sections this port does not use, with a warning that they are ignored. */
  ignore(keys: readonly string[], advice = ''): void {
    for (const key of keys) {
      this.#ignored.add(key);
      if (this.#ownValue(key) === undefined) continue;
      const what = this.holdsTable(key) ? `[${this.#name(key)}]` : `'${this.#name(key)}'`;
      this.warn(key, `${what} is not used by OpenJarvis for TypeScript and is ignored${advice}`);
    }
  }

  /** Records an invalid value at `key` of this table. */
  error(key: string, message: string): void {
    this.#issues.error([...this.path, key], message);
  }

  /** Records a warning at `key` of this table. */
  warn(key: string, message: string): void {
    this.#issues.warn([...this.path, key], message);
  }

  /** Warns about every key that was present but never read, here and in every sub-table read. */
  finish(): void {
    const known = [...this.#known].sort();
    for (const key of this.keys()) {
      if (this.#known.has(key) || this.#ignored.has(key)) continue;
      const where =
        this.path.length === 0 ? 'at the top level' : `in [${formatKeyPath(this.path)}]`;
      this.warn(key, `unknown key '${key}' ${where}; known keys: ${known.join(', ')}`);
    }
    for (const child of this.#children.values()) {
      for (const reader of Array.isArray(child) ? child : [child]) reader.finish();
    }
  }

  #ownValue(key: string): unknown {
    return Object.hasOwn(this.#table, key) ? this.#table[key] : undefined;
  }

  #name(key: string): string {
    return formatKeyPath([...this.path.filter((part) => typeof part === 'string'), key]);
  }
}
