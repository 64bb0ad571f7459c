import { type Clock, EngineError, type SignalOptions } from '../../core/index.js';
import { WireFormatError } from '../wire/wire-format.js';
import { HttpClient, type SleepFunction } from './http-client.js';
import type { EngineRequestLog } from './request-log.js';

/** Options that every engine on an HTTP server takes: how its requests are sent, waited for and retried. */
export interface HttpEngineOptions {
  /**
   * Longest wait from sending a request to the first byte of its answer (default 120 s); a non-streamed answer
   * arrives in one piece, so for it this is the whole answer. An attempt that hits it is retried at most once.
   */
  readonly timeoutMs?: number;
  /** Longest wait to open a connection (default 10 s, never more than `timeoutMs`). */
  readonly connectTimeoutMs?: number;
  /** Longest silence in the middle of a streamed answer (default 60 s, never more than `timeoutMs`); not retried. */
  readonly idleTimeoutMs?: number;
  /** Longest one answer may take in all, retries and streaming included (default 10 min, at least `timeoutMs`). */
  readonly deadlineMs?: number;
  /** Longest wait of `health()` (default 2 s). */
  readonly healthTimeoutMs?: number;
  /** Sent with every request (for example to get through an authenticating proxy). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Receives one entry per request attempt and per finished stream (for `--verbose`); entries are redacted. */
  readonly onRequest?: EngineRequestLog;
  /** Extra attempts after a transient failure; default 2. */
  readonly maxRetries?: number;
  readonly retryBaseDelayMs?: number;
  readonly clock?: Clock;
  /** Randomness for backoff jitter and generated tool-call ids. */
  readonly random?: () => number;
  readonly sleep?: SleepFunction;
}

const CLIENT_KEYS: readonly (keyof HttpEngineOptions)[] = [
  'headers',
  'timeoutMs',
  'connectTimeoutMs',
  'idleTimeoutMs',
  'deadlineMs',
  'onRequest',
  'maxRetries',
  'retryBaseDelayMs',
  'random',
  'sleep',
  'clock',
];

/** The `HttpClient` of an engine, given those of its options that are defined (but `healthTimeoutMs`) and its secrets. */
export function createEngineHttpClient(
  baseUrl: string,
  engineId: string,
  options: HttpEngineOptions,
  secrets: readonly (string | undefined)[] = [],
): HttpClient {
  return new HttpClient({ baseUrl, engineId, secrets, ...pickDefined(options, CLIENT_KEYS) });
}

/** The `signal` of the options, as request fields (none when absent). */
export function signalOf(options: SignalOptions): { signal?: AbortSignal } {
  return options.signal === undefined ? {} : { signal: options.signal };
}

/** Whether the server answers a GET of `path` within `timeoutMs` (default 2 s), tried once and never throwing. */
export async function checkHealth(
  http: HttpClient,
  path: string,
  options: SignalOptions,
  timeoutMs = 2_000,
): Promise<boolean> {
  try {
    await http.requestJson({ path, timeoutMs, maxRetries: 0, ...signalOf(options) });
    return true;
  } catch {
    return false;
  }
}

/**
 * A `WireFormatError` as the `EngineError` of the engine at `address`, its text (which may quote the server)
 * passed through the client's redaction; any other error as it is.
 */
export function engineErrorFromWire(
  error: unknown,
  engineId: string,
  address: string,
  redact: (text: string) => string = (text) => text,
): unknown {
  if (!(error instanceof WireFormatError)) return error;
  error.message = redact(error.message);
  return new EngineError({
    code: error.code,
    engineId,
    address: redact(address),
    detail: error.message,
    cause: error,
  });
}

function pickDefined<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const result: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    if (source[key] !== undefined) result[key] = source[key];
  }
  return result;
}
