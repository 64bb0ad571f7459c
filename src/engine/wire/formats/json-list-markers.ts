import { isPlainObject } from '../../../core/index.js';
import {
  entrySpans,
  type JsonSpan,
  jsonMembers,
  lastMemberGuess,
  memberSpan,
  readLenientJsonSpan,
  readWholeStrictJson,
} from '../lenient-json.js';
import {
  createFenceTracker,
  indexMarkers,
  joinRanges,
  type MarkerIndex,
  skipSpace,
} from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
} from './tool-call-format.js';

// ---------------------------------------------------------------------------------------------------------
// The shared reader: a marker, JSON (an object, a list, or several), an optional end marker

/** What one block held: its calls, and the index just after it. */
export interface ReadBlock {
  readonly calls: readonly TextCall[];
  readonly end: number;
}

/** Reads the block after a marker (from `start`, never past `limit`); `undefined` when it holds no call. */
export type BlockReader = (
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
) => ReadBlock | undefined;

/** A marker that opens a block, and how to read what follows it. */
export interface MarkedBlock {
  readonly marker: string;
  readonly read: BlockReader;
}

/**
 * Turns one JSON value of a block into a call, or `undefined` when it is none (an unknown tool, a bad shape);
 * `span` tells where `JSON.parse` read the value, when it did.
 */
export type EntryReader = (
  value: unknown,
  tools: OfferedToolSet,
  span?: JsonSpan,
) => TextCall | undefined;

/**
 * Cuts every marked block out of `reply` and returns its calls with the text around them (trimmed joins).
 * Blocks that do not parse stay in the text, and so do markers inside a ``` fence or right after a backtick
 * (an example, not a call) — except a fence that is the whole reply and opens with a marker. Each block
 * is read no further than the next marker of its kind, so the time is linear in the reply (times the
 * number of markers). Never throws.
 */
export function readMarkedBlocks(
  reply: string,
  blocks: readonly MarkedBlock[],
  tools: OfferedToolSet,
): ReadToolCalls | undefined {
  try {
    if (tools.names.size === 0) return undefined;
    const present = presentBlocks(reply, blocks);
    if (present === undefined) return undefined;
    const inner = wholeFenceContent(reply, blocks);
    const innerPresent = inner === undefined ? undefined : presentBlocks(inner, blocks);
    const fenced =
      inner === undefined || innerPresent === undefined
        ? undefined
        : scanBlocks(inner, innerPresent, tools);
    return fenced ?? scanBlocks(reply, present, tools);
  } catch {
    // Only a bug could land here (every reader is bounded); a reply is never worth a crash.
    return undefined;
  }
}

/** Not searched yet (a hit kept in `scanBlocks`'s list). */
const NOT_SEARCHED = -2;

/** Per list of blocks, its markers' numbers in one index of them (`null`: searched marker by marker), made once. */
const markerPlans = new WeakMap<readonly MarkedBlock[], MarkerPlan | null>();

/** A list of blocks whose markers are found in one pass over a reply's `<`, and their numbers there. */
interface MarkerPlan {
  readonly index: MarkerIndex;
  readonly ids: readonly number[];
}

/** The blocks whose markers a text holds, in their order, and each one's first hit (`NOT_SEARCHED`: not yet known). */
interface PresentBlocks {
  readonly blocks: readonly MarkedBlock[];
  readonly hits: number[];
}

/**
 * The blocks whose markers `text` holds (`undefined`: none). For a list of three or more `<` markers (Hermes has
 * ten, mostly absent) they are found in one pass over the text's `<` rather than one search of the whole text per
 * marker, and only those present are scanned for; a shorter list is kept whole when the text holds one of its
 * markers, each searched for its first hit now (the scan's first look needs every marker's first hit anyway).
 */
function presentBlocks(text: string, blocks: readonly MarkedBlock[]): PresentBlocks | undefined {
  let plan = markerPlans.get(blocks);
  if (plan === undefined) {
    const markers = blocks.map((block) => block.marker);
    const angled = markers.every((marker) => marker.length >= 3 && marker.charCodeAt(0) === 0x3c);
    const index = angled && markers.length >= 3 ? indexMarkers(markers) : undefined;
    plan = index === undefined ? null : { index, ids: markers.map((marker) => index.idOf(marker)) };
    markerPlans.set(blocks, plan);
  }
  if (plan === null) return firstHits(text, blocks);
  const found = plan.index.scan(text);
  let present: MarkedBlock[] | undefined;
  for (let index = 0; index < blocks.length; index += 1) {
    if (!found.holds(plan.ids[index] as number)) continue;
    const block = blocks[index] as MarkedBlock;
    // Mostly one: a list of one made at once (a first push would make room for sixteen).
    if (present === undefined) present = [block];
    else present.push(block);
  }
  return present === undefined
    ? undefined
    : { blocks: present, hits: present.map(() => NOT_SEARCHED) };
}

/** Every block with the first hit of its marker in `text`, or `undefined` when it holds none of them. */
function firstHits(text: string, blocks: readonly MarkedBlock[]): PresentBlocks | undefined {
  const hits = blocks.map((block) => text.indexOf(block.marker));
  return hits.some((hit) => hit !== -1) ? { blocks, hits } : undefined;
}

function scanBlocks(
  text: string,
  present: PresentBlocks,
  tools: OfferedToolSet,
): ReadToolCalls | undefined {
  // The next hit of each block's marker (the list is this scan's own); searches never move backwards, so each
  // marker's hits are found once (linear however many there are).
  const { blocks, hits } = present;
  const fences = createFenceTracker(text);
  // The stretches of text kept around the blocks read (places, in pairs) and the calls: made with their first
  // entries (a first push would make room for sixteen).
  let kept: number[] | undefined;
  let calls: TextCall[] | undefined;
  let copied = 0;
  let search = 0;
  for (;;) {
    const index = nearestMarker(text, blocks, hits, search);
    if (index === -1) break;
    const block = blocks[index] as MarkedBlock;
    const at = hits[index] as number;
    const start = at + block.marker.length;
    search = start;
    if (fences.isInside(at) || text.charAt(at - 1) === '`') continue;
    const following = nextHit(text, block.marker, hits, index, start);
    const read = block.read(text, start, following === -1 ? text.length : following, tools);
    if (read === undefined) continue;
    if (kept === undefined) kept = [copied, at];
    else kept.push(copied, at);
    if (calls === undefined) calls = read.calls.slice();
    else for (const call of read.calls) calls.push(call);
    copied = Math.max(read.end, start);
    search = copied;
    fences.skipTo(copied);
  }
  if (calls === undefined || calls.length === 0 || kept === undefined) return undefined;
  return { content: joinRanges(text, kept, copied), calls };
}

/** The next hit at or after `from` of the marker of `hits[index]` (kept there), or -1. */
function nextHit(
  text: string,
  marker: string,
  hits: number[],
  index: number,
  from: number,
): number {
  const hit = hits[index] as number;
  if (hit === -1 || hit >= from) return hit;
  const found = text.indexOf(marker, from);
  hits[index] = found;
  return found;
}

/** The block whose marker comes first at or after `from` (of two at one place, the longer), or -1. */
function nearestMarker(
  text: string,
  blocks: readonly MarkedBlock[],
  hits: number[],
  from: number,
): number {
  let best = -1;
  let bestAt = -1;
  for (let index = 0; index < blocks.length; index += 1) {
    const marker = (blocks[index] as MarkedBlock).marker;
    const at = nextHit(text, marker, hits, index, from);
    if (at === -1) continue;
    const longer = at === bestAt && marker.length > (blocks[best] as MarkedBlock).marker.length;
    if (best === -1 || at < bestAt || longer) {
      best = index;
      bestAt = at;
    }
  }
  return best;
}

/** The inside of a reply that is one ``` fence around marked calls, as llama.cpp's Hermes reader allows. */
function wholeFenceContent(reply: string, blocks: readonly MarkedBlock[]): string | undefined {
  const trimmed = reply.trim();
  if (trimmed.length < 6 || !trimmed.startsWith('```') || !trimmed.endsWith('```'))
    return undefined;
  const inner = trimmed.slice(3, -3).replace(/^[A-Za-z]*\s/, '');
  const body = inner.trimStart();
  return blocks.some((block) => body.startsWith(block.marker)) ? inner : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// JSON bodies

/** How a JSON-bodied block is read. */
export interface JsonBlockOptions {
  /** The end marker; when it is missing (the end of the output, a stop sequence) the block ends after the JSON. */
  readonly close?: string | undefined;
  /** Turns one JSON value into a call (default: `{"name", "arguments" | "parameters"}`). */
  readonly entry?: EntryReader | undefined;
}

/**
 * A block of JSON calls: one object, a list, or several separated by space, `,` or `;` (JSON Lines), in an
 * optional ```` ```json ```` fence, then the end marker. Entries that are no call are dropped and the good
 * ones kept; a block with no good entry is no block. Stray closing brackets before the end marker go with it.
 */
export function jsonBlockReader(options: JsonBlockOptions = {}): BlockReader {
  const entry = options.entry ?? callEntry;
  const close = options.close;
  // A block is mostly one strict JSON value that ends at its end marker (or at the block's end): read whole
  // first (see `readWholeBlock`). An end marker that could start a value or a separator would change that reading.
  const whole = close === undefined || close.charCodeAt(0) === LESS_THAN;
  return (text, start, limit, tools) => {
    if (whole) {
      const read = readWholeBlock(text, start, limit, close, entry, tools);
      if (read !== undefined) return read === null ? undefined : read;
    }
    const body = readJsonCalls(text, start, limit, entry, tools);
    if (body === undefined) return undefined;
    let end = body.end;
    if (close !== undefined) {
      const at = skipStray(text, end, limit);
      if (text.startsWith(close, at) && at + close.length <= limit) end = at + close.length;
    }
    return { calls: body.calls, end: skipEndToken(text, end, limit) };
  };
}

/**
 * The block from `start` when it is one strict JSON value up to its end marker (the first `close` after it,
 * before `limit`) or, with no end marker, up to `limit`: read by one `JSON.parse` of that stretch, with no scan
 * for the value's end first. What the usual reading gives for such a block (its calls, or `null` for none);
 * `undefined` for any other block (read the usual way then).
 */
function readWholeBlock(
  text: string,
  start: number,
  limit: number,
  close: string | undefined,
  entry: EntryReader,
  tools: OfferedToolSet,
): ReadBlock | null | undefined {
  const at = skipSpace(text, start, limit);
  const first = text.charCodeAt(at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return undefined;
  const closeAt = close === undefined ? limit : indexWithin(text, close, at, limit);
  const end = close === undefined ? limit : closeAt + close.length;
  if (closeAt === -1 || end > limit) return undefined;
  const value = readWholeStrictJson(text, at, closeAt);
  if (value === undefined) return undefined;
  const calls = callsOf(value.value, entry, tools, value.span);
  if (calls.length === 0) return null;
  return { calls, end: skipEndToken(text, close === undefined ? value.end : end, limit) };
}

/**
 * The first `needle` in `text[from, limit)`, or -1. A block's end marker is searched for in the block's own
 * (copy-free) slice: blocks end where the next one of their kind starts, so a reply of many blocks without their
 * end marker is searched once, not once per block to its end.
 */
function indexWithin(text: string, needle: string, from: number, limit: number): number {
  if (limit >= text.length) return text.indexOf(needle, from);
  const at = text.slice(from, limit).indexOf(needle);
  return at === -1 ? -1 : from + at;
}

/** The JSON values from `start` that hold calls, inside an optional code fence. */
export function readJsonCalls(
  text: string,
  start: number,
  limit: number,
  entry: EntryReader,
  tools: OfferedToolSet,
): ReadBlock | undefined {
  const open = skipSpace(text, start, limit);
  const fenced = text.startsWith('```', open);
  // The first value's calls are taken as they come (their list is this read's own).
  let calls: TextCall[] | undefined;
  let end = fenced ? skipWord(text, open + 3, limit) : start;
  for (;;) {
    const at = calls === undefined ? skipSpace(text, end, limit) : skipSeparators(text, end, limit);
    // Only an object or a list can hold a call: anything else ends the block without being read.
    const first = text.charCodeAt(at);
    if (at >= limit || (first !== OPEN_BRACE && first !== OPEN_BRACKET)) break;
    const value = readLenientJsonSpan(text, at, limit);
    if (value === undefined) break;
    const found = callsOf(value.value, entry, tools, value.span);
    if (found.length === 0) break;
    if (calls === undefined) calls = found;
    else for (const call of found) calls.push(call);
    end = value.end;
  }
  if (calls === undefined) return undefined;
  const after = skipSpace(text, end, limit);
  if (fenced && text.startsWith('```', after) && after + 3 <= limit) end = after + 3;
  return { calls, end };
}

/** The calls in one value: the value itself, or the entries of a list (bad entries dropped). */
function callsOf(
  value: unknown,
  entry: EntryReader,
  tools: OfferedToolSet,
  span: JsonSpan | undefined,
): TextCall[] {
  if (!Array.isArray(value)) {
    const call = entry(value, tools, span);
    return call === undefined ? [] : [call];
  }
  const spans = entrySpans(span, value.length);
  // Made with its first call (a first push would make room for sixteen).
  let calls: TextCall[] | undefined;
  for (let index = 0; index < value.length; index += 1) {
    const call = entry(value[index], tools, spans?.[index]?.value);
    if (call === undefined) continue;
    if (calls === undefined) calls = [call];
    else calls.push(call);
  }
  return calls ?? [];
}

/** Options of `callEntry`-style readers. */
export interface CallEntryOptions {
  /** Keys that may name the tool, in the order they are looked for (default `name`). */
  readonly nameKeys?: readonly string[];
  /** Keys that may hold the arguments (default `arguments`, then `parameters`). */
  readonly argumentKeys?: readonly string[];
  /** Refuse an object without an arguments key (for formats with no marker, where a guess costs more). */
  readonly requireArguments?: boolean;
}

/**
 * Reads `{"name": …, "arguments": {…}}` (or OpenAI's `{"type": "function", "function": {…}}`); an object
 * with a `description` is a tool definition echoed from the prompt, not a call.
 */
export function createCallEntry(options: CallEntryOptions = {}): EntryReader {
  const nameKeys = options.nameKeys ?? ['name'];
  const argumentKeys = options.argumentKeys ?? ['arguments', 'parameters'];
  const read: EntryReader = (value, tools, span) => {
    // A tool definition echoed from the prompt has a description; a call never does.
    if (!isPlainObject(value) || Object.hasOwn(value, 'description')) return undefined;
    const wrapped = ownValue(value, 'function');
    if (isPlainObject(wrapped) && ownValue(value, 'type') === 'function')
      return read(wrapped, tools, spanOf(span, 'function'));
    const name = firstStringValue(value, nameKeys);
    if (name === undefined || !tools.names.has(name)) return undefined;
    const argumentsKey = firstOwnKey(value, argumentKeys);
    if (argumentsKey === undefined && options.requireArguments === true) return undefined;
    if (argumentsKey === undefined) return { name, arguments: '{}' };
    const args = argumentsText(value[argumentsKey], lastMemberGuess(span, argumentsKey));
    return args === undefined ? undefined : { name, arguments: args };
  };
  return read;
}

/** The value of the first of `keys` that `value` holds as a string (plain loops: no callback per entry read). */
function firstStringValue(
  value: Record<string, unknown>,
  keys: readonly string[],
): string | undefined {
  for (const key of keys) {
    const named = ownValue(value, key);
    if (typeof named === 'string') return named;
  }
  return undefined;
}

function firstOwnKey(value: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) if (Object.hasOwn(value, key)) return key;
  return undefined;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const LESS_THAN = 0x3c;

/** `{"name": …, "arguments" | "parameters": …}`; no arguments key means no arguments. */
export const callEntry: EntryReader = createCallEntry();

/** Apertus's short form `{"tool_name": {…arguments}}`: one key, the tool's name. */
export const nameKeyedEntry: EntryReader = (value, tools, span) => {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  const name = keys[0];
  if (keys.length !== 1 || name === undefined || !tools.names.has(name)) return undefined;
  const args = argumentsText(value[name], lastMemberGuess(span, name));
  return args === undefined ? undefined : { name, arguments: args };
};

// ---------------------------------------------------------------------------------------------------------
// The formats

function jsonFormat(
  name: string,
  marker: string,
  close: string | undefined,
  entry: EntryReader = callEntry,
): ToolCallFormat {
  const blocks: readonly MarkedBlock[] = [{ marker, read: jsonBlockReader({ close, entry }) }];
  return {
    name,
    markers: [marker],
    read: (reply, tools) => readMarkedBlocks(reply, blocks, tools),
  };
}

/** NVIDIA Nemotron (Nano v2 and others): `<TOOLCALL>[{"name": …, "arguments": {…}}]</TOOLCALL>`. */
export const nemotronFormat: ToolCallFormat = jsonFormat('nemotron', '<TOOLCALL>', '</TOOLCALL>');

/** AI21 Jamba: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`. */
export const jambaFormat: ToolCallFormat = jsonFormat('jamba', '<tool_calls>', '</tool_calls>');

/** Tencent Hunyuan A13B: the same `<tool_calls>[…]</tool_calls>` list as Jamba. */
export const hunyuanFormat: ToolCallFormat = jsonFormat(
  'hunyuan-a13b',
  '<tool_calls>',
  '</tool_calls>',
);

/**
 * Swiss AI Apertus: `<|tools_prefix|>[{"tool_name": {…arguments}}]<|tools_suffix|>`; the usual
 * `{"name", "arguments"}` entry is read too.
 */
export const apertusFormat: ToolCallFormat = jsonFormat(
  'apertus',
  '<|tools_prefix|>',
  '<|tools_suffix|>',
  (value, tools, span) => nameKeyedEntry(value, tools, span) ?? callEntry(value, tools, span),
);

/** IBM Granite-20B-FunctionCalling: `<function_call> {"name": …, "arguments": {…}}`, repeated, no end marker. */
export const granite20bFcFormat: ToolCallFormat = jsonFormat(
  'granite-20b-fc',
  '<function_call>',
  undefined,
);

/** InternLM2 / 2.5: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`. */
export const internlm2Format: ToolCallFormat = jsonFormat(
  'internlm2',
  '<|action_start|><|plugin|>',
  '<|action_end|>',
);

const GIGACHAT_MARKERS = ['function call<|role_sep|>', '<|function_call|>'] as const;
const GIGACHAT_MESSAGE_END = /<\|message_sep\|>\s*/g;
const GIGACHAT_BLOCKS: readonly MarkedBlock[] = GIGACHAT_MARKERS.map((marker) => ({
  marker,
  read: jsonBlockReader({ entry: createCallEntry({ requireArguments: true }) }),
}));

/**
 * GigaChat 3: the text, `<|message_sep|>`, then the `function call` role with one call,
 * `function call<|role_sep|>\n{"name": …, "arguments": {…}}` (or `<|function_call|>{…}`). The
 * `<|message_sep|>` tokens that end messages are dropped from the text (also from a reply with no call).
 */
export const gigaChat3Format: ToolCallFormat = {
  name: 'gigachat3',
  markers: GIGACHAT_MARKERS,
  read(reply, tools) {
    try {
      // The message ends are dropped from what is left, not from the whole reply first (a copy of all of it).
      const found = readMarkedBlocks(reply, GIGACHAT_BLOCKS, tools);
      if (found === undefined) return undefined;
      return { ...found, content: found.content.replace(GIGACHAT_MESSAGE_END, '').trim() };
    } catch {
      return undefined;
    }
  },
  visibleText(reply) {
    if (!reply.includes('<|message_sep|>')) return undefined;
    return { content: reply.replace(GIGACHAT_MESSAGE_END, '').trim() };
  },
};

const xlamEntry = createCallEntry({ requireArguments: true });

/**
 * Salesforce xLAM: the whole reply is a JSON list of `{"name": …, "arguments": {…}}`, bare or in one
 * ```` ```json ```` fence. Only a reply that is nothing else counts (there is no marker to tell a call from
 * an answer that shows JSON); every entry must be such an object, and entries naming unknown tools are dropped.
 */
export const xlamFormat: ToolCallFormat = {
  name: 'xlam',
  markers: ['[', '```'],
  read(reply, tools) {
    try {
      return readXlam(reply, tools);
    } catch {
      return undefined;
    }
  },
};

const XLAM_KEYS = new Set(['name', 'arguments', 'id', 'type']);

function readXlam(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  if (tools.names.size === 0) return undefined;
  let body = reply.trim();
  if (body.length >= 6 && body.startsWith('```') && body.endsWith('```')) {
    body = body.slice(3, -3).replace(/^(?:json)?\s/, '');
  }
  body = body.trim();
  if (!body.startsWith('[')) return undefined;
  // Only a reply that is one list counts: mostly strict JSON, read whole at once (no scan for its end first).
  const value =
    readWholeStrictJson(body, 0, body.length) ?? readLenientJsonSpan(body, 0, body.length);
  if (value === undefined || value.end !== body.length || !Array.isArray(value.value)) {
    return undefined;
  }
  const entries: unknown[] = value.value;
  const wellFormed = entries.every(
    (item) => isPlainObject(item) && Object.keys(item).every((key) => XLAM_KEYS.has(key)),
  );
  const calls = wellFormed ? callsOf(entries, xlamEntry, tools, value.span) : [];
  return calls.length === 0 ? undefined : { content: '', calls };
}

// ---------------------------------------------------------------------------------------------------------
// Text helpers shared by the readers of this folder

/** Tokens that may end a turn right after a call. */
export const END_TOKENS: readonly string[] = [
  '<|eom_id|>',
  '<|eot_id|>',
  '<|im_end|>',
  '<|end|>',
  '</s>',
  '<|endoftext|>',
  '<|END_OF_TURN_TOKEN|>',
];

/** Skips whitespace and then one end-of-turn token, if there is one before `limit`. */
export function skipEndToken(text: string, index: number, limit: number): number {
  const at = skipSpace(text, index, limit);
  // Every token starts with `<`: a block followed by anything else (or by the end) asks no `startsWith`.
  if (text.charCodeAt(at) !== 0x3c) return index;
  for (const token of END_TOKENS) {
    if (text.startsWith(token, at)) return at + token.length <= limit ? at + token.length : index;
  }
  return index;
}

/** Drops `token` (and the space before it) from the end of `text`. */
export function dropTrailingToken(text: string, token: string): string {
  const trimmed = text.trimEnd();
  return trimmed.endsWith(token) ? trimmed.slice(0, -token.length).trimEnd() : text;
}

function skipSeparators(text: string, index: number, limit: number): number {
  let at = skipSpace(text, index, limit);
  while (at < limit && (text.charAt(at) === ',' || text.charAt(at) === ';')) {
    at = skipSpace(text, at + 1, limit);
  }
  return at;
}

/** Skips the closing brackets and separators a model sometimes doubles after its JSON. */
function skipStray(text: string, index: number, limit: number): number {
  let at = index;
  while (at < limit && ' \t\r\n\f}]),;'.includes(text.charAt(at))) at += 1;
  return at;
}

function skipWord(text: string, index: number, limit: number): number {
  let at = index;
  while (at < limit && /[A-Za-z]/.test(text.charAt(at))) at += 1;
  return at;
}

/** Where the value of `key` stands in the object read from `span`, when known. */
function spanOf(span: JsonSpan | undefined, key: string): JsonSpan | undefined {
  return span === undefined ? undefined : memberSpan(jsonMembers(span), key);
}

function ownValue(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}
