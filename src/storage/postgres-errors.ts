import { describeError, JarvisError } from '../core/index.js';
import { scrubPassword } from './database-url.js';
import { StorageError } from './storage-error.js';

/** Socket-level failures that a reconnect can cure. */
const TRANSIENT_ERRNO: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a server going away or not accepting connections yet. */
const TRANSIENT_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/** SQLSTATEs after which the whole transaction may simply run again. */
const RETRY_TRANSACTION_STATES: ReadonlySet<string> = new Set(['40001', '40P01']);

/** Messages the `pg` driver uses for a connection that went away. */
const LOST_CONNECTION =
  /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|terminating connection|Connection ended|write after end|not queryable/i;

/** The driver error behind a `StorageError`, or the value itself. */
function rootOf(error: unknown): unknown {
  return error instanceof StorageError && error.cause !== undefined ? error.cause : error;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the connection (not the statement) failed: reconnecting and running again may work. */
export function isTransientFailure(error: unknown): boolean {
  const root = rootOf(error);
  if (JarvisError.isInstance(root)) return false;
  const code = codeOf(root);
  if (code !== undefined && (TRANSIENT_ERRNO.has(code) || TRANSIENT_STATES.has(code))) return true;
  if (code !== undefined && /^08[0-9A-Z]{3}$/.test(code)) return true;
  return root instanceof Error && LOST_CONNECTION.test(root.message);
}

/** True when a whole transaction may run again: a lost connection before commit, a serialization failure or a deadlock. */
export function isRetryableTransactionFailure(error: unknown): boolean {
  const code = codeOf(rootOf(error));
  return isTransientFailure(error) || (code !== undefined && RETRY_TRANSACTION_STATES.has(code));
}

/** Whether `error` came from the driver or the server (rather than from our own code). */
function isDriverError(error: unknown): boolean {
  if (!(error instanceof Error) || JarvisError.isInstance(error)) return false;
  return codeOf(error) !== undefined || LOST_CONNECTION.test(error.message);
}

/** A driver error as a `StorageError` (`storage_query_failed`, with its SQLSTATE); other errors unchanged. */
export function wrapQueryError(error: unknown, password: string | undefined): unknown {
  if (!isDriverError(error)) return error;
  const code = codeOf(error);
  const sqlState = code !== undefined && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const text = scrubPassword(describeError(error), password);
  return new StorageError({
    code: 'storage_query_failed',
    message: `PostgreSQL refused the query: ${text}${sqlState === undefined ? '' : ` (SQLSTATE ${sqlState})`}`,
    sqlState,
    cause: error,
  });
}

/** The error after retrying a lost connection for `elapsedMs` without success. */
export function unavailableError(
  location: string,
  error: unknown,
  attempts: number,
  elapsedMs: number,
  password: string | undefined,
): StorageError {
  const reason = scrubPassword(describeError(rootOf(error)), password);
  return new StorageError({
    code: 'storage_unavailable',
    message: `PostgreSQL at ${location} is unavailable: ${reason} (${attempts} attempts over ${Math.round(elapsedMs)} ms); check that the server runs and the [storage] url is right`,
    sqlState: codeOf(rootOf(error)),
    cause: error,
  });
}
