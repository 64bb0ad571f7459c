import type { Redactor } from '../core/index.js';

/** Characters kept of each stored tool argument, result and error text, unless configured otherwise. */
export const DEFAULT_TRACE_TEXT_CHARS = 2000;

/**
 * A value as trace text: strings as they are, anything else as JSON, then redacted and cut to `maxChars`
 * (the cut says how many characters were left out).
 */
export function traceText(value: unknown, redact: Redactor, maxChars: number): string {
  const text = redact(typeof value === 'string' ? value : safeJson(value));
  if (text.length <= maxChars) return text;
  const kept = text.slice(0, Math.max(0, maxChars));
  return `${kept}… [${text.length - kept.length} more chars]`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
