import { type Redactor, redactSecrets, safeForTerminal } from '../core/index.js';

export { CliSession } from './cli-session.js';

/**
 * The last net before text leaves the CLI as a message: the configured secrets (when a redactor is given,
 * e.g. the system's) and every secret-shaped value (bearer tokens, `api_key = "..."`, provider keys, private
 * keys) are replaced by `[REDACTED]`. Every error, warning and log line the CLI prints passes through here.
 */
export function redactForOutput(text: string, redactor?: Redactor): string {
  return redactSecrets(redactor === undefined ? text : redactor(text));
}

/** A diagnostic (error, warning, log line) made safe to print: redacted, and terminal escapes shown visibly. */
export function diagnosticText(
  text: string,
  redactor?: Redactor,
  options: { readonly singleLine?: boolean } = {},
): string {
  return safeForTerminal(redactForOutput(text, redactor), options);
}

/** One line of text that did not come from us (a tool name, arguments, a model's words) for a status line. */
export function untrustedLine(text: string): string {
  return safeForTerminal(text, { singleLine: true });
}

/**
 * Text that did not come from us (a model name a server listed, an MCP tool's description) for one line of
 * a list on `stream`: on a terminal with escapes made visible; a pipe gets it as it is.
 */
export function listText(text: string, stream: { readonly isTTY: boolean }): string {
  return stream.isTTY ? untrustedLine(text) : text;
}

/** Lines of text that quote others (servers, files) for `stream`: safe on a terminal, as they are in a pipe. */
export function terminalText(text: string, stream: { readonly isTTY: boolean }): string {
  return stream.isTTY ? safeForTerminal(text) : text;
}

/** C1 controls, DEL and bidi overrides: JSON.stringify leaves them raw; `jsonText` writes them as `\uXXXX`. */
const JSON_UNSAFE = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (two-space indent, trailing newline) that is safe on a terminal and parses to the same value:
 * JSON.stringify escapes C0 controls itself, and the characters it leaves raw that a terminal could act on
 * are written as `\uXXXX` escapes. Big integers are printed as their digits in a string.
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value, bigintSafe, 2) ?? 'null';
  const safe = text.replace(
    JSON_UNSAFE,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
  return `${safe}\n`;
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
