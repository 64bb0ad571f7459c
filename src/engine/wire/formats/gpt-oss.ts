import { isPlainObject } from '../../../core/index.js';
import { readLenientJsonSpan } from '../lenient-json.js';
import {
  createAnyFinder,
  createFenceTracker,
  createFinder,
  type Finder,
  isSpace,
  isTrimmedSpace,
  skipSpace,
  tagAt,
} from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
  VisibleText,
} from './tool-call-format.js';

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const END_TOKENS = ['<|end|>', '<|call|>', '<|return|>'] as const;
/**
 * The tokens that end a message's body (all start with `<|`): its end tokens, `<|call|>` (a call's) first, and
 * those of a next header.
 */
const BODY_STOPS = ['<|call|>', '<|end|>', '<|return|>', MESSAGE, START, CHANNEL] as const;
const TOKEN_START = '<|';
const RECIPIENT = 'to=';
const FUNCTIONS = 'functions.';
/** A header longer than this is not one (headers are a channel, a recipient and a constraint). */
const MAX_HEADER = 1024;

/**
 * GPT-OSS (harmony): `<|start|>assistant<|channel|>commentary to=functions.name <|constrain|>json<|message|>{…}<|call|>`
 * (the recipient may also stand before `<|channel|>`; `<|call|>` is a stop token, often missing). The `final`
 * channel's text and commentary preambles are the content; `analysis` is reasoning and left out. Also reads what
 * servers leave after stripping the special tokens: `…assistantcommentary to=functions.name json{…}`.
 */
export const gptOssFormat: ToolCallFormat = {
  name: 'gpt-oss',
  markers: [CHANNEL, START, `${RECIPIENT}${FUNCTIONS}`],
  read(reply, tools) {
    try {
      const message = reply.indexOf(MESSAGE);
      return message === -1 ? readStripped(reply, tools) : readMessages(reply, message, tools);
    } catch {
      // Only a bug could land here (every reader is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
  visibleText(reply) {
    try {
      const message = reply.indexOf(MESSAGE);
      return message === -1 ? visibleStripped(reply) : visibleMessages(reply, message);
    } catch {
      return undefined;
    }
  },
};

type Owner = 'content' | 'reasoning';

interface Finders {
  readonly message: Finder;
  readonly start: Finder;
  readonly channel: Finder;
  /** The next `<|`: the end tokens `take` looks for are found among its hits. */
  readonly token: Finder;
  readonly recipient: Finder;
}

/** What the messages read so far gave: content pieces, calls, and who owns text until the next end token. */
interface Reading {
  readonly parts: string[];
  readonly calls: TextCall[];
  owner: Owner;
}

// ---------------------------------------------------------------------------------------------------------
// With the special tokens

/** Reads a reply whose first `<|message|>` stands at `firstMessage`. */
function readMessages(
  reply: string,
  firstMessage: number,
  tools: OfferedToolSet,
): ReadToolCalls | undefined {
  const finders: Finders = {
    message: createFinder(reply, MESSAGE, firstMessage),
    start: createFinder(reply, START),
    channel: createFinder(reply, CHANNEL),
    token: createFinder(reply, TOKEN_START),
    recipient: createFinder(reply, RECIPIENT),
  };
  const fence = createFenceTracker(reply);
  const reading: Reading = { parts: [], calls: [], owner: 'content' };
  for (let pos = 0; pos < reply.length; ) {
    const message = finders.message(pos);
    const regionEnd = message === -1 ? reply.length : message;
    const found = message === -1 ? undefined : headerStart(reply, pos, message, finders);
    const header = found !== undefined && !fence.isInside(found) ? found : undefined;
    if (message === -1 || header === undefined) {
      const literalEnd = message === -1 ? regionEnd : message + MESSAGE.length;
      take(reply, pos, literalEnd, reading, finders);
      pos = literalEnd;
      continue;
    }
    take(reply, pos, header, reading, finders);
    pos = readMessage(reply, header, message, tools, reading, finders);
    fence.skipTo(pos);
  }
  if (reading.calls.length === 0) return undefined;
  return { content: reading.parts.join('\n'), calls: reading.calls };
}

/** Reads the message whose header spans `header`…`message`; returns where the next region starts. */
function readMessage(
  reply: string,
  header: number,
  message: number,
  tools: OfferedToolSet,
  reading: Reading,
  finders: Finders,
): number {
  const bodyStart = message + MESSAGE.length;
  // The recipient is read in the reply itself, each `to=` given by the recipient finder (which has searched from
  // before the header already): no header text is searched again, and a header without a `to=` costs no search.
  const recipient = headerRecipient(reply, header, message, finders.recipient);
  if (recipient === undefined) {
    reading.owner = isAnalysisHeader(reply.slice(header, message)) ? 'reasoning' : 'content';
    return bodyStart;
  }
  reading.owner = 'content';
  const limit = bodyLimit(reply, bodyStart);
  const read = readArguments(reply, bodyStart, limit, nameOf(recipient, tools));
  if (read.call === undefined) {
    // A call that does not read stays visible, unless it was reasoning (a built-in tool in `analysis`).
    if (!isAnalysisHeader(reply.slice(header, message)))
      addContent(reading, reply.slice(header, limit));
    return limit;
  }
  reading.calls.push(read.call);
  return read.end;
}

/**
 * The recipient in the header `text[from, limit)`: what `/to=([^\s<{]{1,256})/` captures there, found with `next`
 * (the next `to=` in `text`: `indexOf` unless given) and a look at each of its characters (a match array made per
 * header cost more than reading the header).
 */
export function headerRecipient(
  text: string,
  from = 0,
  limit = text.length,
  next: Finder = (index) => text.indexOf(RECIPIENT, index),
): string | undefined {
  for (let at = next(from); at !== -1 && at <= limit - RECIPIENT.length; at = next(at + 1)) {
    const start = at + RECIPIENT.length;
    const bound = Math.min(limit, start + MAX_RECIPIENT);
    let end = start;
    while (end < bound && !isRecipientStop(text.charCodeAt(end))) end += 1;
    if (end > start) return text.slice(start, end);
  }
  return undefined;
}

const MAX_RECIPIENT = 256;

/** White space, `<` or `{`: what ends a recipient. */
function isRecipientStop(code: number): boolean {
  return code === 0x3c || code === 0x7b || isTrimmedSpace(code);
}

/**
 * Whether the first channel word of a header (the first of `analysis`, `commentary`, `final` to stand in it, as
 * `/(analysis|commentary|final)/` finds it) is `analysis`.
 */
export function isAnalysisHeader(header: string): boolean {
  const analysis = header.indexOf('analysis');
  if (analysis === -1) return false;
  const commentary = header.indexOf('commentary');
  if (commentary !== -1 && commentary < analysis) return false;
  const final = header.indexOf('final');
  return final === -1 || final > analysis;
}

/** Hands `reply[from, to)` to its owner; an end token in it closes the message (what follows is plain text). */
function take(reply: string, from: number, to: number, reading: Reading, finders: Finders): void {
  let cursor = from;
  // The end tokens are found among the `<|` before `to`, and no search starts at or past `to`: none runs on past the
  // region for a token it lacks.
  let at = from < to ? finders.token(from) : -1;
  while (at !== -1 && at < to) {
    const end = tagAt(reply, END_TOKENS, at);
    if (end !== undefined) {
      if (reading.owner === 'content') addContent(reading, reply.slice(cursor, at));
      reading.owner = 'content';
      cursor = at + end.length;
    }
    const next = end === undefined ? at + 1 : cursor;
    at = next < to ? finders.token(next) : -1;
  }
  if (reading.owner === 'content' && cursor < to) addContent(reading, reply.slice(cursor, to));
}

function addContent(reading: Reading, text: string): void {
  const trimmed = text.trim();
  if (trimmed !== '') reading.parts.push(trimmed);
}

/**
 * Where the header before `<|message|>` (at `message`) starts: the first `<|start|>` or `<|channel|>` of the
 * region, a recipient written before `<|channel|>`, or a channel word left by stripped tokens
 * (`commentary to=…`, `…assistantfinal`). `undefined` when the region has no header.
 */
function headerStart(
  reply: string,
  from: number,
  message: number,
  finders: Finders,
): number | undefined {
  const lowest = Math.max(from, message - MAX_HEADER);
  const inRegion = (index: number) => index !== -1 && index >= lowest && index < message;
  // The lowest of the candidates (-1: none yet), found without a list of them.
  let first = -1;
  const consider = (index: number) => {
    if (first === -1 || index < first) first = index;
  };
  const start = finders.start(from);
  if (inRegion(start)) consider(start);
  const channel = finders.channel(from);
  if (inRegion(channel)) consider(channel);
  const recipient = finders.recipient(from);
  // A header token before the recipient starts the header: no channel word can start before it, as the stretch from
  // such a word to the recipient holds letters and white space only.
  if (inRegion(recipient) && (first === -1 || recipient < first)) {
    const word = channelWordBefore(reply, lowest, recipient);
    RECIPIENT_FIRST.lastIndex = recipient;
    if (word !== undefined) consider(word);
    else if (RECIPIENT_FIRST.test(reply)) consider(recipient);
  }
  if (first !== -1) return first;
  return channelWordBefore(reply, lowest, message);
}

/** A recipient written before the channel: `to=functions.x<|channel|>commentary`. */
const RECIPIENT_FIRST = /to=[^\s<{]{1,256}\s{0,16}<\|channel\|>/y;

/** The start of `analysis`, `commentary` or `final` (with a glued `assistant`) ending just before `index`. */
function channelWordBefore(reply: string, lowest: number, index: number): number | undefined {
  let end = index;
  while (end > lowest && isSpace(reply.charCodeAt(end - 1))) end -= 1;
  const word = channelWordEndingAt(reply, lowest, end);
  if (word === undefined) return undefined;
  const start = end - word.length;
  return start - 9 >= lowest && reply.startsWith('assistant', start - 9) ? start - 9 : start;
}

function channelWordEndingAt(reply: string, lowest: number, end: number): string | undefined {
  for (const candidate of CHANNEL_WORDS_BY_LOOKUP) {
    if (end - candidate.length >= lowest && reply.startsWith(candidate, end - candidate.length))
      return candidate;
  }
  return undefined;
}

const CHANNEL_WORDS_BY_LOOKUP = ['commentary', 'analysis', 'final'] as const;

/**
 * A call body runs to the first end token or the next header token (`<|call|>` is a stop token, often cut), found
 * among the `<|` that follow it: the text past that token is not searched for each token it lacks. Bodies do not
 * overlap (the next message starts at or after this token), so each `<|` is looked at once.
 */
function bodyLimit(reply: string, bodyStart: number): number {
  let at = reply.indexOf(TOKEN_START, bodyStart);
  while (at !== -1 && tagAt(reply, BODY_STOPS, at) === undefined)
    at = reply.indexOf(TOKEN_START, at + 1);
  return at === -1 ? reply.length : at;
}

/** The JSON object arguments at `start` for the tool `name` (undefined: not offered); an end token may follow. */
function readArguments(
  reply: string,
  start: number,
  limit: number,
  name: string | undefined,
): { readonly call: TextCall | undefined; readonly end: number } {
  const value = name === undefined ? undefined : readLenientJsonSpan(reply, start, limit);
  const args =
    value !== undefined && isPlainObject(value.value)
      ? argumentsText(value.value, value.span)
      : undefined;
  if (name === undefined || value === undefined || args === undefined)
    return { call: undefined, end: limit };
  const at = skipSpace(reply, value.end, reply.length);
  const token = tagAt(reply, CALL_OR_END, at);
  return {
    call: { name, arguments: args },
    end: token === undefined ? value.end : at + token.length,
  };
}

const CALL_OR_END = ['<|call|>', '<|end|>'] as const;

/** `functions.get_weather` names `get_weather`; `get_weatherjson` (a stripped `<|constrain|>`) too. */
function nameOf(recipient: string, tools: OfferedToolSet): string | undefined {
  const bare = recipient.startsWith(FUNCTIONS) ? recipient.slice(FUNCTIONS.length) : recipient;
  if (bare !== '' && tools.names.has(bare)) return bare;
  const unsuffixed = bare.endsWith('json') ? bare.slice(0, -4) : '';
  return unsuffixed !== '' && tools.names.has(unsuffixed) ? unsuffixed : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// With the special tokens stripped: `analysis…assistantcommentary to=functions.x json{…}assistantfinal…`

interface Block {
  readonly start: number;
  readonly end: number;
  readonly call: TextCall;
}

function readStripped(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const marker = `${RECIPIENT}${FUNCTIONS}`;
  const nextMarker = createFinder(reply, marker);
  const fence = createFenceTracker(reply);
  const blocks: Block[] = [];
  for (let search = 0; ; ) {
    const at = nextMarker(search);
    if (at === -1) break;
    search = at + marker.length;
    const start = channelWordBefore(reply, blocks.at(-1)?.end ?? 0, at);
    if (start === undefined || fence.isInside(start)) continue;
    const following = nextMarker(search);
    const block = readStrippedCall(reply, at, following === -1 ? reply.length : following, tools);
    if (block === undefined) continue;
    blocks.push({ start, end: block.end, call: block.call });
    fence.skipTo(block.end);
    search = block.end;
  }
  if (blocks.length === 0) return undefined;
  return { content: strippedContent(reply, blocks), calls: blocks.map((block) => block.call) };
}

const STRIPPED_HEAD = /to=([^\s<{]{1,256})\s*(?:<\|constrain\|>)?\s*(?:json)?\s*/y;

function readStrippedCall(
  reply: string,
  at: number,
  limit: number,
  tools: OfferedToolSet,
): { readonly call: TextCall; readonly end: number } | undefined {
  STRIPPED_HEAD.lastIndex = at;
  const head = STRIPPED_HEAD.exec(reply);
  const recipient = head?.[1];
  if (head === null || recipient === undefined || at + head[0].length > limit) return undefined;
  const read = readArguments(reply, at + head[0].length, limit, nameOf(recipient, tools));
  return read.call === undefined ? undefined : { call: read.call, end: read.end };
}

/** The text around the calls, without the analysis (reasoning) and the `assistantfinal` channel header. */
function strippedContent(reply: string, blocks: readonly Block[]): string {
  const parts: string[] = [];
  let copied = 0;
  for (const block of [...blocks, undefined]) {
    const text = withoutReasoning(reply.slice(copied, block?.start ?? reply.length).trim());
    if (text !== '') parts.push(text);
    copied = block?.end ?? reply.length;
  }
  return parts.join('\n');
}

function withoutReasoning(piece: string): string {
  const finalAt = piece.indexOf('assistantfinal');
  const isReasoning = piece.startsWith('analysis') || piece.startsWith('assistantanalysis');
  if (finalAt !== -1 && (isReasoning || finalAt === 0)) return piece.slice(finalAt + 14).trim();
  return isReasoning ? '' : piece;
}

// ---------------------------------------------------------------------------------------------------------
// The visible text of a reply with no call

const HEADER_TOKENS = [START, CHANNEL] as const;
const CHANNEL_WORD = /<\|channel\|>\s*([a-z]+)/;

/**
 * A harmony reply with its tokens and no call: the `final` (and `commentary`) message bodies and any text outside
 * messages are the content, the `analysis` bodies the reasoning; a message to a recipient (a call that did not
 * read) stays in the content as written. A `<|message|>` with no header before it leaves the reply as written.
 */
function visibleMessages(reply: string, firstMessage: number): VisibleText | undefined {
  const nextMessage = createFinder(reply, MESSAGE, firstMessage);
  const nextHeader = createAnyFinder(reply, HEADER_TOKENS);
  const nextStop = createAnyFinder(reply, [...END_TOKENS, ...HEADER_TOKENS]);
  const content: string[] = [];
  const reasoning: string[] = [];
  let pos = 0;
  for (let message = nextMessage(0); message !== -1; message = nextMessage(pos)) {
    const header = nextHeader(pos);
    if (header === -1 || header > message) return undefined;
    content.push(withoutEndTokens(reply.slice(pos, header)));
    const head = reply.slice(header, message);
    const bodyStart = message + MESSAGE.length;
    const stop = nextStop(bodyStart);
    const bodyEnd = stop === -1 ? reply.length : stop;
    const isAnalysis = CHANNEL_WORD.exec(head)?.[1] === 'analysis';
    // A call that did not read stays visible as written (as `read` leaves it), unless it was reasoning.
    const shown = head.includes(RECIPIENT)
      ? reply.slice(header, bodyEnd)
      : reply.slice(bodyStart, bodyEnd);
    (isAnalysis ? reasoning : content).push(shown);
    const token = END_TOKENS.find((candidate) => reply.startsWith(candidate, bodyEnd));
    pos = bodyEnd + (token?.length ?? 0);
  }
  // A header cut off by the end of the reply (no `<|message|>` after it) is not text.
  const tail = nextHeader(pos);
  content.push(withoutEndTokens(reply.slice(pos, tail === -1 ? reply.length : tail)));
  return visible(content, reasoning);
}

function withoutEndTokens(text: string): string {
  let out = text;
  for (const token of END_TOKENS) out = out.replaceAll(token, '');
  return out;
}

function visible(content: readonly string[], reasoning: readonly string[]): VisibleText {
  const join = (parts: readonly string[]) =>
    parts
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .join('\n');
  const thought = join(reasoning);
  return thought === ''
    ? { content: join(content) }
    : { content: join(content), reasoning: thought };
}

const FINAL = 'assistantfinal';

/**
 * A reply with the special tokens stripped and no call: `analysis…assistantfinal…` (or `assistantfinal…`), the
 * text after `assistantfinal` the content, the analysis the reasoning. Anything else is left as written.
 */
function visibleStripped(reply: string): VisibleText | undefined {
  const start = skipSpace(reply, 0, reply.length);
  const finalAt = reply.indexOf(FINAL, start);
  if (finalAt === -1) return undefined;
  const lead = reply.slice(start, finalAt);
  const word = ['analysis', 'assistantanalysis'].find((candidate) => lead.startsWith(candidate));
  if ((lead !== '' && word === undefined) || lead.includes(RECIPIENT)) return undefined;
  return visible([reply.slice(finalAt + FINAL.length)], [lead.slice(word?.length ?? 0)]);
}
