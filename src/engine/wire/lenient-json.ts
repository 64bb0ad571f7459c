import { isSpace } from './text-scan.js';

/**
 * Lenient JSON for the tool-call readers: JSON plus single quotes, trailing commas, bare keys and Python's
 * True/False/None, read in linear time with a strict fast path (the native `JSON.parse` once the value's end is
 * found). Also the "reach" the readers share: how far a failed read looked, so a scan resumes there.
 */

/** Something read from a text, and the index just after it. */
export interface Read<Value> {
  readonly value: Value;
  readonly end: number;
}

/** Deeper values are refused rather than risking the stack. */
const MAX_DEPTH = 64;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_$][\w$]*/y;
const WORDS = new Map<string, unknown>([
  ['true', true],
  ['false', false],
  ['null', null],
  ['True', true],
  ['False', false],
  ['None', null],
]);
const ESCAPES = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['b', '\b'],
  ['f', '\f'],
  ['/', '/'],
  ['\\', '\\'],
  ['"', '"'],
  ["'", "'"],
]);

/**
 * Reads one JSON value leniently (single quotes, trailing commas, Python `True`/`None`) starting at `start`
 * (leading space skipped), not past `limit`; `undefined` when no value starts there. Linear time, never throws.
 */
export function readLenientJson(
  text: string,
  start = 0,
  limit: number = text.length,
): { readonly value: unknown; readonly end: number } | undefined {
  try {
    return readValue(text, start, Math.min(limit, text.length), 0);
  } catch {
    return undefined;
  }
}

/** Reads one value starting at `index` (after whitespace), never past `limit`; may throw on a bug only. */
export function readValue(
  text: string,
  index: number,
  limit: number,
  depth: number,
): Read<unknown> | undefined {
  const start = skipSpace(text, index, limit);
  if (start >= limit || depth > MAX_DEPTH) return undefined;
  const char = text.charAt(start);
  if (char === '{' || char === '[') {
    const strict = depth === 0 ? readStrictJson(text, start, limit) : undefined;
    if (strict !== undefined) return strict;
    return char === '{'
      ? readObject(text, start + 1, limit, depth + 1)
      : readArray(text, start + 1, limit, depth + 1);
  }
  if (char === '"' || char === "'") return readString(text, start, limit);
  const number = matchSticky(NUMBER, text, start, limit);
  if (number !== undefined) return { value: Number(number.value[0]), end: number.end };
  const word = matchSticky(WORD, text, start, limit);
  if (word === undefined || !WORDS.has(word.value[0])) return undefined;
  return { value: WORDS.get(word.value[0]), end: word.end };
}

/**
 * The fast path for what models mostly write, strict JSON: find the end of the object or list at `start` (brackets
 * counted, double-quoted strings skipped with `indexOf`), then let the native `JSON.parse` read it. Undefined when
 * it is not strict JSON (the lenient reader takes over) or nests deeper than the lenient reader allows.
 */
export function readStrictJson(
  text: string,
  start: number,
  limit: number,
): Read<unknown> | undefined {
  const open = unclosed;
  if (open !== undefined && open.text === text && open.limit === limit && start > open.start)
    return undefined; // a scan from further back ran off the end: leave this one to the lenient reader
  keptText = undefined; // its list is written over below
  let count = 0;
  let depth = 0;
  let index = start;
  while (index < limit) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const close = strictStringEnd(text, index + 1, limit);
      if (close === -1) break;
      if (count < MAX_KEPT_STRINGS) {
        KEPT_QUOTES[2 * count] = index;
        KEPT_QUOTES[2 * count + 1] = close;
        count += 1;
      }
      index = close + 1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_DEPTH) return undefined;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) {
        const read = parseStrict(text, start, index + 1);
        if (read !== undefined) {
          keptText = text;
          keptCount = count;
          keptHint = 0;
        }
        return read;
      }
    }
    index += 1;
  }
  unclosed = { text, start, limit };
  return undefined;
}

/**
 * The strings of the last strict scan that `JSON.parse` took: where each one's opening and closing quotes stand,
 * in pairs, in order (the first `MAX_KEPT_STRINGS`: a call holds a few). The readers look at the value's members
 * again right after (the key of the arguments, the compact text of the arguments), and each string's end is then
 * a lookup instead of another search from quote to quote. An answer depends on the text alone, so a kept one is
 * right for any later question about the same text.
 */
const MAX_KEPT_STRINGS = 64;
const KEPT_QUOTES = new Int32Array(2 * MAX_KEPT_STRINGS);
let keptText: string | undefined;
let keptCount = 0;
/** Where the last lookup found its string: the one asked about next mostly comes right after it. */
let keptHint = 0;

/** The closing quote of the string that opens at `open`, when the last strict scan of `text` kept it; else -2. */
function keptClose(text: string, open: number): number {
  if (keptText !== text) return -2;
  let index = keptHint;
  if (index >= keptCount || KEPT_QUOTES[2 * index] !== open) {
    index += 1;
    if (index >= keptCount || KEPT_QUOTES[2 * index] !== open) index = keptIndex(open);
    if (index === -1) return -2;
  }
  keptHint = index + 1;
  return KEPT_QUOTES[2 * index + 1] as number;
}

/** Where the string that opens at `open` stands among the kept ones, or -1. */
function keptIndex(open: number): number {
  let low = 0;
  let high = keptCount - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = KEPT_QUOTES[2 * middle] as number;
    if (at === open) return middle;
    if (at < open) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * The closing quote of the string whose text starts at `from`, before `limit`, or -1. Unlike `closingQuote`, each
 * search for the next quote is not bounded by `limit` (no copy, no look character by character): the quotes it
 * passes on the way close strings in order, and only the last search of a scan (one that ends it) can run past
 * `limit`, once per scan, after which `unclosed` keeps later starts from scanning again.
 */
function strictStringEnd(text: string, from: number, limit: number): number {
  for (let start = from; ; ) {
    const at = text.indexOf('"', start);
    if (at === -1 || at >= limit) return -1;
    let backslash = at - 1;
    while (backslash >= from && text.charCodeAt(backslash) === BACKSLASH) backslash -= 1;
    if ((at - 1 - backslash) % 2 === 0) return at;
    start = at + 1;
  }
}

/**
 * The last strict scan that reached its limit without closing. Readers try many starts in one text; once a scan
 * ran off the end, later starts skip the fast path, so the scans stay linear in the text's length.
 */
let unclosed: { readonly text: string; readonly start: number; readonly limit: number } | undefined;

function parseStrict(text: string, start: number, end: number): Read<unknown> | undefined {
  // JSON.parse throws on what is not JSON, and a throw costs far more than the parse: the cheap checks first.
  if (!mayBeStrictJson(text, start, end)) return undefined;
  try {
    return { value: JSON.parse(text.slice(start, end)), end };
  } catch {
    return undefined;
  }
}

/**
 * False when `[start, end)` (a balanced span that opens with `{` or `[`) surely is not strict JSON: an object
 * whose first key is not double-quoted, or a list or value position holding a bare word or a single quote. A
 * cheap look at the first member only; `JSON.parse` decides the rest.
 */
function mayBeStrictJson(text: string, start: number, end: number): boolean {
  const at = skipSpaceQuietly(text, start + 1, end);
  const char = text.charCodeAt(at);
  if (text.charCodeAt(start) === OPEN_BRACE) return char === QUOTE || char === CLOSE_BRACE;
  return char !== SINGLE_QUOTE && !isWordStart(char);
}

/** `A-Z a-z _`: a bare word (Python's names, `True`) is never strict JSON; `true`/`false`/`null` are. */
function isWordStart(code: number): boolean {
  const letter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
  if (!letter) return false;
  return code !== 0x74 && code !== 0x66 && code !== 0x6e; // t(rue) f(alse) n(ull)
}

/**
 * The index of the first `quote` at or after `index` and before `limit` that no backslash escapes (an odd run of
 * backslashes right before it), or -1. Jumps from quote to quote with `indexOf`.
 */
export function closingQuote(text: string, index: number, quote: string, limit: number): number {
  let from = index;
  const bounded = limit < text.length;
  if (bounded) {
    // A near quote is found without a copy; further on, the searches go to one slice of the rest up to `limit`.
    const code = quote.charCodeAt(0);
    const near = Math.min(limit, index + NEAR);
    for (let at = index; at < near; at += 1) {
      if (text.charCodeAt(at) === code && !isEscaped(text, index, at)) return at;
    }
    if (near >= limit) return -1;
    from = near;
  }
  const scope = bounded ? text.slice(from, limit) : text;
  const offset = bounded ? from : 0;
  for (;;) {
    const found = scope.indexOf(quote, from - offset);
    if (found === -1) return -1;
    const at = found + offset;
    if (!isEscaped(text, index, at)) return at;
    from = at + 1;
  }
}

/** Whether the character at `at` follows an odd run of backslashes that starts at or after `floor`. */
function isEscaped(text: string, floor: number, at: number): boolean {
  let backslash = at - 1;
  while (backslash >= floor && text.charCodeAt(backslash) === BACKSLASH) backslash -= 1;
  return (at - 1 - backslash) % 2 === 1;
}

const QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function readObject(
  text: string,
  index: number,
  limit: number,
  depth: number,
): Read<unknown> | undefined {
  // A null prototype keeps a `__proto__` key an ordinary key.
  const object: Record<string, unknown> = Object.create(null);
  let at = skipSpace(text, index, limit);
  while (at < limit && text.charAt(at) !== '}') {
    const key = readKey(text, at, limit);
    const colon = key === undefined ? limit : skipSpace(text, key.end, limit);
    if (key === undefined || colon >= limit || text.charAt(colon) !== ':') return undefined;
    const value = readValue(text, colon + 1, limit, depth);
    if (value === undefined) return undefined;
    object[key.value] = value.value;
    at = skipSpace(text, value.end, limit);
    if (at < limit && text.charAt(at) === ',') at = skipSpace(text, at + 1, limit);
    else if (at >= limit || text.charAt(at) !== '}') return undefined;
  }
  return at < limit ? { value: object, end: at + 1 } : undefined;
}

function readArray(
  text: string,
  index: number,
  limit: number,
  depth: number,
): Read<unknown> | undefined {
  const array: unknown[] = [];
  let at = skipSpace(text, index, limit);
  while (at < limit && text.charAt(at) !== ']') {
    const value = readValue(text, at, limit, depth);
    if (value === undefined) return undefined;
    array.push(value.value);
    at = skipSpace(text, value.end, limit);
    if (at < limit && text.charAt(at) === ',') at = skipSpace(text, at + 1, limit);
    else if (at >= limit || text.charAt(at) !== ']') return undefined;
  }
  return at < limit ? { value: array, end: at + 1 } : undefined;
}

function readKey(text: string, index: number, limit: number): Read<string> | undefined {
  const char = text.charAt(index);
  if (char === '"' || char === "'") return readString(text, index, limit);
  const word = matchSticky(WORD, text, index, limit);
  return word === undefined ? undefined : { value: word.value[0], end: word.end };
}

/**
 * A `"…"` or `'…'` string with JSON escapes; raw line breaks are allowed, unknown escapes kept as written. The
 * runs between escapes are found with bounded `indexOf` searches (each stretch of the string searched once).
 */
export function readString(text: string, index: number, limit: number): Read<string> | undefined {
  const quote = text.charAt(index);
  let value = '';
  let run = index + 1;
  let close = -2;
  while (run < limit) {
    if (close !== -1 && close < run) close = indexBefore(text, quote, run, limit);
    const end = close === -1 ? limit : close;
    const backslash = indexBefore(text, '\\', run, end);
    if (backslash === -1) {
      if (close === -1) break;
      return { value: value + text.slice(run, close), end: close + 1 };
    }
    value += text.slice(run, backslash);
    const escaped = readEscape(text, backslash + 1, limit);
    if (escaped === undefined) return fail(backslash + 1);
    value += escaped.value;
    run = escaped.end;
  }
  return fail(limit);
}

/** The index of `char` in `[from, limit)`, or -1; never searches past `limit` (a short look first, no copy). */
export function indexBefore(text: string, char: string, from: number, limit: number): number {
  if (limit >= text.length) return text.indexOf(char, from); // unbounded: the native search at once
  const code = char.charCodeAt(0);
  const near = Math.min(limit, from + NEAR);
  for (let at = from; at < near; at += 1) if (text.charCodeAt(at) === code) return at;
  if (near >= limit) return -1;
  const at = text.slice(near, limit).indexOf(char);
  return at === -1 ? -1 : near + at;
}

/** How far `indexBefore` looks character by character before it searches a slice. */
const NEAR = 24;

function readEscape(text: string, index: number, limit: number): Read<string> | undefined {
  if (index >= limit) return undefined;
  const char = text.charAt(index);
  if (char !== 'u') return { value: ESCAPES.get(char) ?? `\\${char}`, end: index + 1 };
  const hex = text.slice(index + 1, index + 5);
  if (index + 5 > limit || !/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
  return { value: String.fromCharCode(Number.parseInt(hex, 16)), end: index + 5 };
}

// ---------------------------------------------------------------------------------------------------------
// Text helpers that note how far a read looked

/** Runs a sticky regex at `index`; the match must end by `limit`. */
export function matchSticky(
  pattern: RegExp,
  text: string,
  index: number,
  limit: number,
): Read<RegExpExecArray> | undefined {
  pattern.lastIndex = index;
  const match = pattern.exec(text);
  const end = index + (match?.[0].length ?? 0);
  return match === null || end > limit ? undefined : { value: match, end };
}

/** Index of the first non-space character at or after `index` (or `limit`); notes the reach. */
export function skipSpace(text: string, index: number, limit: number): number {
  const at = skipSpaceQuietly(text, index, limit);
  noteReach(at);
  return at;
}

function skipSpaceQuietly(text: string, index: number, limit: number): number {
  let at = index;
  while (at < limit && isSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/**
 * How far the readers have looked since the prose scan last reset it. A read that fails has stopped at or
 * before this point, so the scan resumes its search for calls there instead of just after the failed
 * start, which keeps it linear however many `{` a reply holds.
 */
let readReach = 0;

/** Starts a new count of how far the readers look (from `at`). */
export function resetReach(at: number): void {
  readReach = at;
}

/** How far the readers have looked since `resetReach`. */
export function reach(): number {
  return readReach;
}

/** Notes that a reader looked up to `at`. */
export function noteReach(at: number): void {
  if (at > readReach) readReach = at;
}

/** Notes how far a failed read looked and fails. */
export function fail(at: number): undefined {
  noteReach(at);
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Strict JSON read with where it stood, and its compact text computed from that source

/** Where `JSON.parse` read a value: the whole of `text[start, end)` was strict JSON. */
export interface JsonSpan {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** A value read by `readLenientJsonSpan`: `span` tells where, when `JSON.parse` read it (strict JSON). */
export interface SpannedRead extends Read<unknown> {
  readonly span: JsonSpan | undefined;
}

/**
 * `readLenientJson`, also telling where the value stood when it was strict JSON (read by `JSON.parse`), so its
 * compact text can be taken from the source (`compactJsonText`) instead of serialising the value again.
 */
export function readLenientJsonSpan(
  text: string,
  start = 0,
  limit: number = text.length,
): SpannedRead | undefined {
  try {
    const end = Math.min(limit, text.length);
    const at = skipSpace(text, start, end);
    const code = text.charCodeAt(at);
    if (at >= end || (code !== OPEN_BRACE && code !== OPEN_BRACKET)) {
      const read = readValue(text, start, end, 0);
      return read === undefined ? undefined : { value: read.value, end: read.end, span: undefined };
    }
    const strict = readStrictJson(text, at, end);
    if (strict !== undefined) {
      return { value: strict.value, end: strict.end, span: { text, start: at, end: strict.end } };
    }
    // What readValue does once the strict path failed (not trying it a second time).
    const read =
      code === OPEN_BRACE ? readObject(text, at + 1, end, 1) : readArray(text, at + 1, end, 1);
    return read === undefined ? undefined : { value: read.value, end: read.end, span: undefined };
  } catch {
    return undefined;
  }
}

/**
 * The strict JSON object or list that fills `[start, end)` (white space around it allowed), read by one
 * `JSON.parse` with no scan for its end first: for a block whose end is known (an end marker), what
 * `readLenientJsonSpan` from `start` reads when the block holds one strict value. Tried only when it will
 * almost surely parse (a throw costs more than the parse): the value must open at `start`, close right before
 * the space that ends the range, and pass `mayBeStrictJson`; one nested deeper than `readStrictJson` allows is
 * left to it. `undefined` when it is not such a value (the caller reads it the usual way then).
 */
export function readWholeStrictJson(
  text: string,
  start: number,
  end: number,
): SpannedRead | undefined {
  const open = text.charCodeAt(start);
  const closer = open === OPEN_BRACE ? CLOSE_BRACE : open === OPEN_BRACKET ? CLOSE_BRACKET : -1;
  if (closer === -1) return undefined;
  let last = end;
  while (last > start && isSpace(text.charCodeAt(last - 1))) last -= 1;
  if (last - start < 2 || text.charCodeAt(last - 1) !== closer) return undefined;
  if (!mayBeStrictJson(text, start, last)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, last));
  } catch {
    return undefined;
  }
  if (!nestsWithin(value, 1)) return undefined;
  return { value, end: last, span: { text, start, end: last } };
}

/** Whether the objects and lists of a parsed value nest no deeper than `readStrictJson` reads (from `depth`). */
function nestsWithin(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!nestsWithin(item, depth + 1)) return false;
    return true;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) if (!nestsWithin(object[key], depth + 1)) return false;
  return true;
}

/** One member of a strict JSON object or list: its key (`undefined` for a list entry) and its value's span. */
export interface JsonMember {
  readonly key: string | undefined;
  readonly value: JsonSpan;
}

/**
 * The top-level members of the strict JSON object or list at `span` (keys as written; `undefined` when a key
 * holds an escape, so it cannot be matched by its text), or `undefined` when the span is not such a value.
 */
export function jsonMembers(span: JsonSpan): JsonMember[] | undefined {
  const { text, start, end } = span;
  const isObject = text.charCodeAt(start) === OPEN_BRACE;
  const members: JsonMember[] = [];
  let at = skipSpaceQuietly(text, start + 1, end);
  if (text.charCodeAt(at) === (isObject ? CLOSE_BRACE : CLOSE_BRACKET)) return members;
  while (at < end) {
    let key: string | undefined;
    if (isObject) {
      const close = stringEnd(text, at + 1, end);
      if (text.charCodeAt(at) !== QUOTE || close === -1) return undefined;
      const raw = text.slice(at + 1, close);
      key = raw.includes('\\') ? undefined : raw;
      at = skipSpaceQuietly(text, close + 1, end);
      if (text.charCodeAt(at) !== COLON) return undefined;
      at = skipSpaceQuietly(text, at + 1, end);
    }
    const valueEnd = strictValueEnd(text, at, end);
    if (valueEnd === -1) return undefined;
    members.push({ key, value: { text, start: at, end: valueEnd } });
    at = skipSpaceQuietly(text, valueEnd, end);
    const code = text.charCodeAt(at);
    if (code !== COMMA)
      return code === (isObject ? CLOSE_BRACE : CLOSE_BRACKET) ? members : undefined;
    at = skipSpaceQuietly(text, at + 1, end);
  }
  return undefined;
}

/**
 * The closing quote of the string whose text starts at `from`, or -1. Inside a strict JSON span every string
 * closes before its end, so the search needs no bound (and no copy of the text to bound it).
 */
function stringEnd(text: string, from: number, end: number): number {
  const kept = keptClose(text, from - 1);
  if (kept !== -2) return kept < end ? kept : -1;
  for (let at = text.indexOf('"', from); at !== -1 && at < end; at = text.indexOf('"', at + 1)) {
    let backslash = at - 1;
    while (backslash >= from && text.charCodeAt(backslash) === BACKSLASH) backslash -= 1;
    if ((at - 1 - backslash) % 2 === 0) return at;
  }
  return -1;
}

/** The end of the strict JSON value at `start` (brackets counted, strings skipped), or -1. */
function strictValueEnd(text: string, start: number, end: number): number {
  let depth = 0;
  for (let at = start; at < end; ) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const close = stringEnd(text, at + 1, end);
      if (close === -1) return -1;
      at = close + 1;
      if (depth === 0) return at;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (depth === 0) return at;
      depth -= 1;
      if (depth === 0) return at + 1;
    } else if (depth === 0 && (code === COMMA || isSpace(code))) return at;
    at += 1;
  }
  return depth === 0 ? end : -1;
}

/**
 * `JSON.stringify(value)` for the `value` that `JSON.parse` read from `span`, taken from the source text with the
 * white space between tokens dropped, when that is sure to be what `JSON.stringify` writes: no escape it writes
 * otherwise (only `\"` `\\` `\n` `\r` `\t` `\b` `\f`), no lone surrogate, integers in their shortest form, no key
 * that is a number (those are reordered), no key written twice. `undefined` when unsure (serialise it then).
 */
export function compactJsonText(value: unknown, span: JsonSpan): string | undefined {
  const { text, start, end } = span;
  const compact = compactValue(value, text, start, end);
  return compact?.end === end ? compact.text : undefined;
}

/** The compact text of the strict JSON value at `start` (see `compactJsonText`) and where it ends. */
function compactValue(
  value: unknown,
  text: string,
  start: number,
  end: number,
): { readonly text: string; readonly end: number } | undefined {
  let out = '';
  let copied = start;
  let keys = 0;
  let depth = 0;
  // JSON.parse read the span, so its escapes are JSON's; when none is `\u` or `\/` (nor looks like one), all are
  // written as they stand and a string ends at its first unescaped quote: the quotes are all that is searched for.
  const rare = rareEscapeFrom(text, start);
  const plain = rare === -1 || rare >= end;
  // Else the next quote and backslash, each searched for once per hit (linear however the strings are escaped).
  let quote = -2;
  let backslash = -2;
  let at = start;
  do {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      let close = plain ? stringEnd(text, at + 1, end) : -1;
      if (!plain) {
        let from = at + 1;
        for (;;) {
          if (quote < from) quote = text.indexOf('"', from);
          if (quote === -1 || quote >= end) return undefined;
          if (backslash !== -1 && backslash < from) backslash = text.indexOf('\\', from);
          if (backslash === -1 || backslash > quote) break;
          if (!isKeptEscape(text.charCodeAt(backslash + 1))) return undefined;
          from = backslash + 2;
        }
        close = quote;
      }
      if (close === -1) return undefined;
      if (text.charCodeAt(skipSpaceQuietly(text, close + 1, end)) === COLON) {
        const first = text.charCodeAt(at + 1);
        if (first >= DIGIT_0 && first <= DIGIT_9) return undefined;
        keys += 1;
      }
      at = close + 1;
      continue;
    }
    if (isSpace(code)) {
      const next = skipSpaceQuietly(text, at, end);
      out += text.slice(copied, at);
      copied = next;
      at = next;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
    at = tokenEnd(text, at, end);
    if (at === -1) return undefined;
  } while (depth > 0 && at < end);
  if (depth !== 0 || keys !== keyCount(value, 0)) return undefined;
  const whole = copied === start && start === 0 && at === text.length;
  const compact = whole ? text : out + text.slice(copied, at);
  return { text: compact, end: at };
}

/** A search's last hit: the first one at or after `from` (-1: none). */
interface KeptHit {
  from: number;
  at: number;
}

/** The last searches for `\u` and `\/` escapes in one text. */
let rareEscapes:
  | { readonly text: string; readonly unicode: KeptHit; readonly slash: KeptHit }
  | undefined;

/**
 * The first `\u` or `\/` at or after `from` (-1: none), the escapes `JSON.stringify` writes otherwise. Each one's
 * last hit is kept for the text (searched again only when `from` lies outside what it answers): the spans of one
 * reply are compacted in order, so its rest is searched once, not once per span.
 */
function rareEscapeFrom(text: string, from: number): number {
  let last = rareEscapes;
  if (last === undefined || last.text !== text) {
    last = { text, unicode: { from: 0, at: -2 }, slash: { from: 0, at: -2 } };
    rareEscapes = last;
  }
  const unicode = keptHit(text, '\\u', last.unicode, from);
  const slash = keptHit(text, '\\/', last.slash, from);
  return unicode === -1 || (slash !== -1 && slash < unicode) ? slash : unicode;
}

/** `text.indexOf(needle, from)`, answered by `hit` when it covers `from` (and kept there when searched). */
function keptHit(text: string, needle: string, hit: KeptHit, from: number): number {
  if (hit.from <= from && (hit.at === -1 || hit.at >= from)) return hit.at;
  hit.from = from;
  hit.at = text.indexOf(needle, from);
  return hit.at;
}

const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** The escapes `JSON.stringify` writes as they are: `\"` `\\` `\b` `\f` `\n` `\r` `\t`. */
function isKeptEscape(code: number): boolean {
  return (
    code === QUOTE ||
    code === BACKSLASH ||
    code === 0x62 ||
    code === 0x66 ||
    code === 0x6e ||
    code === 0x72 ||
    code === 0x74
  );
}

/**
 * The index after the token at `at` outside strings that `JSON.stringify` writes the same: a bracket, `:` or
 * `,`, `true` / `false` / `null`, or an integer in its shortest form (up to 15 digits, not `-0`); else -1.
 */
function tokenEnd(text: string, at: number, end: number): number {
  const code = text.charCodeAt(at);
  if (
    code === OPEN_BRACE ||
    code === CLOSE_BRACE ||
    code === OPEN_BRACKET ||
    code === CLOSE_BRACKET ||
    code === COLON ||
    code === COMMA
  )
    return at + 1;
  if (code === 0x74 || code === 0x66 || code === 0x6e) {
    const word = code === 0x74 ? 'true' : code === 0x66 ? 'false' : 'null';
    return text.startsWith(word, at) && at + word.length <= end ? at + word.length : -1;
  }
  const digits = code === MINUS ? at + 1 : at;
  let next = digits;
  while (next < end && text.charCodeAt(next) >= DIGIT_0 && text.charCodeAt(next) <= DIGIT_9)
    next += 1;
  const count = next - digits;
  if (count === 0 || count > 15) return -1;
  if (text.charCodeAt(digits) === DIGIT_0 && (count > 1 || code === MINUS)) return -1;
  const after = text.charCodeAt(next);
  return after === 0x2e || after === 0x65 || after === 0x45 ? -1 : next;
}

/**
 * How many keys the objects in a parsed JSON value hold, all levels counted; -1 when a key or string holds a lone
 * surrogate (`JSON.stringify` escapes those). Checked on the parsed strings, not on the source: those read from
 * a one-byte source (or holding only one-byte characters) are one-byte strings, whose check costs nothing.
 */
function keyCount(value: unknown, depth: number): number {
  if (typeof value === 'string') return isWellFormedText(value) ? 0 : -1;
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const inner = keyCount(item, depth + 1);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const inner = isWellFormedText(key) ? keyCount(object[key], depth + 1) : -1;
    if (inner < 0) return -1;
    count += 1 + inner;
  }
  return count;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The span of the value of `key` among `members` (the last one, as `JSON.parse` keeps), or `undefined` when it
 * is missing or some key holds an escape (it could spell `key` too).
 */
export function memberSpan(
  members: readonly JsonMember[] | undefined,
  key: string,
): JsonSpan | undefined {
  if (members === undefined) return undefined;
  let found: JsonSpan | undefined;
  for (const member of members) {
    if (member.key === undefined) return undefined;
    if (member.key === key) found = member.value;
  }
  return found;
}

/**
 * Where the value of `key` may stand in the strict JSON object at `span`, found by one search for `"key"` and a
 * colon rather than a walk over the members before it: from the first place it is written so (at any depth; an
 * escaped spelling is not looked for) to the object's end. A quote there that no backslash escapes opens a string
 * (the span is strict JSON), so what is found is that key. A guess for `compactJsonText`, which only takes it when
 * that value ends right where the object does: only the object's last member can (a nested value ends before the
 * member holding it), and that member is the one `JSON.parse` kept for its key (another one after it, or a later
 * duplicate, makes the guess fail: serialise).
 */
export function lastMemberGuess(span: JsonSpan | undefined, key: string): JsonSpan | undefined {
  if (span === undefined) return undefined;
  const { text, start, end } = span;
  if (text.charCodeAt(start) !== OPEN_BRACE) return undefined;
  // Searched in the span's own (copy-free) slice: a key written only with an escape is not searched for past it.
  const inside = text.slice(start, end);
  const quoted = `"${key}"`;
  for (
    let found = inside.indexOf(quoted);
    found !== -1;
    found = inside.indexOf(quoted, found + 1)
  ) {
    const at = start + found;
    const colon = skipSpaceQuietly(text, at + quoted.length, end);
    if (isEscaped(text, start, at) || text.charCodeAt(colon) !== COLON) continue;
    const value = skipSpaceQuietly(text, colon + 1, end);
    return { text, start: value, end: trimmedEnd(text, value, end - 1) };
  }
  return undefined;
}

/** `end` moved back over the white space before it, not before `floor`. */
function trimmedEnd(text: string, floor: number, end: number): number {
  let at = end;
  while (at > floor && isSpace(text.charCodeAt(at - 1))) at -= 1;
  return at;
}

/** The spans of a strict JSON list's entries, when `span` is one with `count` entries. */
export function entrySpans(
  span: JsonSpan | undefined,
  count: number,
): readonly JsonMember[] | undefined {
  if (span === undefined || span.text.charCodeAt(span.start) !== OPEN_BRACKET) return undefined;
  // A strict list of one entry holds nothing else but space around it: no need to find where it ends.
  if (count === 1) {
    const { text, start, end } = span;
    const first = skipSpaceQuietly(text, start + 1, end);
    return [
      { key: undefined, value: { text, start: first, end: trimmedEnd(text, first, end - 1) } },
    ];
  }
  const members = jsonMembers(span);
  return members?.length === count ? members : undefined;
}

/**
 * `JSON.stringify(text)`: a short string with nothing to escape (no quote, backslash, control character or
 * surrogate; one regular-expression test, which stops at the first such character) is only put in quotes; a long
 * one whose only escapes are `"` `\\` and line feeds is written from `indexOf` hits (the native `JSON.stringify`
 * costs about a quarter more), unless they are dense; the rest goes to `JSON.stringify`.
 */
export function jsonString(text: string): string {
  if (text.length < LONG_STRING) return TO_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
  // One test for both: a surrogate, even in a pair (JSON.stringify escapes only lone ones), goes the slow way.
  if (holdsRareEscape(text)) return JSON.stringify(text);
  let out = '"';
  let copied = 0;
  // The next quote, backslash and line feed, each searched for once per hit (linear however many there are).
  let quote = text.indexOf('"');
  let backslash = text.indexOf('\\');
  let lineFeed = text.indexOf('\n');
  // Dense escapes (code, JSON in a string) are cheaper for the native writer: handed over past a bound.
  let budget = (text.length >> 5) + 8;
  for (;;) {
    let at = quote;
    if (at === -1 || (backslash !== -1 && backslash < at)) at = backslash;
    if (at === -1 || (lineFeed !== -1 && lineFeed < at)) at = lineFeed;
    if (at === -1) break;
    budget -= 1;
    if (budget < 0) return JSON.stringify(text);
    const code = text.charCodeAt(at);
    out += text.slice(copied, at) + (code === QUOTE ? '\\"' : code === BACKSLASH ? '\\\\' : '\\n');
    copied = at + 1;
    if (at === quote) quote = text.indexOf('"', copied);
    else if (at === backslash) backslash = text.indexOf('\\', copied);
    else lineFeed = text.indexOf('\n', copied);
  }
  return `${out}${text.slice(copied)}"`;
}

/** From this length on, `jsonString` writes quotes, backslashes and line feeds itself. */
const LONG_STRING = 64;

/** The characters `JSON.stringify` may escape (a surrogate only when it stands alone: left to it). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes are the point.
const TO_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Whether `text` holds a control character other than a line feed (each has its own escape or a `\\u` one) or a
 * surrogate. One sticky match runs over the longest start free of them and stops at the first; it holds one
 * when the match ends before the text does.
 */
function holdsRareEscape(text: string): boolean {
  PLAIN_START.lastIndex = 0;
  PLAIN_START.test(text);
  return PLAIN_START.lastIndex !== text.length;
}

/** A character that needs no escape other than `"` `\\` or a line feed's, and is no surrogate. */
const PLAIN = '[^\\u0000-\\u0009\\u000b-\\u001f\\ud800-\\udfff]';

/**
 * The start of a text made of `PLAIN` characters. Eight of them per turn of the loop, written out (a `{8}`
 * costs four times more), take about 6 instructions a character on one-byte text and 7 on two-byte, where a
 * search for the first rare character (`/[\\u0000-\\u0009…]/.test`) takes 7.5 and 12.5. The match cannot fail,
 * so it never backtracks: the time stays linear.
 */
const PLAIN_START = new RegExp(`(?:${PLAIN.repeat(8)})*${PLAIN}*`, 'y');

/** Whether `text` holds no lone surrogate (which `JSON.stringify` escapes); one-byte text never does. */
export function isWellFormedText(text: string): boolean {
  const native = (text as string & { isWellFormed?: () => boolean }).isWellFormed;
  return native === undefined ? !LONE_SURROGATE.test(text) : native.call(text);
}
