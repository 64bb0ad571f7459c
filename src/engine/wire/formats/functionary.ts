import { readLenientJsonSpan } from '../lenient-json.js';
import {
  createFenceTracker,
  createFinder,
  type FenceTracker,
  joinPieces,
  skipSpace,
} from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
import { FUNCTION_TAG_BLOCKS } from './hermes-variants.js';
import {
  END_TOKENS,
  type MarkedBlock,
  readMarkedBlocks,
  skipEndToken,
} from './json-list-markers.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
} from './tool-call-format.js';

const MARKER = '>>>';
const PYTHON = 'python';
const RECIPIENT = /[\w.-]+/y;

/** One `>>>recipient\n…` segment: text for the user, a call, or nothing we read (it stays as written). */
type Segment =
  | { readonly kind: 'text'; readonly body: number }
  | { readonly kind: 'call'; readonly call: TextCall; readonly end: number };

/**
 * MeetKai Functionary v3.2: `>>>recipient\n…` segments, where `all` is text for the user and any other
 * recipient a call with JSON arguments: `>>>all\nLet me check.>>>get_weather\n{"city": "Paris"}`. The first
 * segment may lack its `>>>` (the prompt ends with it). `python` with code that is not JSON becomes
 * `{"code": …}` (to the end of the reply). `>>>` inside a code fence is not a segment. A reply with no call
 * that starts with an `all` segment is shown without its `all` headers.
 */
export const functionaryV32Format: ToolCallFormat = {
  name: 'functionary-v3.2',
  markers: [MARKER],
  read(reply, tools) {
    try {
      return tools.names.size === 0 ? undefined : readSegments(reply, tools);
    } catch {
      // Only a bug could land here (every read is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
  visibleText(reply) {
    const first = skipSpace(reply, 0, reply.length);
    const head = [`${MARKER}${ALL}`, ALL].find((start) => reply.startsWith(start, first));
    if (head === undefined) return undefined;
    return {
      content: reply
        .slice(first + head.length)
        .replaceAll(`${MARKER}${ALL}`, '')
        .trim(),
    };
  },
};

/** The header of a segment of text for the user. */
const ALL = 'all\n';

function readSegments(text: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const nextMarker = createFinder(text, MARKER);
  const fences = createFenceTracker(text);
  const pieces: string[] = [];
  const calls: TextCall[] = [];
  let copied = 0;
  const first = skipSpace(text, 0, text.length);
  const marked = text.startsWith(MARKER, first);
  let at = marked ? first : 0;
  let headerAt = marked ? first + MARKER.length : first;
  for (;;) {
    const limit = nextMarker(headerAt);
    const segment = readSegment(text, headerAt, limit === -1 ? text.length : limit, tools);
    let resume = headerAt;
    if (segment !== undefined) {
      pieces.push(text.slice(copied, at));
      copied = segment.kind === 'text' ? segment.body : segment.end;
      resume = copied;
      if (segment.kind === 'call') calls.push(segment.call);
      fences.skipTo(resume);
    }
    at = nextSegment(nextMarker, fences, text, resume);
    if (at === -1) break;
    headerAt = at + MARKER.length;
  }
  if (calls.length === 0) return undefined;
  pieces.push(text.slice(copied));
  return { content: joinPieces(pieces), calls };
}

/** The next `>>>` from `from` that is not inside a code fence or inline code. */
function nextSegment(
  nextMarker: (from: number) => number,
  fences: FenceTracker,
  text: string,
  from: number,
): number {
  let at = nextMarker(from);
  while (at !== -1 && (fences.isInside(at) || text.charAt(at - 1) === '`')) {
    at = nextMarker(at + MARKER.length);
  }
  return at;
}

function readSegment(
  text: string,
  headerAt: number,
  limit: number,
  tools: OfferedToolSet,
): Segment | undefined {
  RECIPIENT.lastIndex = headerAt;
  const recipient = RECIPIENT.exec(text)?.[0];
  const newline = headerAt + (recipient?.length ?? 0);
  if (recipient === undefined || newline >= limit || text.charAt(newline) !== '\n')
    return undefined;
  const body = newline + 1;
  if (recipient === 'all') return { kind: 'text', body };
  if (!tools.names.has(recipient)) return undefined;
  const start = skipSpace(text, body, limit);
  if (text.charAt(start) === '{') return readJsonCall(text, recipient, start, limit);
  if (recipient !== PYTHON) return undefined;
  const call = codeCall(text.slice(body));
  return call === undefined ? undefined : { kind: 'call', call, end: text.length };
}

function readJsonCall(
  text: string,
  name: string,
  start: number,
  limit: number,
): Segment | undefined {
  const value = readLenientJsonSpan(text, start, limit);
  const args = value === undefined ? undefined : argumentsText(value.value, value.span);
  if (value === undefined || args === undefined) return undefined;
  return {
    kind: 'call',
    call: { name, arguments: args },
    end: skipEndToken(text, value.end, limit),
  };
}

/** Raw code as a `python` call `{"code": …}`, without the end-of-turn token after it. */
function codeCall(raw: string): TextCall | undefined {
  let code = raw.trimEnd();
  for (let token = endTokenOf(code); token !== undefined; token = endTokenOf(code)) {
    code = code.slice(0, -token.length).trimEnd();
  }
  code = code.replace(/^\n+/, '');
  return code.trim() === '' ? undefined : { name: PYTHON, arguments: JSON.stringify({ code }) };
}

function endTokenOf(text: string): string | undefined {
  return END_TOKENS.find((token) => text.endsWith(token));
}

const PYTHON_TAG = '<|python_tag|>';

const PYTHON_TAG_BLOCK: MarkedBlock = {
  marker: PYTHON_TAG,
  read(text, start, limit, tools) {
    if (!tools.names.has(PYTHON)) return undefined;
    const call = codeCall(text.slice(start, limit));
    return call === undefined ? undefined : { calls: [call], end: limit };
  },
};

const V31_BLOCKS: readonly MarkedBlock[] = [...FUNCTION_TAG_BLOCKS, PYTHON_TAG_BLOCK];

/**
 * MeetKai Functionary v3.1 (Llama 3.1 based): `<function=name>{…arguments}</function>`, any number, with
 * text around them; and `<|python_tag|>` followed by raw code, a `python` call `{"code": …}` (when a
 * `python` tool is offered).
 */
export const functionaryV31Format: ToolCallFormat = {
  name: 'functionary-v3.1',
  markers: V31_BLOCKS.map((block) => block.marker),
  read: (reply, tools) => readMarkedBlocks(reply, V31_BLOCKS, tools),
};
