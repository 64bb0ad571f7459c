import { isPlainObject } from '../../../core/index.js';
import { closingQuote, readLenientJson } from '../lenient-json.js';
import {
  createFenceTracker,
  createFinder,
  cutBlocks,
  type Finder,
  indexOrLimit,
  skipSpace,
} from '../text-scan.js';
import { argumentsText, readPythonStyleCalls } from '../text-tool-calls.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
} from './tool-call-format.js';

const CALL_START = '<|tool_call_start|>';
const CALL_END = '<|tool_call_end|>';

/**
 * Liquid LFM2 / LFM2.5: `<|tool_call_start|>[name(a=1), other(b='x')]<|tool_call_end|>`, or the JSON form its
 * template also teaches (`[{"name": "x", "arguments": {…}, "id": "…"}]`). LFM2 sometimes echoes the call after the
 * end token and caps the echo with a second end token; that echo is dropped, as vLLM does.
 */
export const lfm2Format: ToolCallFormat = {
  name: 'lfm2',
  markers: [CALL_START],
  read(reply, tools) {
    try {
      return readMarkedCalls(reply, tools, {
        start: CALL_START,
        end: CALL_END,
        trailing: [],
        dropEcho: true,
      });
    } catch {
      // Only a bug could land here (every reader is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
};

/** How a "start token, calls, end token" format is spelled. */
export interface MarkedCallsSyntax {
  readonly start: string;
  readonly end: string;
  /** End-of-turn tokens that may follow the end token and go with the block. */
  readonly trailing: readonly string[];
  /** Whether text up to a second, orphan end token after a block is the model echoing the call (LFM2). */
  readonly dropEcho: boolean;
}

interface Block {
  readonly start: number;
  readonly end: number;
  readonly calls: readonly TextCall[];
}

/**
 * Cuts every `start … end` block holding calls (a Python-style or JSON list, one JSON object or `;`-separated
 * objects, or one Python-style call) out of `reply`; the end token may be missing at the end of the output.
 * A marker inside a ``` fence does not count; a block that does not read stays in the content.
 */
export function readMarkedCalls(
  reply: string,
  tools: OfferedToolSet,
  syntax: MarkedCallsSyntax,
): ReadToolCalls | undefined {
  const nextStart = createFinder(reply, syntax.start);
  const nextEnd = createFinder(reply, syntax.end);
  const fence = createFenceTracker(reply);
  const blocks: Block[] = [];
  for (let search = 0; ; ) {
    const at = nextStart(search);
    if (at === -1) break;
    const start = at + syntax.start.length;
    const following = nextStart(start);
    const limit = following === -1 ? reply.length : following;
    const close = indexOrLimit(nextEnd(start), limit);
    const block = fence.isInside(at)
      ? undefined
      : readBlock(reply, start, close, limit, tools, syntax);
    search = start;
    if (block === undefined) continue;
    const end = syntax.dropEcho ? skipEcho(nextEnd, block.end, limit) : block.end;
    blocks.push({ start: at, end, calls: block.calls });
    fence.skipTo(end);
    search = end;
  }
  return cutBlocks(reply, blocks);
}

/** The calls between `start` and `close` (the end token, or `limit` when it is missing); only space may follow. */
function readBlock(
  text: string,
  start: number,
  close: number,
  limit: number,
  tools: OfferedToolSet,
  syntax: MarkedCallsSyntax,
): Omit<Block, 'start'> | undefined {
  const calls = readCalls(text, skipSpace(text, start, close), close, tools);
  if (calls === undefined || skipSpace(text, calls.end, close) !== close) return undefined;
  if (close === limit) return { end: close, calls: calls.calls };
  return {
    end: skipTrailing(text, close + syntax.end.length, limit, syntax.trailing),
    calls: calls.calls,
  };
}

function readCalls(
  text: string,
  at: number,
  limit: number,
  tools: OfferedToolSet,
): { readonly calls: readonly TextCall[]; readonly end: number } | undefined {
  const first = text.charAt(at);
  if (first === '[') return readCallList(text, at, limit, tools);
  if (first === '{') return readJsonCalls(text, at, limit, tools);
  const call = readPythonStyleCalls(text, at, limit, tools.names);
  return call === undefined ? undefined : { calls: call.value, end: call.end };
}

/**
 * A list of calls at `start` (`[`): Python-style `name(a=1)` or JSON `{"name", "arguments"}` entries, mixed
 * freely. An entry that names no offered tool or does not parse is skipped and the others kept; `undefined` when
 * the list is not closed before `limit` or holds no call. Each entry is read only within its own extent, so a
 * list of broken entries stays linear.
 */
export function readCallList(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
): { readonly calls: readonly TextCall[]; readonly end: number } | undefined {
  const calls: TextCall[] = [];
  let at = skipSpace(text, start + 1, limit);
  if (text.charAt(at) === ']') return undefined;
  for (;;) {
    const entryEnd = entryExtent(text, at, limit);
    if (entryEnd === -1) return undefined;
    const call = readEntry(text, at, entryEnd, tools);
    if (call !== undefined) calls.push(call);
    if (text.charAt(entryEnd) === ']') {
      return calls.length > 0 ? { calls, end: entryEnd + 1 } : undefined;
    }
    at = skipSpace(text, entryEnd + 1, limit);
  }
}

function readEntry(
  text: string,
  start: number,
  end: number,
  tools: OfferedToolSet,
): TextCall | undefined {
  const at = skipSpace(text, start, end);
  if (text.charAt(at) === '{') {
    const value = readLenientJson(text, at, end);
    if (value === undefined || skipSpace(text, value.end, end) !== end) return undefined;
    return callOfObject(value.value, tools);
  }
  const call = readPythonStyleCalls(text, at, end, tools.names);
  const only = call?.value.length === 1 ? call.value[0] : undefined;
  if (call === undefined || only === undefined || skipSpace(text, call.end, end) !== end)
    return undefined;
  return { name: only.name, arguments: only.arguments };
}

/**
 * Where the list entry at `start` ends: the index of the `,` or `]` that closes it at depth 0, past strings
 * (`'…'`, `"…"` with backslash escapes) and brackets; -1 when the list is not closed before `limit`.
 */
function entryExtent(text: string, start: number, limit: number): number {
  let depth = 0;
  for (let at = start; at < limit; at += 1) {
    const char = text.charAt(at);
    if (char === '"' || char === "'") {
      const close = closingQuote(text, at + 1, char, limit);
      if (close === -1) return -1;
      at = close;
    } else if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') {
      if (depth > 0) depth -= 1;
      else return char === ']' ? at : -1;
    } else if (char === ',' && depth === 0) return at;
  }
  return -1;
}

/** `{"name": …}` objects separated by `;` (Llama's JSON form), all of which must be calls. */
function readJsonCalls(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
): { readonly calls: readonly TextCall[]; readonly end: number } | undefined {
  const calls: TextCall[] = [];
  let end = start;
  for (let at = start; ; ) {
    const value = readLenientJson(text, at, limit);
    const call = value === undefined ? undefined : callOfObject(value.value, tools);
    if (value === undefined || call === undefined) return undefined;
    calls.push(call);
    end = value.end;
    at = skipSpace(text, end, limit);
    if (text.charAt(at) !== ';') return { calls, end };
    at = skipSpace(text, at + 1, limit);
    if (at >= limit) return { calls, end: at };
  }
}

/**
 * `{"name": "x", "arguments": {…}}` (or `parameters`, as Llama writes it), with an optional `id`. Inside a marked
 * block a call without arguments means `{}`: the start token already says it is a call.
 */
function callOfObject(value: unknown, tools: OfferedToolSet): TextCall | undefined {
  if (!isPlainObject(value) || typeof value.name !== 'string' || !tools.names.has(value.name))
    return undefined;
  const raw = Object.hasOwn(value, 'arguments') ? value.arguments : value.parameters;
  const args = argumentsText(raw);
  if (args === undefined) return undefined;
  const id = typeof value.id === 'string' ? value.id : undefined;
  return id === undefined
    ? { name: value.name, arguments: args }
    : { name: value.name, arguments: args, id };
}

function skipTrailing(
  text: string,
  index: number,
  limit: number,
  tokens: readonly string[],
): number {
  const at = skipSpace(text, index, limit);
  const token = tokens.find((candidate) => text.startsWith(candidate, at));
  return token !== undefined && at + token.length <= limit ? at + token.length : index;
}

/** After a block, text up to an orphan end token (before the next block) is LFM2 echoing the call: dropped. */
function skipEcho(nextEnd: Finder, end: number, limit: number): number {
  const orphan = nextEnd(end);
  return orphan === -1 || orphan >= limit ? end : orphan + CALL_END.length;
}

// ---------------------------------------------------------------------------------------------------------
// Blocks, fences and text
