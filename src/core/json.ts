/** Any value that survives `JSON.stringify` and `JSON.parse` unchanged. */
export type JsonValue = string | number | boolean | null | JsonArray | JsonObject;

/** A JSON array. */
export type JsonArray = readonly JsonValue[];

/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** True for a plain object (not an array, not null): the only shape tool arguments may take. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Names the JSON type of a value the way a model would understand it (`number`, `array`, `null`, …). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

/** Converts any value to something JSON-safe: unserialisable parts become strings, cycles become "[Circular]". */
export function toJsonValue(value: unknown, seen: WeakSet<object> = new WeakSet()): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return value === undefined ? null : String(value);
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => toJsonValue(item, seen));
  if (value instanceof Date) return value.toISOString();
  const result: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) result[key] = toJsonValue(item, seen);
  }
  return result;
}
