import { isPlainObject, type ToolCall } from '../../core/index.js';
import {
  closingQuote,
  compactJsonText,
  entrySpans,
  fail,
  isWellFormedText,
  type JsonSpan,
  jsonMembers,
  lastMemberGuess,
  matchSticky,
  memberSpan,
  noteReach,
  type Read,
  reach,
  readLenientJsonSpan,
  readValue,
  readWholeStrictJson,
  resetReach,
  skipSpace,
} from './lenient-json.js';
import { createFinder, isSpace, joinPieces, joinRanges } from './text-scan.js';

/** Options of `extractTextToolCalls`. */
export interface TextToolCallOptions {
  /** Makes the id of a call whose text carries none (default: `call_` and 24 random hex digits). */
  readonly generateId?: () => string;
  /**
   * Only the formats marked by a special token (`marked`), or only a reply that is a call or a call standing in
   * prose (`unmarked`); default both, marked first. Lets callers try other formats in between.
   */
  readonly only?: 'marked' | 'unmarked';
}

/** The answer text with the recognised calls cut out, and those calls. */
export interface TextToolCalls {
  readonly content: string;
  readonly toolCalls: ToolCall[];
}

/**
 * Finds tool calls that a model wrote into its answer text instead of the structured field: Hermes / Qwen
 * `<tool_call>` blocks, Llama 3.1 `<|python_tag|>`, Mistral `[TOOL_CALLS]` (JSON list, `name[ARGS]{…}` or
 * `name{…}`), Granite `<|tool_call|>`, Phi-4 `functools[…]`, a reply that is nothing but a call (a JSON
 * object or list, optionally in a ```json fence, `arguments` or `parameters`, OpenAI's `function` shape
 * included, or Llama 3.2's pythonic `[name(a=1)]`), and such calls standing next to prose (see
 * `readProseCalls`). Only names in `offeredToolNames` count; arguments become JSON object text. JSON is read
 * leniently (single quotes, trailing commas, Python `True`/`None`), in linear time.
 * Returns `undefined` when nothing names an offered tool; never throws on any text.
 */
export function extractTextToolCalls(
  content: string,
  offeredToolNames: readonly string[],
  options: TextToolCallOptions = {},
): TextToolCalls | undefined {
  if (offeredToolNames.length === 0) return undefined;
  return extractTextToolCallsIn(content, new Set(offeredToolNames), options);
}

/** Options of `extractTextToolCallsIn`. */
export interface TextToolCallInOptions extends TextToolCallOptions {
  /** Whether the text holds a marker (as `content.includes(marker)`), when the caller already knows. */
  readonly hasMarker?: ((marker: string) => boolean) | undefined;
}

/** `extractTextToolCalls` with the offered names as a set (none: no call), for callers that keep one. */
export function extractTextToolCallsIn(
  content: string,
  offered: ReadonlySet<string>,
  options: TextToolCallInOptions = {},
): TextToolCalls | undefined {
  if (offered.size === 0) return undefined;
  let found: Found | undefined;
  try {
    found = findCalls(content, offered, options);
  } catch {
    // Only a bug could land here (every reader is bounded and checked); a reply is never worth a crash.
    found = undefined;
  }
  if (found === undefined) return undefined;
  return { content: found.content, toolCalls: assignIds(found.calls, options.generateId) };
}

/** A recognised call before it gets its id; `id` is the one the model wrote, if any. */
interface Candidate {
  readonly name: string;
  readonly arguments: string;
  readonly id: string | undefined;
}

interface Found {
  readonly content: string;
  readonly calls: readonly Candidate[];
}

type Offered = ReadonlySet<string>;

function findCalls(
  text: string,
  offered: Offered,
  options: TextToolCallInOptions,
): Found | undefined {
  const only = options.only;
  if (only !== 'unmarked') {
    const marked = findMarkedCalls(text, offered, options.hasMarker);
    if (marked !== undefined || only === 'marked') return marked;
  }
  const whole = readWholeReply(text, offered);
  if (whole !== undefined) return { content: '', calls: whole };
  return readProseCalls(text, offered);
}

function findMarkedCalls(
  text: string,
  offered: Offered,
  hasMarker: ((marker: string) => boolean) | undefined,
): Found | undefined {
  let content = text;
  const calls: Candidate[] = [];
  for (const format of MARKED_FORMATS) {
    // Once a block is cut out, the joined text is asked afresh (a join could bring a marker together).
    const holds =
      hasMarker !== undefined && calls.length === 0
        ? hasMarker(format.marker)
        : content.includes(format.marker);
    if (!holds) continue;
    const found = extractMarked(content, format, offered);
    if (found === undefined) continue;
    content = found.content;
    for (const call of found.calls) calls.push(call);
  }
  return calls.length > 0 ? { content, calls } : undefined;
}

function assignIds(calls: readonly Candidate[], generateId = defaultId): ToolCall[] {
  // One call (most replies) has no id to share with another: no set of the ids used is made.
  if (calls.length === 1) {
    const call = calls[0] as Candidate;
    const id = call.id !== undefined && MODEL_ID.test(call.id) ? call.id : generateId();
    return [{ id, name: call.name, arguments: call.arguments }];
  }
  const used = new Set<string>();
  return calls.map((call) => {
    const modelId = call.id !== undefined && MODEL_ID.test(call.id) ? call.id : undefined;
    const id = modelId !== undefined && !used.has(modelId) ? modelId : generateId();
    used.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
}

/** Ids the model wrote (Mistral's nine characters, OpenAI's `call_…`) are kept when they look like ids. */
const MODEL_ID = /^[\w.:-]{1,64}$/;

/** The global Web Crypto makes the id, so importing the library does not load `node:crypto` (issue 20). */
function defaultId(): string {
  return `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Formats that mark calls with a special token

/** Reads the calls after one marker, up to `limit` (the next marker or the end of the text). */
type MarkedReader = (start: number, limit: number) => Read<readonly Candidate[]> | undefined;

interface MarkedFormat {
  readonly marker: string;
  readonly reader: (text: string, offered: Offered) => MarkedReader;
}

const HERMES_CLOSE = '</tool_call>';
const END_TOKENS = ['<|eom_id|>', '<|eot_id|>', '<|im_end|>', '<|end|>', '</s>'] as const;

const MARKED_FORMATS: readonly MarkedFormat[] = [
  { marker: '<tool_call>', reader: hermesReader },
  { marker: '[TOOL_CALLS]', reader: mistralReader },
  { marker: '<|python_tag|>', reader: sequenceReader },
  { marker: '<|tool_call|>', reader: sequenceReader },
  { marker: 'functools', reader: sequenceReader },
];

/** The special tokens that start a call in the formats `extractTextToolCalls` reads as marked. */
export const MARKED_CALL_STARTS: readonly string[] = MARKED_FORMATS.map((format) => format.marker);

/** Cuts every marked call out of `text`; the text around them is kept, blocks that do not parse too. */
function extractMarked(text: string, format: MarkedFormat, offered: Offered): Found | undefined {
  const nextMarker = createFinder(text, format.marker);
  const read = format.reader(text, offered);
  // The stretches of text kept around the calls (places, in pairs) and the calls: made with their first entries
  // (a first push would make room for sixteen).
  let kept: number[] | undefined;
  let calls: Candidate[] | undefined;
  let copied = 0;
  let search = 0;
  for (;;) {
    const at = nextMarker(search);
    if (at === -1) break;
    const start = at + format.marker.length;
    const following = nextMarker(start);
    const found = read(start, following === -1 ? text.length : following);
    search = found === undefined ? start : found.end;
    if (found === undefined) continue;
    if (kept === undefined) kept = [copied, at];
    else kept.push(copied, at);
    if (calls === undefined) calls = found.value.slice();
    else for (const call of found.value) calls.push(call);
    copied = found.end;
  }
  if (calls === undefined || calls.length === 0 || kept === undefined) return undefined;
  return { content: joinRanges(text, kept, copied), calls };
}

/**
 * `<tool_call>{…}</tool_call>`; the closing tag may be missing at the end of the output. The JSON is read
 * first, so a `</tool_call>` inside an argument string does not cut it; stray text before the closing tag
 * (a doubled `}`) is dropped with the block.
 */
function hermesReader(text: string, offered: Offered): MarkedReader {
  const nextClose = createFinder(text, HERMES_CLOSE);
  return (start, limit) => {
    // The block mostly holds one JSON value, which then fills it up to its closing tag.
    const first = nextClose(start);
    const wholeEnd = first !== -1 && first + HERMES_CLOSE.length <= limit ? first : undefined;
    const sequence = readCallSequence(text, start, limit, offered, 'marked', wholeEnd);
    if (sequence === undefined) return undefined;
    const close = nextClose(sequence.end);
    const closed = close !== -1 && close + HERMES_CLOSE.length <= limit;
    return { value: sequence.value, end: closed ? close + HERMES_CLOSE.length : sequence.end };
  };
}

/** JSON values (or Llama's `name.call(a=1)`) separated by `;`, then an optional end-of-turn token. */
function sequenceReader(text: string, offered: Offered): MarkedReader {
  return (start, limit) => {
    const sequence = readCallSequence(text, start, limit, offered, 'marked', limit);
    if (sequence === undefined) return undefined;
    return { value: sequence.value, end: skipEndToken(text, sequence.end, limit) };
  };
}

/**
 * `[TOOL_CALLS] [{…}]`, `[TOOL_CALLS][{…}]`, `[TOOL_CALLS]name[ARGS]{…}` (with an optional `[CALL_ID]id`), and
 * `[TOOL_CALLS]name{…}`: the v11+ form as servers show it when `[ARGS]` is a control token they strip (vLLM's
 * Mistral parser splits the name off at the first `{`). Every call has its own `[TOOL_CALLS]`; a name with no
 * `{…}` after it (`[TOOL_CALLS]name`) or arguments cut off by the end of the output are no call.
 */
function mistralReader(text: string, offered: Offered): MarkedReader {
  const readSequence = sequenceReader(text, offered);
  return (start, limit) => {
    const index = skipSpace(text, start, limit);
    const first = text.charAt(index);
    if (first === '[' || first === '{') return readSequence(index, limit);
    const call = readMistralNamedCall(text, index, limit, offered);
    if (call === undefined) return undefined;
    return { value: [call.value], end: skipEndToken(text, call.end, limit) };
  };
}

const MISTRAL_NAME = /[A-Za-z_][\w.-]*/y;
const MISTRAL_CALL_ID = /\[CALL_ID\]([A-Za-z0-9_-]+)/y;

function readMistralNamedCall(
  text: string,
  start: number,
  limit: number,
  offered: Offered,
): Read<Candidate> | undefined {
  const name = matchSticky(MISTRAL_NAME, text, start, limit);
  if (name === undefined || !offered.has(name.value[0])) return undefined;
  const callId = matchSticky(MISTRAL_CALL_ID, text, name.end, limit);
  const argsAt = callId?.end ?? name.end;
  const valueAt = mistralArgumentsStart(text, argsAt, limit);
  if (valueAt === undefined) return undefined;
  const args = readValue(text, valueAt, limit, 0);
  const normalised = args === undefined ? undefined : normaliseArguments(args.value);
  if (args === undefined || normalised === undefined) return undefined;
  return {
    value: { name: name.value[0], arguments: normalised, id: callId?.value[1] },
    end: args.end,
  };
}

/** Where the arguments start: after `[ARGS]`, or at a `{` right after the name when the token was stripped. */
function mistralArgumentsStart(text: string, index: number, limit: number): number | undefined {
  if (text.startsWith('[ARGS]', index) && index + 6 <= limit) return index + 6;
  const brace = skipSpace(text, index, limit);
  return brace < limit && text.charAt(brace) === '{' ? brace : undefined;
}

function skipEndToken(text: string, index: number, limit: number): number {
  const at = skipSpace(text, index, limit);
  // Every token starts with `<`: a call followed by anything else (or by the end) asks no `startsWith`.
  if (text.charCodeAt(at) !== LESS_THAN) return index;
  const token = END_TOKENS.find((candidate) => text.startsWith(candidate, at));
  return token !== undefined && at + token.length <= limit ? at + token.length : index;
}

// ---------------------------------------------------------------------------------------------------------
// A reply that is nothing but calls

/** The whole reply as calls: JSON (possibly fenced), `;`-separated JSON objects, or pythonic calls. */
function readWholeReply(text: string, offered: Offered): Candidate[] | undefined {
  const inner = unwrapReply(text);
  const first = inner.charAt(0);
  if (first !== '{' && first !== '[' && !/[A-Za-z_]/.test(first)) return undefined;
  const parsed = parseWholeJson(inner);
  if (parsed !== undefined) {
    const span = { text: inner, start: 0, end: inner.length };
    return callsFromValue(parsed.value, offered, 'whole', span);
  }
  const sequence = readCallSequence(inner, 0, inner.length, offered, 'whole');
  if (sequence === undefined) return undefined;
  const rest = skipSeparators(inner, sequence.end, inner.length);
  return rest === inner.length ? [...sequence.value] : undefined;
}

/**
 * `JSON.parse` of a trimmed reply, skipped where it would surely throw (a throw costs far more than a parse):
 * a reply that starts with a letter is JSON only as `true`/`false`/`null` (no call either way), and an object
 * or list must end with its closer.
 */
function parseWholeJson(inner: string): { readonly value: unknown } | undefined {
  const first = inner.charAt(0);
  const last = inner.charAt(inner.length - 1);
  if (first !== '{' && first !== '[') return undefined;
  if (last !== (first === '{' ? '}' : ']')) return undefined;
  try {
    return { value: JSON.parse(inner) };
  } catch {
    return undefined;
  }
}

/** Trims the reply, drops end-of-turn tokens after it, and takes it out of a ``` fence. */
function unwrapReply(text: string): string {
  let inner = text.trim();
  for (let token = endTokenOf(inner); token !== undefined; token = endTokenOf(inner)) {
    inner = inner.slice(0, -token.length).trimEnd();
  }
  if (inner.length >= 6 && inner.startsWith('```') && inner.endsWith('```')) {
    inner = inner
      .slice(3, -3)
      .replace(/^[A-Za-z]*\s/, '')
      .trim();
  }
  return inner;
}

function endTokenOf(text: string): string | undefined {
  return endTokenBefore(text, text.length);
}

/**
 * The end-of-turn token that ends at `end`, if any. Every token ends with `>`: one look at the character before
 * `end` spares the `endsWith` calls for a text that ends any other way (most do).
 */
function endTokenBefore(text: string, end: number): string | undefined {
  if (text.charCodeAt(end - 1) !== GREATER_THAN) return undefined;
  for (const token of END_TOKENS) if (text.endsWith(token, end)) return token;
  return undefined;
}

/** Whether an end-of-turn token starts at `at` (each starts with `<`: one look first). */
function endTokenAt(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== LESS_THAN) return false;
  for (const token of END_TOKENS) if (text.startsWith(token, at)) return true;
  return false;
}

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;

// ---------------------------------------------------------------------------------------------------------
// Calls standing next to prose

/**
 * Calls written into prose without a marker. A reply holds such text for other reasons too (an example, data),
 * so each must look sure, outside ``` fences and `inline code`:
 * - JSON (`{"name": …, "arguments"|"parameters": …}`, `;`-separated or in a list; only call keys, an offered
 *   name, an arguments key) must stand between sentences: nothing or `:` `.` `!` `?` before it on its line,
 *   and nothing, a new sentence or end punctuation after it (Llama 3.x: `Here is the result: {…} Would you…`);
 * - a pythonic list (`[f(a=1), g()]`, every name offered) must start or end the reply or have its own line.
 * An object that does not parse does not hide a call after it; the prose around cut-out calls is kept.
 */
function readProseCalls(text: string, offered: Offered): Found | undefined {
  const scan = createProseScan(text);
  const nextBrace = createFinder(text, '{');
  const nextBracket = createFinder(text, '[');
  const pieces: string[] = [];
  const calls: Candidate[] = [];
  let copied = 0;
  let search = 0;
  let broken: Broken | undefined;
  for (;;) {
    const at = firstHit(nextBrace(search), nextBracket(search));
    if (at === -1) break;
    const from = broken !== undefined && broken.resumeAt === at ? broken.start : at;
    const found = readProseCandidate(text, at, from, offered, scan);
    broken = found.failed ? { start: from, resumeAt: found.next } : undefined;
    search = found.next;
    if (found.calls === undefined) continue;
    pieces.push(text.slice(copied, at));
    for (const call of found.calls) calls.push(call);
    copied = found.next;
  }
  if (calls.length === 0) return undefined;
  pieces.push(text.slice(copied));
  return { content: joinPieces(pieces), calls };
}

/** A read that failed from `start`; a call found where it stopped stands where the broken text started. */
interface Broken {
  readonly start: number;
  readonly resumeAt: number;
}

function firstHit(first: number, second: number): number {
  if (first === -1) return second;
  return second === -1 ? first : Math.min(first, second);
}

/** The calls found at one `{` or `[` (none when it holds no call that stands right), and where to search on. */
interface ProseRead {
  readonly calls: readonly Candidate[] | undefined;
  readonly next: number;
  /** Nothing could be read there. */
  readonly failed: boolean;
}

/** Reads at `at`; `from` is where the text it stands in starts (before broken text that ran into it). */
function readProseCandidate(
  text: string,
  at: number,
  from: number,
  offered: Offered,
  scan: ProseScan,
): ProseRead {
  if (scan.inFence(at) || text.charAt(at - 1) === '`') {
    return { calls: undefined, next: at + 1, failed: false };
  }
  resetReach(at);
  const json = text.charAt(at) === '{' || text.charAt(skipSpace(text, at + 1, text.length)) === '{';
  const read = json ? readProseJson(text, at, offered) : readProsePython(text, at, offered);
  // A read that fails resumes the search where it stopped looking: linear, and a valid call after an
  // invalid object (`{"name": "f", "parameters": {{"name": "f", …}}`) is still found.
  if (read === undefined)
    return { calls: undefined, next: Math.max(at + 1, reach()), failed: true };
  const placed = json ? scan.betweenSentences(from, read.end) : scan.standsAlone(from, read.end);
  const calls = placed && text.charAt(read.end) !== '`' ? read.value : undefined;
  return { calls, next: read.end, failed: false };
}

/** JSON calls at `at` and any more after `;`; the value (not a call, or no calls) still moves the search on. */
function readProseJson(
  text: string,
  at: number,
  offered: Offered,
): Read<Candidate[] | undefined> | undefined {
  const first = readLenientJsonSpan(text, at, text.length);
  if (first === undefined) return undefined;
  const calls = callsFromValue(first.value, offered, 'prose', first.span);
  if (calls === undefined) return { value: undefined, end: first.end };
  let end = first.end;
  for (;;) {
    const separator = skipSpace(text, end, text.length);
    if (text.charAt(separator) !== ';') break;
    const next = readValue(text, separator + 1, text.length, 0);
    const more = next === undefined ? undefined : callsFromValue(next.value, offered, 'prose');
    if (next === undefined || more === undefined) break;
    for (const call of more) calls.push(call);
    end = next.end;
  }
  return { value: calls, end };
}

/** A pythonic list at `at`; it counts when every name in it is offered (entries that do not parse are left out). */
function readProsePython(
  text: string,
  at: number,
  offered: Offered,
): Read<readonly Candidate[] | undefined> | undefined {
  const list = readPythonList(text, at, text.length, offered);
  if (list === undefined) return undefined;
  const { calls, unknownName } = list.value;
  return { value: calls.length > 0 && !unknownName ? calls : undefined, end: list.end };
}

/** Where a candidate stands in the reply; asked about positions that only move forward. */
interface ProseScan {
  /** Inside a ``` fence (one left open runs to the end). */
  readonly inFence: (at: number) => boolean;
  /** Nothing or the end of a sentence before `start` on its line; nothing or a new sentence after `end`. */
  readonly betweenSentences: (start: number, end: number) => boolean;
  /** Starts the reply, ends it (before end-of-turn tokens), or is alone on its line. */
  readonly standsAlone: (start: number, end: number) => boolean;
}

const SENTENCE_ENDS = new Set([':', '.', '!', '?', '\uff1a', '\u3002', '\uff01', '\uff1f']);
/**
 * After a call, these continue the sentence it stands in. Built from a string on first use: V8 checks a regex
 * literal's syntax when it parses the file, and for Unicode property classes that builds their character ranges
 * (about 2M instructions of every `import('openjarvis')`), whether or not a reply is ever read.
 */
let sentenceGoesOn: RegExp | undefined;
function sentenceGoesOnAt(char: string): boolean {
  // biome-ignore lint/complexity/useRegexLiterals: a literal would be checked (and cost) when the package loads.
  sentenceGoesOn ??= new RegExp('[\\p{Ll}\\p{N},;(`\'"]', 'u');
  return sentenceGoesOn.test(char);
}

function createProseScan(text: string): ProseScan {
  const inFence = createFenceTest(text);
  const lineStartOf = createLineStarts(text);
  const first = skipSpace(text, 0, text.length);
  const last = contentEnd(text);
  const aloneBefore = (start: number) => lastNonSpace(text, start, lineStartOf(start)) === -1;
  return {
    inFence,
    betweenSentences: (start, end) => {
      const before = lastNonSpace(text, start, lineStartOf(start));
      return (before === -1 || SENTENCE_ENDS.has(text.charAt(before))) && startsSentence(text, end);
    },
    standsAlone: (start, end) =>
      start === first || end >= last || (aloneBefore(start) && lineEndsAt(text, end)),
  };
}

/** Tests whether positions (only moving forward) lie inside a ``` fence. */
function createFenceTest(text: string): (at: number) => boolean {
  const spans: (readonly [number, number])[] = [];
  for (let open = text.indexOf('```'); open !== -1; ) {
    const close = text.indexOf('```', open + 3);
    spans.push([open, close === -1 ? text.length : close + 3]);
    open = close === -1 ? -1 : text.indexOf('```', close + 3);
  }
  let span = 0;
  return (at) => {
    while (span < spans.length && (spans[span]?.[1] ?? 0) <= at) span += 1;
    return span < spans.length && (spans[span]?.[0] ?? at + 1) <= at;
  };
}

/** Finds the start of the line holding a position (positions only moving forward). */
function createLineStarts(text: string): (at: number) => number {
  const nextNewline = createFinder(text, '\n');
  let start = 0;
  return (at) => {
    for (let newline = nextNewline(start); newline !== -1 && newline < at; ) {
      start = newline + 1;
      newline = nextNewline(start);
    }
    return start;
  };
}

/** The last non-space index before `index` and not before `floor`, or -1. */
function lastNonSpace(text: string, index: number, floor: number): number {
  let at = index - 1;
  while (at >= floor && isSpace(text.charCodeAt(at))) at -= 1;
  return at >= floor ? at : -1;
}

function startsSentence(text: string, index: number): boolean {
  const at = skipBlanks(text, index);
  if (at >= text.length || lineEndsAt(text, at)) return true;
  const char = text.charAt(at);
  if (char === '.' || char === '!' || char === '?')
    return lineEndsAt(text, at + 1) || isSpace(text.charCodeAt(at + 1));
  return !sentenceGoesOnAt(char);
}

/** Only blanks, then the end of the line, of the text, or an end-of-turn token. */
function lineEndsAt(text: string, index: number): boolean {
  const at = skipBlanks(text, index);
  if (at >= text.length) return true;
  const char = text.charAt(at);
  return char === '\n' || char === '\r' || endTokenAt(text, at);
}

/** Skips spaces and tabs (not line breaks). */
function skipBlanks(text: string, index: number): number {
  let at = index;
  while (at < text.length && (text.charAt(at) === ' ' || text.charAt(at) === '\t')) at += 1;
  return at;
}

/** The end of the reply's content: before trailing space and end-of-turn tokens. */
function contentEnd(text: string): number {
  let end = text.length;
  for (;;) {
    while (end > 0 && isSpace(text.charCodeAt(end - 1))) end -= 1;
    const token = endTokenBefore(text, end);
    if (token === undefined) return end;
    end -= token.length;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Calls from values

/** Keys that name the tool, and keys that hold its arguments, in the order they are looked for. */
const NAME_KEYS = ['name', 'function', 'tool', 'tool_name'] as const;
const ARGUMENT_KEYS = ['arguments', 'parameters', 'tool_input', 'args', 'input'] as const;

/**
 * Where a call was written, which sets how sure a value must look: after a marker (`marked`) any object with
 * an offered name is a call; a reply that is only calls (`whole`) refuses keys a call does not have; a call
 * standing in prose (`prose`) must also have an arguments key.
 */
type Place = 'marked' | 'whole' | 'prose';

/**
 * Reads calls until the text stops looking like one, skipping separators (`,`, `;`, fences) between them. When
 * `wholeEnd` is given (where the block's text ends: its closing tag, or `limit`), a block that is one strict JSON
 * value up to there is read by one `JSON.parse`, with no scan for the value's end first: what reading it value by
 * value gives, as nothing but space follows the value and nothing after it reads as a call.
 */
function readCallSequence(
  text: string,
  start: number,
  limit: number,
  offered: Offered,
  place: Place,
  wholeEnd?: number,
): Read<readonly Candidate[]> | undefined {
  // readWholeStrictJson looks at the value's first character before anything else: a block that is no JSON value
  // costs nothing more.
  const whole =
    wholeEnd === undefined
      ? undefined
      : readWholeStrictJson(text, skipSeparators(text, start, limit), wholeEnd);
  if (whole !== undefined) {
    const calls = callsFromValue(whole.value, offered, place, whole.span);
    return calls === undefined ? undefined : { value: calls, end: whole.end };
  }
  const calls: Candidate[] = [];
  let end = start;
  for (;;) {
    const index = skipSeparators(text, end, limit);
    if (index >= limit) break;
    const read = readCalls(text, index, limit, offered, place);
    if (read === undefined) break;
    for (const call of read.value) calls.push(call);
    end = read.end;
  }
  return calls.length > 0 ? { value: calls, end } : undefined;
}

function readCalls(
  text: string,
  index: number,
  limit: number,
  offered: Offered,
  place: Place,
): Read<readonly Candidate[]> | undefined {
  const value = readLenientJsonSpan(text, index, limit);
  if (value === undefined) return readPythonCalls(text, index, limit, offered);
  const calls = callsFromValue(value.value, offered, place, value.span);
  return calls === undefined ? undefined : { value: calls, end: value.end };
}

/** One call object, a list of them, or `{"tool_calls": [...]}`; all of them must be calls, or none count. */
function callsFromValue(
  value: unknown,
  offered: Offered,
  place: Place,
  span?: JsonSpan,
): Candidate[] | undefined {
  if (isPlainObject(value) && Array.isArray(value.tool_calls) && isToolCallsMessage(value)) {
    const inner = span === undefined ? undefined : memberSpan(jsonMembers(span), 'tool_calls');
    return callsFromValue(value.tool_calls, offered, place, inner);
  }
  const items = Array.isArray(value) ? value : [value];
  const spans = Array.isArray(value) ? entrySpans(span, items.length) : undefined;
  const calls: Candidate[] = [];
  for (const [index, item] of items.entries()) {
    const itemSpan = Array.isArray(value) ? spans?.[index]?.value : span;
    const call = callFromObject(item, offered, place, itemSpan);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
}

/** `{"tool_calls": […]}`, possibly as a whole OpenAI message without text. */
function isToolCallsMessage(value: Record<string, unknown>): boolean {
  const content = value.content;
  return (
    hasOnlyKeys(value, ['tool_calls', 'role', 'content']) &&
    (content === undefined || content === null || content === '')
  );
}

/**
 * One call object. `{"name": "x"}` without an arguments key: vLLM's Llama parser says it is no call. We count
 * it after a marker and as a whole reply (x offered, nothing else in the reply: a tool without parameters is
 * called so, and such a reply has no other reading), but not inside prose, where a bare name is too weak a
 * sign to invent a call from.
 */
function callFromObject(
  value: unknown,
  offered: Offered,
  place: Place,
  span?: JsonSpan,
): Candidate | undefined {
  if (!isPlainObject(value)) return undefined;
  const strict = place !== 'marked';
  if (isPlainObject(value.function)) {
    if (strict && !hasOnlyKeys(value, ['id', 'type', 'function'])) return undefined;
    const innerSpan = span === undefined ? undefined : memberSpan(jsonMembers(span), 'function');
    const inner = callFromObject(value.function, offered, place, innerSpan);
    return inner === undefined ? undefined : { ...inner, id: stringOrUndefined(value.id) };
  }
  const nameKey = NAME_KEYS.find((key) => typeof ownValue(value, key) === 'string');
  const name = nameKey === undefined ? undefined : String(value[nameKey]);
  if (name === undefined || !offered.has(name)) return undefined;
  const argumentsKey = ARGUMENT_KEYS.find((key) => ownValue(value, key) !== undefined);
  if (place === 'prose' && argumentsKey === undefined) return undefined;
  if (strict && !hasOnlyKeys(value, [nameKey ?? '', argumentsKey ?? '', 'id', 'type'])) {
    return undefined;
  }
  // Where the arguments may stand, found without reading past them: compactJsonText takes the guess only when it
  // is right (the last member, the one JSON.parse kept), else the value is serialised.
  const argsSpan = argumentsKey === undefined ? undefined : lastMemberGuess(span, argumentsKey);
  const args = normaliseArguments(
    argumentsKey === undefined ? undefined : value[argumentsKey],
    argsSpan,
  );
  return args === undefined
    ? undefined
    : { name, arguments: args, id: stringOrUndefined(value.id) };
}

/** Arguments as JSON object text: objects are serialised, JSON text is kept when it is an object. */
function normaliseArguments(raw: unknown, span?: JsonSpan): string | undefined {
  if (raw === undefined || raw === null) return '{}';
  if (isPlainObject(raw)) {
    return (span === undefined ? undefined : compactJsonText(raw, span)) ?? safeStringify(raw);
  }
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return '{}';
  // Only text that starts with `{` can hold an object (and JSON.parse would throw on the rest: slow).
  if (text.charAt(0) !== '{') return undefined;
  if (text.charAt(text.length - 1) === '}') {
    try {
      if (isPlainObject(JSON.parse(text))) return raw;
    } catch {
      // Not strict JSON: read it leniently below.
    }
  }
  const loose = readValue(text, 0, text.length, 0);
  if (loose === undefined || !isPlainObject(loose.value)) return undefined;
  return skipSpace(text, loose.end, text.length) === text.length
    ? safeStringify(loose.value)
    : undefined;
}

function ownValue(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    // Too deeply nested for the stack: not arguments worth running.
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pythonic calls: `[get_weather(city='Paris', days=3), calculator(expression="2+2")]`

const CALL_NAME = /[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*/y;
const KEYWORD = /[A-Za-z_]\w*/y;

/** A single call `name(…)`, or a list `[…]` of them with its bad entries left out (see `readPythonList`). */
function readPythonCalls(
  text: string,
  index: number,
  limit: number,
  offered: Offered,
): Read<readonly Candidate[]> | undefined {
  if (text.charAt(index) !== '[') {
    const call = readPythonCall(text, index, limit, offered);
    return call === undefined ? undefined : { value: [call.value], end: call.end };
  }
  const list = readPythonList(text, index, limit, offered);
  return list === undefined || list.value.calls.length === 0
    ? undefined
    : { value: list.value.calls, end: list.end };
}

/** The calls of a pythonic list, and whether it also held entries that are no call. */
interface PythonList {
  readonly calls: readonly Candidate[];
  /** An entry named a tool that is not offered. */
  readonly unknownName: boolean;
  /** An entry's arguments did not parse (positional, `b'…'`, an expression). */
  readonly badArguments: boolean;
}

/**
 * `[f(a=1), g(b='x')]`. An entry that is call-shaped but is no call (an unknown name, arguments that do not
 * parse) is skipped and the good entries kept; the list fails only when its shape breaks.
 */
function readPythonList(
  text: string,
  index: number,
  limit: number,
  offered: Offered,
): Read<PythonList> | undefined {
  const calls: Candidate[] = [];
  let unknownName = false;
  let badArguments = false;
  let at = index + 1;
  for (;;) {
    const entry = readPythonEntry(text, skipSpace(text, at, limit), limit, offered);
    if (entry === undefined) return undefined;
    if (typeof entry.value === 'object') calls.push(entry.value);
    else if (entry.value === true) badArguments = true;
    else unknownName = true;
    at = skipSpace(text, entry.end, limit);
    const next = at < limit ? text.charAt(at) : '';
    if (next === ']') return { value: { calls, unknownName, badArguments }, end: at + 1 };
    if (next !== ',') return undefined;
    at += 1;
  }
}

/** A call, or for a call-shaped entry that is none, whether its name is offered. */
function readPythonEntry(
  text: string,
  index: number,
  limit: number,
  offered: Offered,
): Read<Candidate | boolean> | undefined {
  const call = readPythonCall(text, index, limit, offered);
  if (call !== undefined) return call;
  const skipped = skipPythonCall(text, index, limit);
  if (skipped === undefined) return undefined;
  return { value: offered.has(pythonCallName(skipped.value, offered)), end: skipped.end };
}

/** The tool a call path names: itself, or for Llama's built-in form `name.call`, `name`. */
function pythonCallName(path: string, offered: Offered): string {
  if (offered.has(path) || !path.endsWith('.call')) return path;
  return path.slice(0, -5);
}

/**
 * Skips `name(…)` whose arguments need not parse: up to the `)` that closes it, over nested brackets and quoted
 * strings. `undefined` when brackets do not match or a string does not end. Returns the name path.
 */
function skipPythonCall(text: string, index: number, limit: number): Read<string> | undefined {
  const match = matchSticky(CALL_NAME, text, index, limit);
  const open = match === undefined ? limit : skipSpace(text, match.end, limit);
  if (match === undefined || open >= limit || text.charAt(open) !== '(') return undefined;
  const closers: string[] = [')'];
  let at = open + 1;
  while (at < limit) {
    const char = text.charAt(at);
    if (char === '"' || char === "'") {
      at = skipQuoted(text, at, limit);
      continue;
    }
    const closer = CLOSERS.get(char);
    if (closer !== undefined) closers.push(closer);
    else if (char === ')' || char === ']' || char === '}') {
      if (closers.pop() !== char) return fail(at);
      if (closers.length === 0) return { value: match.value[0], end: at + 1 };
    }
    at += 1;
  }
  return fail(limit);
}

const CLOSERS = new Map([
  ['(', ')'],
  ['[', ']'],
  ['{', '}'],
]);

/** The index after the quoted string at `index`, or `limit` when it does not end. */
function skipQuoted(text: string, index: number, limit: number): number {
  const close = closingQuote(text, index + 1, text.charAt(index), limit);
  noteReach(close === -1 ? limit : close);
  return close === -1 ? limit : close + 1;
}

/** `name(key=value, …)`; Llama 3.1's built-in form `name.call(…)` names `name`. Positional arguments fail. */
function readPythonCall(
  text: string,
  index: number,
  limit: number,
  offered: Offered,
): Read<Candidate> | undefined {
  const match = matchSticky(CALL_NAME, text, index, limit);
  const name = pythonCallName(match?.value[0] ?? '', offered);
  if (match === undefined || !offered.has(name)) return undefined;
  const at = skipSpace(text, match.end, limit);
  if (at >= limit || text.charAt(at) !== '(') return undefined;
  const args = readPythonArguments(text, at + 1, limit);
  return args === undefined
    ? undefined
    : { value: { name, arguments: args.value, id: undefined }, end: args.end };
}

/**
 * `key=value, …)` from `index` as JSON object text, what `JSON.stringify` writes for an object of the pairs. Each
 * value's JSON is written as it is read: a double-quoted string that JSON writes the same (no raw control
 * character, only the escapes JSON.stringify writes, no lone surrogate) is copied from the reply, so a long
 * argument is neither decoded nor encoded again. A key given twice goes through an object (the later value wins).
 */
function readPythonArguments(text: string, index: number, limit: number): Read<string> | undefined {
  // By key, in the order keys first appear (a Map keeps a key's place when it is set again, as an object does).
  const members = new Map<string, string>();
  let at = skipSpace(text, index, limit);
  while (at < limit && text.charAt(at) !== ')') {
    const key = matchSticky(KEYWORD, text, at, limit);
    const equals = key === undefined ? limit : skipSpace(text, key.end, limit);
    if (key === undefined || equals >= limit || text.charAt(equals) !== '=') return undefined;
    const value = readPythonValueJson(text, skipSpace(text, equals + 1, limit), limit);
    if (value === undefined) return undefined;
    members.set(key.value[0], value.value);
    at = skipSpace(text, value.end, limit);
    if (at < limit && text.charAt(at) === ',') at = skipSpace(text, at + 1, limit);
    else if (at >= limit || text.charAt(at) !== ')') return undefined;
  }
  if (at >= limit) return undefined;
  const parts: string[] = [];
  // A keyword is a name (letters, digits, `_`; never an index, which an object would put first): no escapes.
  for (const [key, value] of members) parts.push(`"${key}":${value}`);
  return { value: `{${parts.join(',')}}`, end: at + 1 };
}

/** The JSON text of the value at `index` (no space before it), copied when it is a string JSON writes the same. */
function readPythonValueJson(text: string, index: number, limit: number): Read<string> | undefined {
  if (text.charCodeAt(index) === 0x22) {
    const close = closingQuote(text, index + 1, '"', limit);
    if (close !== -1 && isJsonAsWritten(text, index + 1, close)) {
      return { value: text.slice(index, close + 1), end: close + 1 };
    }
  }
  const value = readValue(text, index, limit, 0);
  const json = value === undefined ? undefined : safeStringify(value.value);
  return value === undefined || json === undefined ? undefined : { value: json, end: value.end };
}

/**
 * Whether the inside of a double-quoted string, `text[start, end)`, is what `JSON.stringify` writes for its value:
 * no raw control character, no lone surrogate, and only the escapes it writes (`\"` `\\` `\n` `\r` `\t` `\b` `\f`).
 */
function isJsonAsWritten(text: string, start: number, end: number): boolean {
  // Searches in the string's own slice: bounded by its end (a reply of many short strings is not searched to its
  // end each time), with one copy-free slice rather than one per backslash.
  const inside = text.slice(start, end);
  for (let at = inside.indexOf('\\'); at !== -1; at = inside.indexOf('\\', at + 2)) {
    const code = inside.charCodeAt(at + 1);
    const kept =
      code === 0x22 ||
      code === 0x5c ||
      code === 0x6e ||
      code === 0x72 ||
      code === 0x74 ||
      code === 0x62 ||
      code === 0x66;
    if (!kept) return false;
  }
  return !CONTROL.test(inside) && isWellFormedText(inside);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what JSON cannot hold.
const CONTROL = /[\u0000-\u001f]/;

// ---------------------------------------------------------------------------------------------------------
// Text helpers

/** Skips whitespace, `,`, `;` and code fences (```` ```json ````) between calls. */
function skipSeparators(text: string, index: number, limit: number): number {
  let at = index;
  for (;;) {
    at = skipSpace(text, at, limit);
    if (at < limit && (text.charAt(at) === ',' || text.charAt(at) === ';')) at += 1;
    else if (at + 3 <= limit && text.startsWith('```', at))
      at = skipFenceLanguage(text, at + 3, limit);
    else return at;
  }
}

function skipFenceLanguage(text: string, index: number, limit: number): number {
  let at = index;
  while (at < limit && /[A-Za-z]/.test(text.charAt(at))) at += 1;
  return at;
}

// ---------------------------------------------------------------------------------------------------------
// Shared with the per-family readers of ./formats/

/**
 * Arguments as a JSON object text: an object as is, a string holding a (lenient) JSON object re-serialised,
 * nothing as `{}`; `undefined` for anything else (a list, a number, text that is not an object). `span`: where
 * `JSON.parse` read `raw` from, when it did (its text is then compacted rather than `raw` serialised again).
 */
export function argumentsText(raw: unknown, span?: JsonSpan): string | undefined {
  try {
    return normaliseArguments(raw, span);
  } catch {
    return undefined;
  }
}

/**
 * Python-style calls `name(a=1, b='x')` or a list `[f(a=1), g()]` at `start`, as Llama 3.2 and LFM2 write them;
 * only names in `offered` count. `undefined` when there is no such call (or list) there.
 */
export function readPythonStyleCalls(
  text: string,
  start: number,
  limit: number,
  offered: ReadonlySet<string>,
):
  | {
      readonly value: readonly { name: string; arguments: string; id: string | undefined }[];
      readonly end: number;
    }
  | undefined {
  try {
    return readPythonCalls(text, start, Math.min(limit, text.length), offered);
  } catch {
    return undefined;
  }
}
