import type { JsonSchema } from '../../../core/index.js';
import { jsonString, readLenientJson } from '../lenient-json.js';
import {
  createFinder,
  holdsTag,
  joinRanges,
  skipSpace,
  tagAt,
  trimmedSlice,
} from '../text-scan.js';
import type { ReadToolCalls, TextCall } from './tool-call-format.js';

// ---------------------------------------------------------------------------------------------------------
// Typing a parameter value by its JSON Schema

/**
 * Types one XML parameter value by the parameter's own JSON Schema (`properties[name]` of the tool), the way
 * vLLM's Qwen3-Coder parser does: one leading and one trailing line break are dropped; a `string` stays raw text;
 * `integer`/`number` become numbers, `boolean` reads `true`/`false`, `object`/`array` are read as lenient JSON,
 * each falling back to the text when it does not fit; `null`/`None` is null where the schema allows null (or has
 * no string type); unions try integer, number, boolean, object, array, then text. No schema (or no usable `type`):
 * lenient JSON when the whole value is one, else the text. Never throws.
 */
export function typedParameter(raw: string, schema: JsonSchema | undefined): unknown {
  const text = trimOneLineBreak(raw);
  if (schema !== undefined && isPlainStringSchema(schema)) return text;
  const types = schema === undefined ? new Set<string>() : schemaTypes(schema, 0);
  const isNullWord = isNullOrNone(text);
  if (types.size === 0) return jsonOrText(text);
  if (isNullWord && (types.has('null') || !types.has('string'))) return null;
  for (const type of CONVERSION_ORDER) {
    if (!types.has(type)) continue;
    const value = convert(type, text.trim());
    if (value !== undefined) return value;
  }
  return text;
}

/** The schema of parameter `name` inside a tool's parameters schema (`properties[name]`), when there is one. */
export function propertySchema(
  parameters: JsonSchema | undefined,
  name: string,
): JsonSchema | undefined {
  const properties = parameters?.properties;
  if (!isObject(properties) || !Object.hasOwn(properties, name)) return undefined;
  const schema = properties[name];
  return isObject(schema) ? schema : undefined;
}

/**
 * Parameters read in order as JSON object text (a later duplicate wins); `undefined` if it cannot serialise. The
 * text is what `JSON.stringify` writes for an object of the entries, written directly (each string value quoted
 * once, no object built) unless a key repeats or is a number (those an object reorders).
 */
export function argumentsJson(
  entries: readonly (readonly [string, unknown])[],
): string | undefined {
  if (entries.length === 0) return '{}';
  if (!hasPlainKeys(entries)) return objectJson(entries);
  let text = '{';
  for (const [key, value] of entries) {
    const valueText = typeof value === 'string' ? jsonString(value) : valueJson(value);
    // A value JSON.stringify leaves out or cannot write: the object's way decides.
    if (valueText === undefined) return objectJson(entries);
    text += `${text.length === 1 ? '' : ','}${jsonString(key)}:${valueText}`;
  }
  return `${text}}`;
}

/** Keys that keep their order in an object: none repeats, none starts with a digit (an index goes first). */
function hasPlainKeys(entries: readonly (readonly [string, unknown])[]): boolean {
  const seen = entries.length > 8 ? new Set<string>() : undefined;
  for (let index = 0; index < entries.length; index += 1) {
    const key = (entries[index] as readonly [string, unknown])[0];
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) return false;
    if (seen === undefined) {
      for (let before = 0; before < index; before += 1) {
        if ((entries[before] as readonly [string, unknown])[0] === key) return false;
      }
    } else if (seen.has(key)) return false;
    else seen.add(key);
  }
  return true;
}

function valueJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    return undefined;
  }
}

/** The entries as an object (a null prototype keeps a `__proto__` parameter an ordinary key), serialised. */
function objectJson(entries: readonly (readonly [string, unknown])[]): string | undefined {
  const object: Record<string, unknown> = Object.create(null);
  for (const [key, value] of entries) object[key] = value;
  try {
    return JSON.stringify(object);
  } catch {
    return undefined;
  }
}

/** `{"type": "string"}` and nothing that adds a type: the value is the text as it is (the common case). */
function isPlainStringSchema(schema: JsonSchema): boolean {
  return (
    schema.type === 'string' &&
    schema.enum === undefined &&
    schema.anyOf === undefined &&
    schema.oneOf === undefined &&
    schema.allOf === undefined &&
    !Object.hasOwn(schema, 'const')
  );
}

/** `null` or `none` in any case, with space around (only a four-letter value is lower-cased, not a long one). */
function isNullOrNone(text: string): boolean {
  const word = text.trim();
  if (word.length !== 4) return false;
  const lower = word.toLowerCase();
  return lower === 'null' || lower === 'none';
}

const CONVERSION_ORDER = ['integer', 'number', 'boolean', 'object', 'array'] as const;
type Convertible = (typeof CONVERSION_ORDER)[number];

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const STRING_TYPES = new Set(['string', 'str', 'text', 'varchar', 'char', 'enum']);
const MAX_SCHEMA_DEPTH = 8;

/** `raw` without one leading and one trailing line break (`\n` or `\r\n`), read by character codes. */
function trimOneLineBreak(raw: string): string {
  let start = 0;
  let end = raw.length;
  if (raw.charCodeAt(0) === LINE_FEED) start = 1;
  else if (raw.charCodeAt(0) === CARRIAGE_RETURN && raw.charCodeAt(1) === LINE_FEED) start = 2;
  if (end > start && raw.charCodeAt(end - 1) === LINE_FEED) {
    end -= end - start >= 2 && raw.charCodeAt(end - 2) === CARRIAGE_RETURN ? 2 : 1;
  }
  return raw.slice(start, end);
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** The JSON types a schema admits: `type` (string or list), `enum`/`const` values, `anyOf`/`oneOf`/`allOf`. */
function schemaTypes(schema: JsonSchema, depth: number): Set<string> {
  const types = new Set<string>();
  if (depth > MAX_SCHEMA_DEPTH) return types;
  const declared = Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const name of declared) {
    const type = typeof name === 'string' ? normaliseType(name) : undefined;
    if (type !== undefined) types.add(type);
  }
  const values = Array.isArray(schema.enum) ? [...schema.enum] : [];
  if (Object.hasOwn(schema, 'const')) values.push(schema.const);
  for (const value of values) types.add(valueType(value));
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const choices = schema[key];
    if (!Array.isArray(choices)) continue;
    for (const choice of choices) {
      if (isObject(choice)) for (const type of schemaTypes(choice, depth + 1)) types.add(type);
    }
  }
  return types;
}

/** Schema type names as models and tool authors write them (`int`, `float`, `dict`, `list`, …). */
function normaliseType(name: string): string | undefined {
  const type = name.trim().toLowerCase();
  if (type === 'null') return 'null';
  if (STRING_TYPES.has(type)) return 'string';
  if (/^(?:int|uint|long|short|unsigned)/.test(type)) return 'integer';
  if (/^(?:num|float|double)/.test(type)) return 'number';
  if (type === 'boolean' || type === 'bool') return 'boolean';
  if (type === 'object' || type.startsWith('dict')) return 'object';
  if (type === 'array' || type === 'arr' || type.startsWith('list')) return 'array';
  return undefined;
}

function valueType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  return typeof value === 'object' ? 'object' : 'string';
}

/** The value as `type`, or `undefined` when the text is not one. */
function convert(type: Convertible, text: string): unknown {
  if (type === 'integer' || type === 'number') {
    if (!NUMBER_TEXT.test(text)) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value)) return undefined;
    // An integer past 2^53 would be rounded silently: better kept as the text the model wrote.
    return type === 'number' || Number.isSafeInteger(value) ? value : undefined;
  }
  if (type === 'boolean') {
    const word = text.toLowerCase();
    return word === 'true' ? true : word === 'false' ? false : undefined;
  }
  return readContainer(text, type);
}

/** A JSON object or list; a JSON string holding one (a doubly encoded value) is unwrapped once. */
function readContainer(text: string, type: 'object' | 'array'): unknown {
  let value = readWholeJson(text);
  if (typeof value === 'string') value = readWholeJson(value.trim());
  if (type === 'array') return Array.isArray(value) ? value : undefined;
  return isObject(value) ? value : undefined;
}

function jsonOrText(text: string): unknown {
  const value = readWholeJson(text.trim());
  return value === undefined ? text : value;
}

/** The lenient JSON value that is all of `text`, or `undefined`. */
function readWholeJson(text: string): unknown {
  if (text === '') return undefined;
  const read = readLenientJson(text, 0, text.length);
  if (read === undefined || skipSpace(text, read.end, text.length) !== text.length)
    return undefined;
  return read.value;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------------
// Scanning shared by the XML-style readers (qwen3-coder, seed-oss, glm, minimax)

/** A range `[start, end)` of the reply. */
export type Span = readonly [number, number];

/** A marked block a reader understood: where it starts and ends, its calls, and spans inside it kept as prose. */
export interface XmlBlock {
  readonly start: number;
  readonly end: number;
  readonly calls: readonly TextCall[];
  readonly kept: readonly Span[];
}

/** A block that did not parse: the search for the next marker goes on from `resume`. */
export interface XmlMiss {
  readonly resume: number;
}

/** Options of `readMarkedBlocks`. */
export interface MarkedBlocksOptions {
  /** Strings that open a block. */
  readonly markers: readonly string[];
  /** Thinking sections (`['<think>', '</think>']`); markers inside them are not calls. */
  readonly thinkTags: readonly (readonly [string, string])[];
  /** Reads the block whose marker is at `at`; `floor` is where the text not yet cut starts. */
  readonly readBlock: (at: number, marker: string, floor: number) => XmlBlock | XmlMiss;
}

/**
 * Finds every marker (outside code fences, inline code and thinking), reads its block, and cuts the blocks that
 * hold calls out of the reply; blocks that do not parse stay in the text. `undefined` when no block held a call.
 * Linear as long as `readBlock` only reads forward from its marker (a miss resumes past what it read).
 */
export function readMarkedBlocks(
  text: string,
  options: MarkedBlocksOptions,
): ReadToolCalls | undefined {
  const { markers } = options;
  // The next hit of each marker (-2: not searched yet); searches only move forward, so the scan stays linear.
  const hits = markers.map(() => -2);
  const first = nextMarker(text, markers, hits, 0);
  // No marker: nothing to read, and no reason to look for fences and thinking.
  if (first === -1) return undefined;
  const prose = createProseTracker(text, options.thinkTags);
  // The kept text as ranges of the reply (start, end, …), joined once at the end.
  const ranges: number[] = [];
  const calls: TextCall[] = [];
  let copied = 0;
  let search = 0;
  for (let which = first; which !== -1; ) {
    const at = hits[which] as number;
    const marker = markers[which] as string;
    const markerEnd = at + marker.length;
    if (prose === undefined ? text.charCodeAt(at - 1) === BACKTICK : prose.quoted(at)) {
      search = markerEnd;
    } else {
      const read = options.readBlock(at, marker, copied);
      if ('resume' in read || read.calls.length === 0) {
        search = Math.max('resume' in read ? read.resume : read.end, markerEnd);
      } else {
        ranges.push(copied, read.start);
        for (const [start, end] of read.kept) ranges.push(start, end);
        for (const call of read.calls) calls.push(call);
        copied = read.end;
        search = Math.max(read.end, markerEnd);
        prose?.skip(search);
      }
    }
    which = nextMarker(text, markers, hits, search);
  }
  if (calls.length === 0) return undefined;
  return { content: joinRanges(text, ranges, copied), calls };
}

const BACKTICK = 0x60;

/** The index in `markers` of the earliest one found at or after `from` (its position in `hits`), or -1. */
function nextMarker(
  text: string,
  markers: readonly string[],
  hits: number[],
  from: number,
): number {
  let best = -1;
  for (let index = 0; index < markers.length; index += 1) {
    let hit = hits[index] as number;
    if (hit !== -1 && hit < from) {
      hit = text.indexOf(markers[index] as string, from);
      hits[index] = hit;
    }
    if (hit !== -1 && (best === -1 || hit < (hits[best] as number))) best = index;
  }
  return best;
}

/**
 * Positions of a closing tag that really closes a value: the ones followed (after `skip`) by one of `followers`
 * or by the end of the reply. Returns a search for the first such close at or after a position (-1 if none);
 * the closes are listed once, so searching from anywhere costs a binary search.
 */
export function createCloseFinder(
  text: string,
  close: string,
  followers: readonly string[],
  skip: (text: string, at: number) => number = skipSpace,
): (from: number) => number {
  let closes: number[] | undefined;
  return (from) => {
    closes ??= listCloses(text, close, followers, skip);
    let low = 0;
    let high = closes.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((closes[middle] ?? 0) < from) low = middle + 1;
      else high = middle;
    }
    return closes[low] ?? -1;
  };
}

function listCloses(
  text: string,
  close: string,
  followers: readonly string[],
  skip: (text: string, at: number) => number,
): number[] {
  const closes: number[] = [];
  for (let at = text.indexOf(close); at !== -1; at = text.indexOf(close, at + close.length)) {
    const next = skip(text, at + close.length);
    if (next >= text.length || tagAt(text, followers, next) !== undefined) closes.push(at);
  }
  return closes;
}

/** What closes a parameter's value in the `<parameter…>value</parameter>` readers (Qwen3-Coder, Seed-OSS, MiniMax). */
export const PARAMETER_CLOSE = '</parameter>';

/** The tags around one call's parameters: `<parameter=k>` (Qwen3-Coder, Seed-OSS), `<parameter name="k">` (MiniMax). */
export interface ParameterTags {
  /** What opens a parameter, up to its name (which runs to the next `>`). */
  readonly open: string;
  /** What closes the call. */
  readonly callClose: string;
  /** The parameter's key, from the name written in its tag. */
  readonly key: (name: string) => string;
}

/**
 * The parameters of a call from `from` (its values typed by `schema`) up to `tags.callClose`, and where the call
 * ends; the call may stop unclosed at `wrapperClose`, or at the end of the text once it holds a parameter.
 * `nextClose` finds the `</parameter>` that closes a value. A miss (no such call) resumes at a tag that is neither
 * a parameter nor a close, or just after a parameter's tag that does not read.
 */
export function readParameters(
  text: string,
  from: number,
  tags: ParameterTags,
  wrapperClose: string,
  schema: JsonSchema | undefined,
  nextClose: (from: number) => number,
): { readonly entries: [string, unknown][]; readonly end: number } | XmlMiss {
  const entries: [string, unknown][] = [];
  let index = from;
  for (;;) {
    index = skipSpace(text, index);
    // A parameter is the common case: the closing tags are looked for only when none starts here.
    if (!holdsTag(text, index, tags.open)) {
      if (holdsTag(text, index, tags.callClose))
        return { entries, end: index + tags.callClose.length };
      const unclosed = index >= text.length || holdsTag(text, index, wrapperClose);
      if (unclosed && (entries.length > 0 || index < text.length)) return { entries, end: index };
      return { resume: index };
    }
    const parameter = readTagText(text, index + tags.open.length);
    const close = parameter === undefined ? -1 : nextClose(parameter.end);
    if (parameter === undefined || close === -1) return { resume: index + 1 };
    const key = tags.key(parameter.value);
    const raw = text.slice(parameter.end, close);
    entries.push([key, typedParameter(raw, propertySchema(schema, key))]);
    index = close + PARAMETER_CLOSE.length;
  }
}

/**
 * The text from `start` up to the first `>` (trimmed), read at most `maxLength` characters and never across a
 * line break or `<`; `end` is just after the `>`. `undefined` when there is no such short name.
 */
export function readTagText(
  text: string,
  start: number,
  maxLength = MAX_NAME_LENGTH,
): { readonly value: string; readonly end: number } | undefined {
  const stop = Math.min(text.length, start + maxLength + 1);
  for (let at = start; at < stop; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 0x3e) {
      const value = trimmedSlice(text, start, at);
      return value === '' ? undefined : { value, end: at + 1 };
    }
    if (code === 0x3c || code === 0x0a) return undefined;
  }
  return undefined;
}

/** Longest tool or parameter name read from a tag. */
export const MAX_NAME_LENGTH = 256;

/** `<think>…</think>`: what a reasoning model writes before its answer. */
export const THINK_TAGS: readonly (readonly [string, string])[] = [['<think>', '</think>']];

// ---------------------------------------------------------------------------------------------------------
// Markers, code fences and thinking

interface ProseTracker {
  /** Whether a marker at `at` is inside a code fence, inline code or thinking (positions only grow). */
  quoted(at: number): boolean;
  /** Moves past a cut-out block without reading it as prose. */
  skip(to: number): void;
}

/**
 * Follows code fences and thinking sections through the prose, in one forward pass; `undefined` when the text
 * holds no fence and no thinking tag (then only inline code, a backtick right before a marker, quotes one).
 */
function createProseTracker(
  text: string,
  thinkTags: readonly (readonly [string, string])[],
): ProseTracker | undefined {
  if (!text.includes('```') && !holdsThinkTag(text, thinkTags)) return undefined;
  const nextFence = createFenceFinder(text);
  const opens = thinkTags.map(([open, close]) => ({ open, close, find: createFinder(text, open) }));
  const closes = new Map(thinkTags.map(([, close]) => [close, createFinder(text, close)]));
  let cursor = 0;
  let inFence = false;
  let thinkClose = leadingThinkClose(text, thinkTags);
  /** Moves the cursor to `to`, switching fence and thinking state at each tag on the way. */
  const advance = (to: number): void => {
    while (cursor < to) {
      if (thinkClose !== undefined) {
        const close = closes.get(thinkClose)?.(cursor) ?? -1;
        if (close === -1 || close >= to) break;
        cursor = close + thinkClose.length;
        thinkClose = undefined;
        continue;
      }
      const fence = nextFence(cursor);
      const think = inFence ? undefined : firstOpen(opens, cursor);
      const fenceFirst = fence !== -1 && (think === undefined || fence < think.at);
      const at = fenceFirst ? fence : (think?.at ?? -1);
      if (at === -1 || at >= to) break;
      if (fenceFirst) inFence = !inFence;
      else thinkClose = think?.close;
      cursor = fenceFirst ? fence + 3 : at + (think?.open.length ?? 0);
    }
    cursor = Math.max(cursor, to);
  };
  return {
    quoted(at) {
      advance(at);
      return inFence || thinkClose !== undefined || text.charAt(at - 1) === '`';
    },
    skip(to) {
      cursor = Math.max(cursor, to);
    },
  };
}

function holdsThinkTag(text: string, thinkTags: readonly (readonly [string, string])[]): boolean {
  // Most replies hold no think tag: one search for the end all the tags share tells, instead of one per tag.
  const shared = sharedTagEnd(thinkTags);
  if (shared !== '' && !text.includes(shared)) return false;
  for (const [open, close] of thinkTags)
    if (text.includes(open) || text.includes(close)) return true;
  return false;
}

/** Per list of think tags, the last two characters that every tag ends with (`k>`), or '' when they share none. */
const sharedTagEnds = new WeakMap<readonly (readonly [string, string])[], string>();

/**
 * Two characters rather than the whole shared end (`think>`): a search stops at every place its first character
 * stands, and prose holds `t` far more often than `k` (measured on a kilobyte reply: ~3,700 instructions for
 * `think>`, ~800 for `k>`, ~900 for each `<think>`-like tag).
 */
function sharedTagEnd(thinkTags: readonly (readonly [string, string])[]): string {
  let shared = sharedTagEnds.get(thinkTags);
  if (shared === undefined) {
    const tags = thinkTags.flat();
    shared = tags[0] ?? '';
    for (const tag of tags) while (!tag.endsWith(shared)) shared = shared.slice(1);
    shared = shared.length >= 2 ? shared.slice(-2) : '';
    sharedTagEnds.set(thinkTags, shared);
  }
  return shared;
}

function firstOpen(
  opens: readonly {
    readonly open: string;
    readonly close: string;
    readonly find: (from: number) => number;
  }[],
  from: number,
): { readonly at: number; readonly open: string; readonly close: string } | undefined {
  let best: { at: number; open: string; close: string } | undefined;
  for (const { open, close, find } of opens) {
    const at = find(from);
    if (at !== -1 && (best === undefined || at < best.at)) best = { at, open, close };
  }
  return best;
}

/** A reply that starts inside thinking (the prompt opened `<think>`) shows a close before any open. */
function leadingThinkClose(
  text: string,
  thinkTags: readonly (readonly [string, string])[],
): string | undefined {
  for (const [open, close] of thinkTags) {
    const closeAt = text.indexOf(close);
    const openAt = text.indexOf(open);
    if (closeAt !== -1 && (openAt === -1 || closeAt < openAt)) return close;
  }
  return undefined;
}

/** ```` ``` ```` at the start of a line (up to three spaces in): a Markdown code fence. */
function createFenceFinder(text: string): (from: number) => number {
  const find = createFinder(text, '```');
  let last = -2;
  return (from) => {
    if (last === -1 || last >= from) return last;
    let at = find(from);
    while (at !== -1 && !startsLine(text, at)) at = find(at + 1);
    last = at;
    return at;
  };
}

function startsLine(text: string, at: number): boolean {
  let index = at;
  while (index > 0 && at - index < 3 && text.charAt(index - 1) === ' ') index -= 1;
  if (index > 0 && text.charAt(index - 1) === '`') return false;
  return index === 0 || text.charAt(index - 1) === '\n';
}
