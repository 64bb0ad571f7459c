import { REDACTED, type Redactor } from '../core/index.js';
import type { EngineRequestLogEntry } from '../engine/index.js';
import type { CliIo, CliStream } from './cli-io.js';
import { diagnosticText } from './cli-output.js';

/**
 * One HTTP request an engine made, as its request-log callback reports it: the engine's entry, with only the
 * method, address and time required (callers such as tests may leave the rest out).
 */
export type RequestLogEntry = Pick<EngineRequestLogEntry, 'method' | 'url' | 'durationMs'> &
  Partial<Omit<EngineRequestLogEntry, 'method' | 'url' | 'durationMs'>>;

/** Receives one entry per HTTP request. */
export type RequestLogCallback = (entry: RequestLogEntry) => void;

/** Erases a spinner line that may be drawn on a terminal before a log line is written over it. */
const CLEAR_LINE = '\r\u001b[2K';

/** True when HTTP requests are to be logged: `--verbose`, or `OPENJARVIS_LOG=debug` in the environment. */
export function requestLogEnabled(io: CliIo): boolean {
  if (io.session?.verbose === true) return true;
  return io.env.OPENJARVIS_LOG?.trim().toLowerCase() === 'debug';
}

/**
 * A request-log callback that prints one line per request on `stderr`:
 * `http: POST http://127.0.0.1:8000/v1/chat/completions -> 200 in 12 ms (attempt 2)`. The address loses any
 * user and password, and the whole line is redacted (`redactor` knows the configured secrets) and made safe
 * for a terminal.
 */
export function requestLogPrinter(
  stderr: CliStream,
  redactor?: () => Redactor | undefined,
): RequestLogCallback {
  return (entry) => {
    const line = diagnosticText(formatRequestLine(entry), redactor?.(), { singleLine: true });
    stderr.write(`${stderr.isTTY ? CLEAR_LINE : ''}${line}\n`);
  };
}

/**
 * The text of one request line (not yet redacted):
 * `http: openai POST <url> -> 200 in 12 ms (attempt 2)`, `... -> failed: <error> in 3 ms`,
 * `... -> stream ended in 340 ms`.
 */
export function formatRequestLine(entry: RequestLogEntry): string {
  const engine = entry.engineId === undefined ? '' : `${entry.engineId} `;
  const attempt =
    entry.attempt !== undefined && entry.attempt > 1 ? ` (attempt ${entry.attempt})` : '';
  const took = Number.isFinite(entry.durationMs) ? Math.max(0, Math.round(entry.durationMs)) : '?';
  const request = `${entry.method.toUpperCase()} ${withoutCredentials(entry.url)}`;
  return `http: ${engine}${request} -> ${outcomeOf(entry)} in ${took} ms${attempt}`;
}

function outcomeOf(entry: RequestLogEntry): string {
  const failure = entry.error === undefined ? '' : `: ${entry.error}`;
  if (entry.phase === 'stream_end')
    return entry.error === undefined ? 'stream ended' : `stream failed${failure}`;
  if (entry.status === undefined) return `failed${failure}`;
  return entry.error === undefined ? String(entry.status) : `${entry.status}${failure}`;
}

/** The address with a user name and password in it replaced (`http://[REDACTED]@host/`). */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i, `$1${REDACTED}@`);
}
