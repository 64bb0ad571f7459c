import type { Registry } from '../core/index.js';

/**
 * One built-in of a registry: the key it is registered under, the class registered there, and how the system
 * builds it with its dependencies (a user's own entry under another key is created by the registry instead).
 */
export interface BuiltinEntry<Class, Deps, Built> {
  readonly key: string;
  readonly class: Class;
  readonly build: (deps: Deps) => Built;
}

/** What adding built-ins needs of a registry. */
export type WritableRegistry<Entry> = Pick<Registry<Entry>, 'contains' | 'registerValue'>;

/**
 * Registers `[key, value]` pairs whose key is free. Idempotent: keys already present (built-ins registered
 * earlier, or a user's own entry under that key) are left as they are.
 */
export function registerMissing<Entry>(
  registry: WritableRegistry<Entry>,
  pairs: Iterable<readonly [string, Entry]>,
): void {
  for (const [key, value] of pairs) {
    if (!registry.contains(key)) registry.registerValue(key, value);
  }
}

/** The `[key, class]` pairs of a table of built-ins: what their registry holds. */
export function registeredClasses<Class>(
  table: readonly BuiltinEntry<Class, never, unknown>[],
): readonly (readonly [string, Class])[] {
  return table.map((entry) => [entry.key, entry.class] as const);
}

/** The builder of the built-in whose class is `registered`, or undefined when it is no built-in's class. */
export function builtinBuilder<Deps, Built>(
  table: readonly BuiltinEntry<unknown, Deps, Built>[],
  registered: unknown,
): ((deps: Deps) => Built) | undefined {
  return table.find((entry) => entry.class === registered)?.build;
}
