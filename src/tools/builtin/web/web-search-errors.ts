import { describeError, JarvisError } from '../../../core/index.js';

const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed (EAI_AGAIN)',
  UND_ERR_SOCKET: 'the connection was closed',
  Z_DATA_ERROR: 'the compressed body is corrupt',
  Z_BUF_ERROR: 'the compressed body is cut off',
};

/** Options of `describeWebError`. */
export interface WebErrorContext {
  /** The tool's own time limit fired. */
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  /** Removed from the message wherever it appears (an API key must never reach the model or a log). */
  readonly secret?: string | undefined;
}

/** One line for the model about why a web request failed, without stack traces or secrets. */
export function describeWebError(error: unknown, context: WebErrorContext): string {
  const text = context.timedOut
    ? `no answer within ${Number((context.timeoutMs / 1000).toFixed(3))} s`
    : describeCause(error);
  const secret = context.secret;
  // Very short "keys" are test values or typos; replacing them would mangle ordinary words.
  return secret === undefined || secret.length < 8 ? text : text.split(secret).join('***');
}

function describeCause(error: unknown): string {
  if (JarvisError.isInstance(error)) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    const known = NETWORK_ERRORS[code];
    if (known !== undefined) return known;
    if (code.startsWith('HPE_')) return `the server sent a malformed HTTP response (${code})`;
    if (/CERT|SSL|TLS|SELF_SIGNED/.test(code)) return `TLS certificate problem (${code})`;
    if (code === 'ABORT_ERR') return 'the request was aborted';
    return `${describeError(error)} (${code})`;
  }
  return describeError(error);
}
