/**
 * One redaction for everything that leaves the process as text: messages, config excerpts, logs, traces and
 * stored rows. It removes the secrets it was told about (configured API keys and tokens) and text of the
 * shapes secrets commonly take (bearer tokens, `api_key = "..."`, provider key prefixes, private key blocks).
 */

/** What replaces a secret. */
export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are not redacted by value (they would match ordinary words). */
const MIN_SECRET_LENGTH = 6;

/** Text shapes that are secrets wherever they appear; each match is replaced whole or in its value group. */
const SECRET_SHAPES: readonly RegExp[] = [
  // PEM private key blocks (also cut ones without an END line).
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  // Provider key prefixes: OpenAI/Anthropic sk-, Hugging Face hf_, GitHub gh?_, Slack xox?-, AWS access key ids, Google AIza.
  /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})/g,
  // JSON web tokens.
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `Authorization: Bearer x`, `Bearer x`, `Basic x`: the credential after the scheme. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{6,})/gi;

/** `api_key = "x"`, `"apiKey": "x"`, `token: x`, `password=x`, `X-Api-Key: x`: the value after a secret-named key. */
const SECRET_ASSIGNMENT =
  /((?:["']?)\b(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|secret(?:[_-]?key)?|token|password|passwd|authorization|credentials?)\b["']?\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;&}"']+)/gi;

/** A function that returns its text with every known secret and secret-shaped value replaced by `[REDACTED]`. */
export type Redactor = (text: string) => string;

/** Escapes a string for use inside a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Builds a matcher for the known secret values (longest first, so a secret containing another goes whole). */
function knownSecretsPattern(secrets: Iterable<string | undefined>): RegExp | undefined {
  const values = [...new Set([...secrets].filter(isRedactableSecret))];
  if (values.length === 0) return undefined;
  values.sort((a, b) => b.length - a.length);
  return new RegExp(values.map(escapeRegExp).join('|'), 'g');
}

/** True when a value is long enough to be redacted by value. */
function isRedactableSecret(value: string | undefined): value is string {
  return typeof value === 'string' && value.trim().length >= MIN_SECRET_LENGTH;
}

/**
 * True for an unquoted value that reads as an ordinary word (`api_key: expected text`), not a credential:
 * letters only and shorter than 16 characters. Quoted values and configured secrets are redacted regardless.
 */
function isPlainWord(value: string): boolean {
  return /^[A-Za-z]{1,15}$/.test(value);
}

/** Replaces the value of a `key = value` match, keeping its quotes so the text still reads as it did. */
function redactAssignment(_match: string, key: string, value: string): string {
  if (/^(?:Bearer|Basic|Token)$/i.test(value) || value.includes(REDACTED)) return key + value;
  if (isPlainWord(value)) return key + value;
  const quote = value.startsWith('"') || value.startsWith("'") ? value[0] : '';
  return `${key}${quote}${REDACTED}${quote}`;
}

/** Removes secret shapes (no known values) from `text`. */
function redactShapes(text: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(AUTH_SCHEME, (_m, scheme: string, space: string, value: string) =>
    value === REDACTED ? `${scheme}${space}${value}` : `${scheme}${space}${REDACTED}`,
  );
  return out.replace(SECRET_ASSIGNMENT, redactAssignment);
}

/** Creates a redactor that knows `secrets` (configured keys and tokens; short or empty values are ignored). */
export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const known = knownSecretsPattern(secrets);
  return (text: string): string => {
    const byValue = known === undefined ? text : text.replace(known, REDACTED);
    return redactShapes(byValue);
  };
}

/** Redacts `text` once: the given secrets by value, and every secret-shaped value. */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  return createRedactor(secrets)(text);
}

/** Redacts every string inside a JSON-like value (objects and arrays are copied; other values kept). */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item, redact);
    return out as T;
  }
  return value;
}
