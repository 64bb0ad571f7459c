import { describeError, type EngineErrorCode } from '../../core/index.js';
import type { HttpTimeouts, TimeoutKind } from './http-timeouts.js';

/** Why one attempt failed, before the retry loop decides whether to try again. */
export class AttemptFailure extends Error {
  constructor(
    readonly code: EngineErrorCode,
    readonly detail: string,
    readonly retriable: boolean,
    readonly extra: {
      readonly status?: number;
      readonly retryAfterMs?: number;
      readonly cause?: unknown;
      /** The server took the request and then went silent: such an attempt is retried at most once. */
      readonly acceptedTimeout?: boolean;
    } = {},
  ) {
    super(detail);
  }
}

const MESSAGE_CHARS = 500;
const CONNECTION_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server',
  ECONNABORTED: 'connection aborted',
  UND_ERR_SOCKET: 'connection closed by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};
const CONNECT_TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const ANSWER_TIMEOUT_CODES: Readonly<Record<string, TimeoutKind>> = {
  UND_ERR_HEADERS_TIMEOUT: 'first_byte',
  UND_ERR_BODY_TIMEOUT: 'idle',
};

/** The caller cancelled the request. */
export function cancelledFailure(cause: unknown): AttemptFailure {
  return new AttemptFailure('engine_cancelled', 'the request was cancelled', false, { cause });
}

/** The answer is larger than the client accepts. */
export function bodyTooLarge(): AttemptFailure {
  return new AttemptFailure(
    'engine_protocol_error',
    'the answer is larger than the body limit',
    false,
  );
}

/** A malformed answer: usually a dropped connection in disguise, so it is worth another attempt. */
export function failProtocol(detail: string): never {
  throw new AttemptFailure('engine_protocol_error', detail, true);
}

/** A duration for people: `250 ms`, `30 s`, `1.5 s`. */
export function formatMs(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** A wait that ran out, in words that name the model, the limit and what to change. */
export function timeoutFailure(
  kind: TimeoutKind,
  timeouts: HttpTimeouts,
  model: string | undefined,
  cause?: unknown,
): AttemptFailure {
  const of = model === undefined ? '' : ` of model '${model}'`;
  if (kind === 'deadline') {
    const detail = `the answer${of} took longer than the overall deadline of ${formatMs(timeouts.deadlineMs)} (deadlineMs)`;
    return new AttemptFailure('engine_timeout', detail, false, { cause });
  }
  const detail =
    kind === 'first_byte'
      ? `no answer${of} within ${formatMs(timeouts.firstByteMs)} of sending the request (first-byte timeout): the server took the request and sent nothing; a model that needs longer to load or answer needs a larger timeout (timeoutMs, [engine] timeout_seconds)`
      : `the answer${of} stalled: nothing arrived for ${formatMs(timeouts.idleMs)} (idle timeout, idleTimeoutMs)`;
  return new AttemptFailure('engine_timeout', detail, true, { cause, acceptedTimeout: true });
}

/** Turns an error of the HTTP stack (no timer of ours involved) into an attempt failure. */
export function unexpectedFailure(
  error: unknown,
  timeouts: HttpTimeouts,
  model: string | undefined,
): AttemptFailure {
  const code = errorCode(error);
  const connection = code === undefined ? undefined : CONNECTION_CODES[code];
  if (connection !== undefined) {
    return new AttemptFailure('engine_unavailable', `${connection} (${code})`, true, {
      cause: error,
    });
  }
  if (code !== undefined && CONNECT_TIMEOUT_CODES.has(code)) {
    const detail = `could not connect within ${formatMs(timeouts.connectMs)} (${code})`;
    return new AttemptFailure('engine_timeout', detail, true, { cause: error });
  }
  const kind = code === undefined ? undefined : ANSWER_TIMEOUT_CODES[code];
  if (kind !== undefined) return timeoutFailure(kind, timeouts, model, error);
  return new AttemptFailure('engine_unavailable', describeError(error), false, { cause: error });
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string') return record.code;
  if (Array.isArray(record.errors)) return errorCode(record.errors[0]);
  return record.cause === undefined ? undefined : errorCode(record.cause);
}

/** The server's own words from an error body: OpenAI `error.message`, Ollama `error`, or `message`/`detail`. */
export function extractErrorMessage(text: string): string {
  let message = text.trim();
  try {
    const body: unknown = JSON.parse(text);
    const found = findMessage(body);
    if (found !== undefined) message = found;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message;
}

function findMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' ? body : undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'object' && value !== null) {
      const nested = findMessage(value);
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}

/** Milliseconds to wait from a `Retry-After` header (seconds or an HTTP date); `undefined` when absent or invalid. */
export function parseRetryAfterMs(
  value: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; anything else (such as '-3') is not a valid header.
  const dateMs = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}
