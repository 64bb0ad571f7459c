import { isPlainObject } from '../../../core/index.js';
import { readLenientJsonSpan } from '../lenient-json.js';
import {
  type CutBlock,
  indexOrLimit,
  placeTags,
  readTaggedBlocks,
  skipSpace,
  TagPlaces,
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

interface Entry {
  readonly call: TextCall | undefined;
  readonly end: number;
  readonly closed: boolean;
}

/** Where a reply's tokens stand, by kind (`sectionBegin` and `sectionEnd`: either spelling). */
type Tokens = Readonly<
  Record<'sectionBegin' | 'sectionEnd' | 'callBegin' | 'callEnd' | 'argumentBegin', TagPlaces>
>;

/**
 * Every token of a reply, found in one pass (`placeTags`): each starts with `<|tool_call`, and `kindOf` tells which
 * it is. No token found here is compared again.
 */
function tokensOf(reply: string): Tokens {
  const tokens = {
    sectionBegin: new TagPlaces(),
    sectionEnd: new TagPlaces(),
    callBegin: new TagPlaces(),
    callEnd: new TagPlaces(),
    argumentBegin: new TagPlaces(),
  };
  placeTags(reply, TOKEN_START, TOKEN, (start, end) => kindOf(tokens, reply, start, end - start));
  return tokens;
}

/** What every token starts with. */
const TOKEN_START = '<|tool_call';

/** Any of `SECTION_BEGIN`, `SECTION_END`, `CALL_BEGIN`, `ARGUMENT_BEGIN` and `CALL_END`. */
const TOKEN =
  /<\|tool_call(?:s_section_begin|_section_begin|s_section_end|_section_end|_begin|_argument_begin|_end)\|>/y;

/**
 * The kind of the token of `length` characters at `at`: the length tells all but the plural section opener from
 * the argument opener (both 28 long), which part at the character after `<|tool_call` (`s` in the opener).
 */
function kindOf(tokens: Tokens, text: string, at: number, length: number): TagPlaces {
  switch (length) {
    case CALL_BEGIN.length:
      return tokens.callBegin;
    case CALL_END.length:
      return tokens.callEnd;
    case SECTION_END[0].length:
    case SECTION_END[1].length:
      return tokens.sectionEnd;
    case SECTION_BEGIN[1].length:
      return tokens.sectionBegin;
    default:
      return text.charCodeAt(at + TOKEN_START.length) === LETTER_S
        ? tokens.sectionBegin
        : tokens.argumentBegin;
  }
}

const LETTER_S = 0x73;

function readSections(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const tokens = tokensOf(reply);
  return readTaggedBlocks(reply, tokens.sectionBegin, (start, limit) =>
    readSection(reply, start, limit, tools, tokens),
  );
}

function readSection(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  tokens: Tokens,
): Omit<CutBlock<TextCall>, 'start'> | undefined {
  const calls: TextCall[] = [];
  let at = start;
  let end = start;
  for (;;) {
    at = skipSpace(text, at, limit);
    // The tokens found in advance tell the one at `at`, cheaper than `startsWith` of a long token.
    if (tokens.sectionEnd.find(at) === at && tokens.sectionEnd.foundEnd() <= limit) {
      end = tokens.sectionEnd.foundEnd();
      break;
    }
    if (at >= limit || tokens.callBegin.find(at) !== at) break;
    const entry = readEntry(text, at + CALL_BEGIN.length, limit, tools, tokens);
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
  tokens: Tokens,
): Entry {
  const close = indexOrLimit(tokens.callEnd.find(start), limit);
  const stop = Math.min(
    close,
    indexOrLimit(tokens.callBegin.find(start), limit),
    indexOrLimit(tokens.sectionEnd.find(start), limit),
  );
  const closed = close === stop && close < limit;
  const end = closed ? close + CALL_END.length : stop;
  const argumentAt = tokens.argumentBegin.find(start);
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
