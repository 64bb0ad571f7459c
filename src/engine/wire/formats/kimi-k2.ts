import { isPlainObject } from '../../../core/index.js';
import { readLenientJsonSpan } from '../lenient-json.js';
import {
  createAnyFinder,
  createFenceTracker,
  createFinder,
  cutBlocks,
  type Finder,
  indexOrLimit,
  skipSpace,
  tagAt,
} from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
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
    sectionEnd: createAnyFinder(reply, SECTION_END),
    callBegin: createFinder(reply, CALL_BEGIN),
    callEnd: createFinder(reply, CALL_END),
    argumentBegin: createFinder(reply, ARGUMENT_BEGIN),
  };
  const nextMarker = createAnyFinder(reply, SECTION_BEGIN);
  const fence = createFenceTracker(reply);
  const blocks: Block[] = [];
  for (let search = 0; ; ) {
    const at = nextMarker(search);
    if (at === -1) break;
    const start = at + (tagAt(reply, SECTION_BEGIN, at) ?? '').length;
    const following = nextMarker(start);
    const limit = following === -1 ? reply.length : following;
    const block = fence.isInside(at) ? undefined : readSection(reply, start, limit, tools, finders);
    search = block === undefined ? start : block.end;
    if (block === undefined) continue;
    blocks.push({ start: at, end: block.end, calls: block.calls });
    fence.skipTo(block.end);
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
    const closing = tagAt(text, SECTION_END, at);
    if (closing !== undefined && at + closing.length <= limit) {
      end = at + closing.length;
      break;
    }
    // The finder's kept hit tells the token at `at`, cheaper than `startsWith` of a long token.
    if (at >= limit || finders.callBegin(at) !== at) break;
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
  const close = indexOrLimit(finders.callEnd(start), limit);
  const stop = Math.min(
    close,
    indexOrLimit(finders.callBegin(start), limit),
    indexOrLimit(finders.sectionEnd(start), limit),
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
      : readLenientJsonSpan(text, argumentAt + ARGUMENT_BEGIN.length, stop);
  const args =
    value !== undefined && isPlainObject(value.value)
      ? argumentsText(value.value, value.span)
      : undefined;
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
