import { isPlainObject, type JsonValue, jsonTypeName } from '../core/index.js';

/** The arguments of a call as parsed, or why they could not be. */
export type ParsedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly message: string; readonly raw: JsonValue };

/**
 * Turns the arguments a model sent into a plain object: JSON text (empty text means `{}`), or an object that
 * some engines already parsed. Anything else is refused with a message the model can act on.
 */
export function parseToolArguments(raw: unknown): ParsedArguments {
  if (raw === undefined) return { ok: true, value: {} };
  if (typeof raw === 'string') return parseJsonText(raw);
  if (isPlainObject(raw)) {
    // A round trip through JSON gives the tool its own copy and drops what JSON cannot carry.
    const text = safeStringify(raw);
    if (text !== undefined) return parseJsonText(text);
    return {
      ok: false,
      message: 'Invalid arguments: the arguments object cannot be written as JSON.',
      raw: null,
    };
  }
  return notAnObject(raw, jsonTypeName(raw));
}

function parseJsonText(text: string): ParsedArguments {
  if (!/\S/.test(text)) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      message: `Invalid arguments JSON: ${reason}. Send the arguments as one JSON object, e.g. {"name": "value"}.`,
      raw: text,
    };
  }
  if (!isPlainObject(value)) return notAnObject(text, jsonTypeName(value));
  return { ok: true, value };
}

function notAnObject(raw: unknown, typeName: string): ParsedArguments {
  return {
    ok: false,
    message: `Invalid arguments: expected a JSON object, got ${typeName}.`,
    raw: typeof raw === 'string' ? raw : (safeStringify(raw) ?? String(raw)),
  };
}

function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
