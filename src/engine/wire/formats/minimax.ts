import { readLenientJson } from '../lenient-json.js';
import { holdsTag, skipSpace, trimmedSlice } from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
} from './tool-call-format.js';
import {
  argumentsJson,
  createCloseFinder,
  PARAMETER_CLOSE,
  type ParameterTags,
  readMarkedBlocks,
  readParameters,
  readTagText,
  type Span,
  THINK_TAGS,
  type XmlBlock,
  type XmlMiss,
} from './xml-parameters.js';

const M2_OPEN = '<minimax:tool_call>';
const M2_CLOSE = '</minimax:tool_call>';
const INVOKE_OPEN = '<invoke name=';
const INVOKE_CLOSE = '</invoke>';
const PARAMETER_OPEN = '<parameter name=';
const M1_OPEN = '<tool_calls>';
const M1_CLOSE = '</tool_calls>';

/**
 * MiniMax. M2: `<minimax:tool_call>\n<invoke name="f">\n<parameter name="p">v</parameter>\n</invoke>\n…
 * </minimax:tool_call>`, several invokes per block, values typed by the tool's schema (a `</parameter>` counts
 * only before `<parameter name=`, `</invoke>` or the end). M1: one JSON object per line,
 * `{"name": "f", "arguments": {…}}`, inside `<tool_calls>…</tool_calls>` (a JSON list is read too). Closing tags
 * may be missing at the end of the output; entries naming tools not offered stay in the text, the others are
 * calls; calls written while thinking (`<think>…</think>`) are not calls.
 */
export const minimaxFormat: ToolCallFormat = {
  name: 'minimax',
  markers: [M2_OPEN, M1_OPEN],
  read(reply, tools) {
    try {
      return readMinimax(reply, tools);
    } catch {
      // Only a bug could land here (every step is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
};

const PARAMETER_FOLLOWERS = [PARAMETER_OPEN, INVOKE_CLOSE];
const PARAMETER_TAGS: ParameterTags = {
  open: PARAMETER_OPEN,
  callClose: INVOKE_CLOSE,
  key: unquote,
};
const MARKERS = [M2_OPEN, M1_OPEN];

function readMinimax(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const nextClose = createCloseFinder(reply, PARAMETER_CLOSE, PARAMETER_FOLLOWERS);
  const nextM1Close = createForwardFinder(reply, M1_CLOSE);
  return readMarkedBlocks(reply, {
    markers: MARKERS,
    thinkTags: THINK_TAGS,
    readBlock: (at, marker) =>
      marker === M2_OPEN
        ? readInvokeBlock(reply, at, tools, nextClose)
        : readJsonLinesBlock(reply, at, tools, nextM1Close),
  });
}

// ---------------------------------------------------------------------------------------------------------
// M2: <invoke name="f"><parameter name="p">v</parameter></invoke>

/** The invokes after `<minimax:tool_call>`; the block ends after the last invoke that parses. */
function readInvokeBlock(
  text: string,
  at: number,
  tools: OfferedToolSet,
  nextClose: (from: number) => number,
): XmlBlock | XmlMiss {
  const calls: TextCall[] = [];
  const kept: Span[] = [];
  let end = at + M2_OPEN.length;
  for (;;) {
    const index = skipSpace(text, end);
    if (holdsTag(text, index, M2_CLOSE)) {
      end = index + M2_CLOSE.length;
      break;
    }
    if (index >= text.length) break;
    const invoke = readInvoke(text, index, tools, nextClose);
    if (invoke === undefined) break;
    // A kept span takes the space after it, so two kept invokes stay apart.
    if (invoke.call === undefined) kept.push([index, skipSpace(text, invoke.end)]);
    else calls.push(invoke.call);
    end = invoke.end;
  }
  return calls.length === 0 ? { resume: end } : { start: at, end, calls, kept };
}

/** One `<invoke>`; `call` is missing when it names a tool not offered. `undefined` when it does not parse. */
function readInvoke(
  text: string,
  at: number,
  tools: OfferedToolSet,
  nextClose: (from: number) => number,
): { readonly call: TextCall | undefined; readonly end: number } | undefined {
  if (!holdsTag(text, at, INVOKE_OPEN)) return undefined;
  const name = readTagText(text, at + INVOKE_OPEN.length);
  if (name === undefined) return undefined;
  const toolName = unquote(name.value);
  const read = readParameters(
    text,
    name.end,
    PARAMETER_TAGS,
    M2_CLOSE,
    tools.parametersOf(toolName),
    nextClose,
  );
  if ('resume' in read) return undefined;
  const args = tools.names.has(toolName) ? argumentsJson(read.entries) : undefined;
  return {
    call: args === undefined ? undefined : { name: toolName, arguments: args },
    end: read.end,
  };
}

/** `"x"` or `'x'` as `x`; a bare name as it is. */
function unquote(value: string): string {
  const first = value.charCodeAt(0);
  const quoted =
    value.length >= 2 &&
    (first === QUOTE || first === APOSTROPHE) &&
    value.charCodeAt(value.length - 1) === first;
  return quoted ? trimmedSlice(value, 1, value.length - 1) : value;
}

const QUOTE = 0x22;
const APOSTROPHE = 0x27;

// ---------------------------------------------------------------------------------------------------------
// M1: <tool_calls>\n{"name": "f", "arguments": {…}}\n</tool_calls>

/**
 * JSON values after `<tool_calls>` up to `</tool_calls>` (or the end): each an entry or a list of entries.
 * A value naming no offered tool stays in the text, and so does text that is not JSON (up to the closing tag).
 */
function readJsonLinesBlock(
  text: string,
  at: number,
  tools: OfferedToolSet,
  nextClose: (from: number) => number,
): XmlBlock | XmlMiss {
  const closeAt = nextClose(at + M1_OPEN.length);
  const limit = closeAt === -1 ? text.length : closeAt;
  const calls: TextCall[] = [];
  const kept: Span[] = [];
  let index = skipSeparators(text, at + M1_OPEN.length, limit);
  while (index < limit) {
    const value = readLenientJson(text, index, limit);
    if (value === undefined) {
      kept.push([index, limit]);
      break;
    }
    const found = callsFromValue(value.value, tools);
    const next = skipSeparators(text, value.end, limit);
    // A kept span takes the space after it, so two kept lines stay two lines.
    if (found.length === 0) kept.push([index, next]);
    for (const call of found) calls.push(call);
    index = next;
  }
  const end = closeAt === -1 ? text.length : closeAt + M1_CLOSE.length;
  return calls.length === 0 ? { resume: end } : { start: at, end, calls, kept };
}

/** The calls in one JSON value: an entry or a list of entries; entries that are not calls are left out. */
function callsFromValue(value: unknown, tools: OfferedToolSet): TextCall[] {
  const calls: TextCall[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    const call = callFromEntry(item, tools);
    if (call !== undefined) calls.push(call);
  }
  return calls;
}

/** `{"name": …, "arguments": …}` (or `parameters`, or OpenAI's `{"function": {…}}`) naming an offered tool. */
function callFromEntry(entry: unknown, tools: OfferedToolSet): TextCall | undefined {
  if (!isRecord(entry)) return undefined;
  if (isRecord(entry.function)) return callFromEntry(entry.function, tools);
  const name = entry.name;
  if (typeof name !== 'string' || !tools.names.has(name)) return undefined;
  const raw = Object.hasOwn(entry, 'arguments') ? entry.arguments : entry.parameters;
  const args = argumentsText(raw);
  return args === undefined ? undefined : { name, arguments: args };
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function skipSeparators(text: string, at: number, limit: number): number {
  let index = skipSpace(text, at, limit);
  while (index < limit && text.charAt(index) === ',') index = skipSpace(text, index + 1, limit);
  return index;
}

/** A search for `needle` from positions that only grow; it remembers its last hit (linear). */
function createForwardFinder(text: string, needle: string): (from: number) => number {
  let hit = -2;
  return (from) => {
    if (hit === -1 || hit >= from) return hit;
    hit = text.indexOf(needle, from);
    return hit;
  };
}
