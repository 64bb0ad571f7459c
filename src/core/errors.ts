import type { DatabaseStore, JarvisErrorCode } from './error-codes.js';

/** Options accepted by `JarvisError`. */
export interface JarvisErrorOptions {
  readonly code: JarvisErrorCode;
  readonly message: string;
  readonly cause?: unknown;
}

const BRAND = Symbol.for('openjarvis.JarvisError');

/** Error thrown on misuse or a broken invariant; `code` says which, `cause` keeps the underlying error. */
export class JarvisError extends Error {
  /** What kind of failure this is. */
  readonly code: JarvisErrorCode;

  constructor({ code, message, cause }: JarvisErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True for any `JarvisError`, also one created by another copy of this package. */
  static isInstance(value: unknown): value is JarvisError {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}

/** Returns a one-line description of any thrown value, for messages that a model or a person reads. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * A store's SQLite file could not be opened (code `<store>_database_unreadable`); the message says the file
 * was left as it is and what to do.
 */
export function databaseUnreadableError(
  store: DatabaseStore,
  location: string,
  cause: unknown,
): JarvisError {
  return new JarvisError({
    code: `${store}_database_unreadable`,
    message: `cannot open the ${store} database ${location}: ${describeError(cause)}; the file was left as it is — move it away or choose another dbPath`,
    cause,
  });
}

/** A SQLite file that is not (or no longer) the store's database (code `<store>_database_incompatible`). */
export function databaseIncompatibleError(
  store: DatabaseStore,
  location: string,
  reason: string,
): JarvisError {
  return new JarvisError({
    code: `${store}_database_incompatible`,
    message: `cannot use ${location} as the ${store} database: ${reason}; the file was left as it is`,
  });
}
