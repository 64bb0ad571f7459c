import type * as z from 'zod/mini';
import { $ZodArray, $ZodObject, $ZodOptional, $ZodPipe } from 'zod/v4/core';
import { ENGINE_KEYS } from '../engine-keys.js';
import {
  customEngineTable,
  engineKey,
  fileSchema,
  isBuiltinEngine,
  isCustomEngineTable,
  keyNotes,
} from './file-schema.js';
import type { KeyPath, LineLocator } from './lines.js';
import type { ConfigWarning } from './problems.js';
import { formatKeyPath, isTable } from './values.js';

type Shape = Readonly<Record<string, z.core.$ZodType>>;

/** What a schema reads a value as: a table with its keys, an array of tables, or a plain value. */
type Reading =
  | { readonly kind: 'table'; readonly shape: Shape }
  | { readonly kind: 'tables'; readonly entry: z.core.$ZodType }
  | undefined;

/**
 * Looks through `optional` and pipes (`table()`, `tables()`, transforms) for the table or array a schema reads;
 * `schema` may be a function that builds it (`fileSchema`, built on first use).
 */
export function readingOf(schema: z.core.$ZodType | (() => z.core.$ZodType)): Reading {
  if (typeof schema === 'function') return readingOf(schema());
  if (schema instanceof $ZodOptional) return readingOf(schema._zod.def.innerType);
  if (schema instanceof $ZodPipe) {
    return readingOf(schema._zod.def.out) ?? readingOf(schema._zod.def.in);
  }
  if (schema instanceof $ZodObject) return { kind: 'table', shape: schema._zod.def.shape };
  if (schema instanceof $ZodArray) return { kind: 'tables', entry: schema._zod.def.element };
  return undefined;
}

/** The message of an engine key that no built-in engine has. */
export function notBuiltinMessage(key: string): string {
  return `'${key}' is not a built-in engine (${ENGINE_KEYS.join(', ')}); it works only if a module in imports registers it`;
}

/** Collects the warnings of one config file. */
class WarningList {
  readonly items: ConfigWarning[] = [];
  readonly #file: string;
  readonly #lineOf: LineLocator;

  constructor(file: string | undefined, lineOf: LineLocator) {
    this.#file = file ?? '(no file)';
    this.#lineOf = lineOf;
  }

  add(path: KeyPath, message: string): void {
    this.items.push({
      file: this.#file,
      line: this.#lineOf(path),
      key: formatKeyPath(path),
      message,
    });
  }
}

/**
 * The warnings of a config file that loads: keys the schema does not know (naming the known ones), upstream keys
 * it ignores, and engine keys that no built-in engine has (they work only if an import registers them).
 */
export function configWarnings(
  table: Readonly<Record<string, unknown>>,
  file: string | undefined,
  lineOf: LineLocator,
): ConfigWarning[] {
  const warnings = new WarningList(file, lineOf);
  const root = readingOf(fileSchema);
  if (root?.kind === 'table') walkTable(table, root.shape, [], warnings);
  engineKeyWarnings(table, warnings);
  return warnings.items;
}

/** Warns about the unknown and ignored keys of one table, then of the tables inside it. */
function walkTable(
  table: Readonly<Record<string, unknown>>,
  shape: Shape,
  path: KeyPath,
  warnings: WarningList,
) {
  const known = Object.keys(shape).filter(
    (key) => keyNotes.get(shape[key] as z.core.$ZodType)?.upstream !== 'ignored',
  );
  for (const [key, value] of Object.entries(table)) {
    const schema = shape[key];
    if (schema === undefined) {
      unknownKey(path, key, value, known, warnings);
      continue;
    }
    const note = keyNotes.get(schema);
    if (note?.upstream === 'ignored') {
      const name = formatKeyPath([...path.filter((part) => typeof part === 'string'), key]);
      const what = isTable(value) ? `[${name}]` : `'${name}'`;
      warnings.add(
        [...path, key],
        `${what} is not used by OpenJarvis for TypeScript and is ignored${note.advice ?? ''}`,
      );
      continue;
    }
    walkValue(value, schema, [...path, key], warnings);
  }
}

function walkValue(value: unknown, schema: z.core.$ZodType, path: KeyPath, warnings: WarningList) {
  const reading = readingOf(schema);
  if (reading?.kind === 'table' && isTable(value)) walkTable(value, reading.shape, path, warnings);
  if (reading?.kind !== 'tables' || !Array.isArray(value)) return;
  value.forEach((entry, index) => {
    walkValue(entry, reading.entry, [...path, index], warnings);
  });
}

/** An `[engine.<key>]` table of an engine that is not built in is read, with a warning; other keys are unknown. */
function unknownKey(
  path: KeyPath,
  key: string,
  value: unknown,
  known: readonly string[],
  warnings: WarningList,
) {
  if (formatKeyPath(path) === 'engine' && isCustomEngineTable(key, value)) {
    warnings.add([...path, key], notBuiltinMessage(key));
    walkValue(value, customEngineTable(), [...path, key], warnings);
    return;
  }
  const where = path.length === 0 ? 'at the top level' : `in [${formatKeyPath(path)}]`;
  warnings.add(
    [...path, key],
    `unknown key '${key}' ${where}; known keys: ${known.toSorted().join(', ')}`,
  );
}

/** `[intelligence] preferred_engine` and `[engine] default` naming an engine that is not built in. */
function engineKeyWarnings(table: Readonly<Record<string, unknown>>, warnings: WarningList): void {
  for (const [section, key] of [
    ['intelligence', 'preferred_engine'],
    ['engine', 'default'],
  ] as const) {
    const values = table[section];
    if (!isTable(values)) continue;
    const parsed = engineKey().safeParse(values[key]);
    if (parsed.success && parsed.data !== undefined && !isBuiltinEngine(parsed.data)) {
      warnings.add([section, key], notBuiltinMessage(parsed.data));
    }
  }
}
