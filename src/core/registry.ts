import { JarvisError } from './errors.js';

// biome-ignore lint/suspicious/noExplicitAny: a constructor of any arity is exactly what a registry stores.
type AnyConstructor<T> = abstract new (...args: any[]) => T;

/** What `register` can decorate: a class whose instances are registry values. */
export type RegistrableClass<T> = AnyConstructor<T>;

/** What `create` returns for an entry type: the instance of a class, or the return value of a factory. */
export type RegistryInstance<Entry> =
  Entry extends AnyConstructor<infer Instance>
    ? Instance
    : // biome-ignore lint/suspicious/noExplicitAny: any factory signature.
      Entry extends (...args: any[]) => infer Created
      ? Created
      : unknown;

function isClass(value: unknown): value is new (...args: unknown[]) => unknown {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/**
 * A named map from keys to entries (classes, factories or values), as the original's registries: duplicate
 * keys throw, a missing key throws naming the available ones, and keys are plain strings (a key such as
 * `__proto__` is an ordinary missing key).
 */
export class Registry<Entry> {
  readonly name: string;
  readonly #entries = new Map<string, Entry>();

  constructor(name: string) {
    this.name = name;
  }

  /** A class decorator that registers the class under `key`: `@ToolRegistry.register('my_tool')`. */
  register(
    key: string,
  ): <Class extends Entry>(value: Class, context?: ClassDecoratorContext) => void {
    return (value) => {
      this.registerValue(key, value);
    };
  }

  /** Registers `value` under `key` and returns it; throws when the key is taken. */
  registerValue<Value extends Entry>(key: string, value: Value): Value {
    if (typeof key !== 'string' || key.length === 0) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `${this.name} keys must be non-empty strings`,
      });
    }
    if (this.#entries.has(key)) {
      throw new JarvisError({
        code: 'registry_duplicate_key',
        message: `${this.name} already has an entry for '${key}'`,
      });
    }
    this.#entries.set(key, value);
    return value;
  }

  /** The entry under `key`; throws a `registry_missing_key` error that lists the available keys. */
  get(key: string): Entry {
    if (!this.#entries.has(key)) {
      const available = this.#entries.size === 0 ? 'none' : [...this.#entries.keys()].join(', ');
      throw new JarvisError({
        code: 'registry_missing_key',
        message: `${this.name} does not have an entry for '${String(key)}'. Available: ${available}`,
      });
    }
    return this.#entries.get(key) as Entry;
  }

  /** Whether `key` is registered. */
  contains(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The registered keys in registration order. */
  keys(): readonly string[] {
    return [...this.#entries.keys()];
  }

  /** `[key, entry]` pairs in registration order. */
  items(): readonly (readonly [string, Entry])[] {
    return [...this.#entries.entries()];
  }

  /** Instantiates the entry under `key`: `new` for a class, a call for a factory function. */
  create(key: string, ...args: unknown[]): RegistryInstance<Entry> {
    const entry: unknown = this.get(key);
    if (isClass(entry)) return new entry(...args) as never;
    if (typeof entry === 'function') return entry(...args) as never;
    throw new JarvisError({
      code: 'registry_not_callable',
      message: `${this.name} entry '${key}' is not callable and cannot be instantiated`,
    });
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** Removes the entry under `key`; returns whether there was one. */
  delete(key: string): boolean {
    return this.#entries.delete(key);
  }
}
