/**
 * Request bodies whose offered tools are serialized once. An agent offers the same tools on every model call,
 * and their JSON (names, descriptions, parameter schemas) is most of each request's body; a list that is
 * deeply frozen can never change, so its text is made once and put back into each body that carries it.
 */

/** A JSON body already written out: sent as its text. */
export class JsonText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** The text of each deeply frozen value seen, or `null` for a frozen one that is not plain frozen data. */
const texts = new WeakMap<object, string | null>();

/** Deepest nesting checked; anything deeper is serialized on every call as before. */
const MAX_DEPTH = 32;

/**
 * `JSON.stringify(value)`, made once, for a value that is deeply frozen plain data (arrays and plain objects of
 * data properties, no `toJSON`); `undefined` for any other value.
 */
export function frozenJsonText(value: object): string | undefined {
  if (!Object.isFrozen(value)) return undefined;
  let text = texts.get(value);
  if (text === undefined) {
    text = isFrozenData(value, 0) ? stringifyOrNull(value) : null;
    texts.set(value, text);
  }
  return text ?? undefined;
}

/**
 * What to send for `body`: a `JsonText` equal to `JSON.stringify(body)` when its `tools` are deeply frozen and
 * the last field written, else `body` itself (serialized as usual).
 */
export function jsonBody(body: Record<string, unknown>): Record<string, unknown> | JsonText {
  const tools = body.tools;
  if (typeof tools !== 'object' || tools === null || typeof body.toJSON === 'function') return body;
  const toolsText = frozenJsonText(tools);
  if (toolsText === undefined || !toolsWrittenLast(body)) return body;
  // The rest in the body's own order (a field left `undefined` is not written), then the tools.
  const rest = JSON.stringify({ ...body, tools: undefined });
  const head = rest === '{}' ? '{' : `${rest.slice(0, -1)},`;
  return new JsonText(`${head}"tools":${toolsText}}`);
}

/** Whether `tools` is the last own field of `body` that `JSON.stringify` writes. */
function toolsWrittenLast(body: Record<string, unknown>): boolean {
  let afterTools = false;
  for (const key in body) {
    if (!Object.hasOwn(body, key)) continue;
    if (afterTools && isWritten(body[key])) return false;
    if (key === 'tools') afterTools = true;
  }
  return afterTools;
}

function isWritten(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

function isFrozenData(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined')
    return true;
  if (type !== 'object' || depth > MAX_DEPTH || !Object.isFrozen(value)) return false;
  const object = value as object;
  const prototype = Object.getPrototypeOf(object);
  if (!Array.isArray(object) && prototype !== Object.prototype && prototype !== null) return false;
  if (Array.isArray(object) && prototype !== Array.prototype) return false;
  const descriptors = Object.getOwnPropertyDescriptors(object);
  if ('toJSON' in descriptors) return false;
  for (const key of Reflect.ownKeys(descriptors)) {
    const descriptor = descriptors[key as keyof typeof descriptors] as PropertyDescriptor;
    if (!('value' in descriptor)) return false;
    if (typeof key === 'string' && !isFrozenData(descriptor.value, depth + 1)) return false;
  }
  return true;
}

function stringifyOrNull(value: object): string | null {
  try {
    return JSON.stringify(value);
  } catch {
    return null;
  }
}
