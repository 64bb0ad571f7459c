import { type ErrorCodeOf, JARVIS_ERROR_CODES, JarvisError } from '../core/index.js';

/** Every code a `StorageError` is thrown with: core's `storage` area. */
export const STORAGE_ERROR_CODES = JARVIS_ERROR_CODES.storage;

/** Why a PostgreSQL operation failed; programs branch on this, people read the message. */
export type StorageErrorCode = ErrorCodeOf<'storage'>;

/** Options of a `StorageError`. */
export interface StorageErrorOptions {
  readonly code: StorageErrorCode;
  readonly message: string;
  /** The SQLSTATE PostgreSQL answered with (`23505`: a unique value taken), when it answered. */
  readonly sqlState?: string | undefined;
  readonly cause?: unknown;
}

/** A durable store's database could not be reached or refused an operation; never holds a password. */
export class StorageError extends JarvisError {
  /** The SQLSTATE PostgreSQL answered with, when the failure came from the server. */
  readonly sqlState: string | undefined;

  constructor({ code, message, sqlState, cause }: StorageErrorOptions) {
    super({ code, message, cause });
    this.sqlState = sqlState;
  }

  /** True for a `StorageError` with this code. */
  static is(value: unknown, code?: StorageErrorCode): value is StorageError {
    return value instanceof StorageError && (code === undefined || value.code === code);
  }
}
