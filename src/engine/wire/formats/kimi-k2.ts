import { isPlainObject } from '../../../core/index.js';
import { argumentsText, readLenientJson } from '../text-tool-calls.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
} from './tool-call-format.js';

/** Section openers and closers; vLLM also meets the singular spelling. */
const SECTION_BEGIN = ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'] as const;
const SECTION_END = ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'] as const;
const CALL_BEGIN = '<|tool_call_begin|>';
const ARGUMENT_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';

/**
 * Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}`
 * `<|tool_call_end|>…<|tool_calls_section_end|>`. The call id is the model's `functions.name:0`.
 */
export const kimiK2Format: ToolCallFormat = {
  name: 'kimi-k2',
  markers: SECTION_BEGIN,
  read(reply, tools) {
    try {
      return readSections(reply, tools);
    } catch {
      // Only a bug could land here (every reader is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
};

interface Block {
  readonly start: number;
  readonly end: number;
  readonly calls: readonly TextCall[];
}

interface Entry {
  readonly call: TextCall | undefined;
  readonly end: number;
  readonly closed: boolean;
}

type Finders = Readonly<Record<'sectionEnd' | 'callBegin' | 'callEnd' | 'argumentBegin', Finder>>;

function readSections(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const finders: Finders = {
    sectionEnd: anyFinder(reply, SECTION_END),
    callBegin: finder(reply, CALL_BEGIN),
    callEnd: finder(reply, CALL_END),
    argumentBegin: finder(reply, ARGUMENT_BEGIN),
  };
  const nextMarker = anyFinder(reply, SECTION_BEGIN);
  const fence = fenceTracker(reply);
  const blocks: Block[] = [];
  for (let search = 0; ; ) {
    const at = nextMarker(search);
    if (at === -1) break;
    const start = at + (SECTION_BEGIN.find((marker) => reply.startsWith(marker, at)) ?? '').length;
    const following = nextMarker(start);
    const limit = following === -1 ? reply.length : following;
    const block = fence.inside(at) ? undefined : readSection(reply, start, limit, tools, finders);
    search = block === undefined ? start : block.end;
    if (block === undefined) continue;
    blocks.push({ start: at, end: block.end, calls: block.calls });
    fence.skip(block.end);
  }
  return cutBlocks(reply, blocks);
}

function readSection(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  finders: Finders,
): Omit<Block, 'start'> | undefined {
  const calls: TextCall[] = [];
  let at = start;
  let end = start;
  for (;;) {
    at = skipSpace(text, at, limit);
    const closing = SECTION_END.find((tag) => text.startsWith(tag, at));
    if (closing !== undefined && at + closing.length <= limit) {
      end = at + closing.length;
      break;
    }
    if (at >= limit || !text.startsWith(CALL_BEGIN, at)) break;
    const entry = readEntry(text, at + CALL_BEGIN.length, limit, tools, finders);
    if (entry.call !== undefined) calls.push(entry.call);
    if (entry.call !== undefined || entry.closed) end = entry.end;
    if (entry.call === undefined && !entry.closed) break;
    at = entry.end;
  }
  return calls.length > 0 ? { end, calls } : undefined;
}

/** `functions.name:0<|tool_call_argument_begin|>{…}<|tool_call_end|>`, from just after `<|tool_call_begin|>`. */
function readEntry(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  finders: Finders,
): Entry {
  const close = before(finders.callEnd(start), limit);
  const stop = Math.min(
    close,
    before(finders.callBegin(start), limit),
    before(finders.sectionEnd(start), limit),
  );
  const closed = close === stop && close < limit;
  const end = closed ? close + CALL_END.length : stop;
  const argumentAt = finders.argumentBegin(start);
  if (argumentAt === -1 || argumentAt >= stop) return { call: undefined, end, closed };
  const id = text.slice(start, argumentAt).trim();
  const name = nameOfId(id, tools);
  const value =
    name === undefined
      ? undefined
      : readLenientJson(text, argumentAt + ARGUMENT_BEGIN.length, stop);
  const args =
    value !== undefined && isPlainObject(value.value) ? argumentsText(value.value) : undefined;
  if (name === undefined || value === undefined || args === undefined)
    return { call: undefined, end, closed };
  if (skipSpace(text, value.end, stop) !== stop) return { call: undefined, end, closed };
  return { call: { name, arguments: args, id }, end, closed };
}

const CALL_ID = /^(?:functions\.)?([^\s:<>]{1,256}?)(?::\d{1,9})?$/;

/** `functions.get_weather:0` names `get_weather`; a dotted name is kept whole when it is offered. */
function nameOfId(id: string, tools: OfferedToolSet): string | undefined {
  const match = id.length > 300 ? null : CALL_ID.exec(id);
  const full = match?.[1];
  if (full === undefined) return undefined;
  if (tools.names.has(full)) return full;
  const last = full.slice(full.lastIndexOf('.') + 1);
  return tools.names.has(last) ? last : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Blocks, fences and text

function cutBlocks(reply: string, blocks: readonly Block[]): ReadToolCalls | undefined {
  const calls = blocks.flatMap((block) => block.calls);
  if (calls.length === 0) return undefined;
  const pieces: string[] = [];
  let copied = 0;
  for (const block of blocks) {
    pieces.push(reply.slice(copied, block.start));
    copied = block.end;
  }
  pieces.push(reply.slice(copied));
  return { content: joinPieces(pieces), calls };
}

/** Joins the text left around cut-out calls the way text-tool-calls does (trimmed, one gap kept). */
function joinPieces(pieces: readonly string[]): string {
  const parts: string[] = [];
  let gap = '';
  for (const piece of pieces) {
    const core = piece.trim();
    if (core === '') {
      if (gap === '') gap = piece;
      continue;
    }
    const lead = piece.slice(0, piece.length - piece.trimStart().length);
    if (parts.length > 0) parts.push(gap === '' ? lead : gap);
    parts.push(core);
    gap = piece.slice(piece.trimEnd().length);
  }
  return parts.join('');
}

/** Tells whether a position is inside a ``` fence, counting the fences outside cut blocks; positions only grow. */
function fenceTracker(text: string): { inside(index: number): boolean; skip(end: number): void } {
  const nextFence = finder(text, '```');
  let at = 0;
  let open = false;
  return {
    inside(index) {
      for (let fence = nextFence(at); fence !== -1 && fence < index; fence = nextFence(at)) {
        open = !open;
        at = fence + 3;
      }
      return open;
    },
    skip(end) {
      at = Math.max(at, end);
    },
  };
}

/** A search for `needle` from positions that never move backwards; it remembers its hit, so it stays linear. */
type Finder = (from: number) => number;

function finder(text: string, needle: string): Finder {
  let hit = -2;
  return (from) => {
    if (hit === -1 || hit >= from) return hit;
    hit = text.indexOf(needle, from);
    return hit;
  };
}

function anyFinder(text: string, needles: readonly string[]): Finder {
  const finders = needles.map((needle) => finder(text, needle));
  return (from) => {
    let best = -1;
    for (const find of finders) {
      const hit = find(from);
      if (hit !== -1 && (best === -1 || hit < best)) best = hit;
    }
    return best;
  };
}

function before(index: number, limit: number): number {
  return index === -1 || index > limit ? limit : index;
}

function skipSpace(text: string, index: number, limit: number): number {
  let at = index;
  while (at < limit && isSpace(text.charCodeAt(at))) at += 1;
  return at;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x0c;
}
