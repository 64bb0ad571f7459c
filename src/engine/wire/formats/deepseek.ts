import { isPlainObject } from '../../../core/index.js';
import { readLenientJson, readLenientJsonSpan } from '../lenient-json.js';
import {
  type CutBlock,
  createFinder,
  type Finder,
  indexOrLimit,
  placeTags,
  readTaggedBlocks,
  skipSpace,
  TagPlaces,
  tagAt,
} from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
import type {
  OfferedToolSet,
  ReadToolCalls,
  TextCall,
  ToolCallFormat,
} from './tool-call-format.js';
import { argumentsJson } from './xml-parameters.js';

// DeepSeek's special tokens use fullwidth bars (U+FF5C) and "lower one eighth block" spaces (U+2581).

/** The section openers R1 / V3 / V3.1 write (llama.cpp also meets the spelled-out and `<｜tool▁calls｜>` forms). */
const SECTION_BEGIN = [
  '<｜tool▁calls▁begin｜>',
  '<｜tool_calls_begin｜>',
  '<｜tool calls begin｜>',
  '<｜tool\\_calls\\_begin｜>',
  '<｜tool▁calls｜>',
] as const;
const SECTION_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEPARATOR = '<｜tool▁sep｜>';
const END_OF_SENTENCE = '<｜end▁of▁sentence｜>';

/** V3.2's DSML block openers (V4 renamed `function_calls` to `tool_calls`; SGLang also meets the bare tags). */
const DSML_BEGIN = [
  '<｜DSML｜function_calls>',
  '<｜DSML｜tool_calls>',
  '<function_calls>',
] as const;
const DSML_END = [
  '</｜DSML｜function_calls>',
  '</｜DSML｜tool_calls>',
  '</function_calls>',
] as const;
const INVOKE_OPEN = ['<｜DSML｜invoke', '<invoke'] as const;
const INVOKE_CLOSE = ['</｜DSML｜invoke>', '</invoke>'] as const;
const PARAMETER_CLOSE = ['</｜DSML｜parameter>', '</parameter>'] as const;

/**
 * DeepSeek R1 and V3: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name` + "\n```json\n{…}\n```"
 * + `<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`. Also reads V3.1's shape (the same tokens), so a mislabelled model works.
 */
export const deepseekV3Format: ToolCallFormat = {
  name: 'deepseek-v3',
  markers: SECTION_BEGIN,
  read: (reply, tools) => guarded(() => readSections(reply, tools)),
};

/** DeepSeek V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`. */
export const deepseekV31Format: ToolCallFormat = {
  name: 'deepseek-v3.1',
  markers: SECTION_BEGIN,
  read: (reply, tools) => guarded(() => readSections(reply, tools)),
};

/**
 * DeepSeek V3.2's DSML: `<｜DSML｜function_calls>` holding `<｜DSML｜invoke name="x">` blocks of
 * `<｜DSML｜parameter name="p" string="true|false">v</｜DSML｜parameter>` (`string="true"`: raw text, else JSON) or
 * a JSON object; V4's `<｜DSML｜tool_calls>` and the bare `<function_calls><invoke name="x">` tags too.
 */
export const deepseekV32Format: ToolCallFormat = {
  name: 'deepseek-v3.2',
  markers: DSML_BEGIN,
  read: (reply, tools) => guarded(() => readDsml(reply, tools)),
};

function guarded(read: () => ReadToolCalls | undefined): ReadToolCalls | undefined {
  try {
    return read();
  } catch {
    // Only a bug could land here (every reader is bounded); a reply is never worth a crash.
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// R1 / V3 / V3.1 sections

/** The calls read from a block and where it ends (it starts at its opener). */
type Block = Omit<CutBlock<TextCall>, 'start'>;

/** A call (or `undefined` for an entry that names no offered tool or does not parse) and where its entry ends. */
interface Entry {
  readonly call: TextCall | undefined;
  readonly end: number;
  /** Whether the entry's end was marked by a closing token (a bad but closed entry goes with its section). */
  readonly closed: boolean;
}

function readSections(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const tokens = sectionTokens(reply);
  const read = (start: number, limit: number): Block | undefined =>
    readSection(reply, start, limit, tools, tokens);
  return readTaggedBlocks(reply, tokens.begin, read);
}

/** Where a reply's section tokens stand, by kind (`begin`: any spelling of `SECTION_BEGIN`). */
type SectionTokens = Readonly<
  Record<'begin' | 'sectionEnd' | 'callBegin' | 'callEnd' | 'separator', TagPlaces>
>;

/**
 * Every section token of a reply, found in one pass (`placeTags`): each starts with `<｜tool`, and its length tells
 * its kind (an opener's spellings are 14, 20 or 22 characters long, the other tokens 12, 17, 18 and 19). No token
 * found here is compared again (`startsWith` of a two-byte token compares it one character at a time, some 900
 * instructions).
 */
function sectionTokens(reply: string): SectionTokens {
  const tokens = {
    begin: new TagPlaces(),
    sectionEnd: new TagPlaces(),
    callBegin: new TagPlaces(),
    callEnd: new TagPlaces(),
    separator: new TagPlaces(),
  };
  placeTags(reply, TOKEN_START, SECTION_TOKEN, (start, end) => sectionKind(tokens, end - start));
  return tokens;
}

/** The kind of a section token `length` characters long (every opener spelling differs in length from the rest). */
function sectionKind(tokens: SectionTokens, length: number): TagPlaces {
  switch (length) {
    case SECTION_END.length:
      return tokens.sectionEnd;
    case CALL_BEGIN.length:
      return tokens.callBegin;
    case CALL_END.length:
      return tokens.callEnd;
    case SEPARATOR.length:
      return tokens.separator;
    default:
      return tokens.begin;
  }
}

/** What every section token starts with. */
const TOKEN_START = '<｜tool';

/** Any of `SECTION_BEGIN`, `SECTION_END`, `CALL_BEGIN`, `CALL_END` and `SEPARATOR`. */
const SECTION_TOKEN =
  /<｜tool(?:▁calls▁begin|_calls_begin| calls begin|\\_calls\\_begin|▁calls|▁calls▁end|▁call▁begin|▁call▁end|▁sep)｜>/y;

/** The entries after a section opener (from `start`, not past `limit`), up to `<｜tool▁calls▁end｜>`. */
function readSection(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  tokens: SectionTokens,
): Block | undefined {
  // Made with its first call (a first push would make room for sixteen).
  let calls: TextCall[] | undefined;
  let at = start;
  let end = start;
  for (;;) {
    at = skipSpace(text, at, limit);
    // The tokens found in advance tell one at `at` (`startsWith` of a two-byte token costs some 900 instructions).
    if (at < limit && tokens.sectionEnd.find(at) === at) {
      end = skipEndOfSentence(text, at + SECTION_END.length, limit);
      break;
    }
    if (at >= limit) break;
    const entry = readSectionEntry(text, at, limit, tools, tokens);
    if (entry === undefined) break;
    if (entry.call !== undefined) {
      if (calls === undefined) calls = [entry.call];
      else calls.push(entry.call);
    }
    if (entry.call !== undefined || entry.closed) end = entry.end;
    at = entry.end;
  }
  return calls === undefined ? undefined : { end, calls };
}

/** `[<｜tool▁call▁begin｜>]name<｜tool▁sep｜>{…}` (V3.1) or `…function<｜tool▁sep｜>name` + a fenced JSON (V3). */
function readSectionEntry(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  tokens: SectionTokens,
): Entry | undefined {
  const at = tokens.callBegin.find(start) === start ? start + CALL_BEGIN.length : start;
  const close = indexOrLimit(tokens.callEnd.find(at), limit);
  const stop = Math.min(
    close,
    indexOrLimit(tokens.callBegin.find(at), limit),
    indexOrLimit(tokens.sectionEnd.find(at), limit),
  );
  const closed = close === stop && close < limit;
  const end = closed ? close + CALL_END.length : stop;
  if (stop === at && !closed) return undefined;
  const separator = tokens.separator.find(at);
  if (separator === -1 || separator >= stop)
    return closed ? { call: undefined, end, closed } : undefined;
  const call = readSectionCall(text, at, separator, stop, tools);
  if (call === undefined && !closed) return undefined;
  return { call, end, closed };
}

function readSectionCall(
  text: string,
  start: number,
  separator: number,
  stop: number,
  tools: OfferedToolSet,
): TextCall | undefined {
  const afterSeparator = separator + SEPARATOR.length;
  const argsAt = skipSpace(text, afterSeparator, stop);
  const first = text.charAt(argsAt);
  // V3.1: the name before the separator, the JSON arguments after it.
  if (first === '{' || first === '[') {
    const name = text.slice(start, separator).trim();
    return namedCall(name, text, argsAt, stop, tools, false);
  }
  // V3 / R1: the type (`function`) before the separator, the name on the rest of the line, then a ```json fence.
  const lineEnd = lineEndBefore(text, afterSeparator, stop);
  if (lineEnd === -1) return undefined;
  const name = text.slice(afterSeparator, lineEnd).trim();
  let at = skipSpace(text, lineEnd, stop);
  if (!text.startsWith('```', at)) return namedCall(name, text, at, stop, tools, false);
  at += 3;
  if (text.startsWith('json', at)) at += 4;
  return namedCall(name, text, at, stop, tools, true);
}

/** A call to `name` whose JSON arguments start at `at`; only space (and a closing fence when `fenced`) may follow. */
function namedCall(
  name: string,
  text: string,
  at: number,
  stop: number,
  tools: OfferedToolSet,
  fenced: boolean,
): TextCall | undefined {
  if (!tools.names.has(name) || name.length > 256) return undefined;
  const value = readLenientJsonSpan(text, at, stop);
  if (value === undefined) return undefined;
  let rest = skipSpace(text, value.end, stop);
  if (fenced && text.startsWith('```', rest)) rest = skipSpace(text, rest + 3, stop);
  const args = isPlainObject(value.value) ? argumentsText(value.value, value.span) : undefined;
  return rest === stop && args !== undefined ? { name, arguments: args } : undefined;
}

/** The index of the next line break before `stop`, or -1 (a bounded search keeps the reader linear). */
function lineEndBefore(text: string, start: number, stop: number): number {
  for (let at = start; at < stop; at += 1) if (text.charCodeAt(at) === 0x0a) return at;
  return -1;
}

function skipEndOfSentence(text: string, index: number, limit: number): number {
  const at = skipSpace(text, index, limit);
  return text.startsWith(END_OF_SENTENCE, at) && at + END_OF_SENTENCE.length <= limit
    ? at + END_OF_SENTENCE.length
    : index;
}

// ---------------------------------------------------------------------------------------------------------
// V3.2 DSML

/** Searches for the tags of one spelling (`<｜DSML｜invoke` or the bare `<invoke`). */
type TagFinders = Readonly<Record<'invokeClose' | 'invokeOpen' | 'parameterClose', Finder>>;

/**
 * Both spellings: a tag is closed by the same spelling first (so a DSML value may hold a bare `</parameter>`),
 * then by the other one, as SGLang also accepts mixed tags. The bare spelling's searches are made when first
 * needed (a DSML reply with its own closing tags never needs them).
 */
interface DsmlFinders {
  readonly reply: string;
  readonly dsml: TagFinders;
  bare: TagFinders | undefined;
  /** The block closers (`DSML_END`), found in advance. */
  readonly blockEnds: TagPlaces;
}

function tagFinders(reply: string, index: 0 | 1): TagFinders {
  return {
    invokeClose: createFinder(reply, INVOKE_CLOSE[index]),
    invokeOpen: createFinder(reply, INVOKE_OPEN[index]),
    parameterClose: createFinder(reply, PARAMETER_CLOSE[index]),
  };
}

/** The searches of the DSML spelling (`<｜DSML｜invoke`) or of the bare one (`<invoke`). */
function spelling(finders: DsmlFinders, isDsml: boolean): TagFinders {
  if (isDsml) return finders.dsml;
  finders.bare ??= tagFinders(finders.reply, 1);
  return finders.bare;
}

/**
 * Whether the tag at `at` (an opening tag of either spelling, `<｜DSML｜…` or `<…`; `offset` 1; or a closing one,
 * `</｜DSML｜…` or `</…`, offset 2) is spelled the DSML way: one look at the character after `<` or `</` tells.
 */
function isDsmlAt(text: string, at: number, offset: 1 | 2): boolean {
  return text.charCodeAt(at + offset) === FULLWIDTH_BAR;
}

const FULLWIDTH_BAR = 0xff5c;

/** The closing tag for an opening tag at `start`: its own spelling's if there is one before `limit`, else the other's. */
function closingTag(
  text: string,
  start: number,
  from: number,
  limit: number,
  finders: DsmlFinders,
  kind: 'invokeClose' | 'parameterClose',
): number {
  const isDsml = isDsmlAt(text, start, 1);
  const close = indexOrLimit(spelling(finders, isDsml)[kind](from), limit);
  return close < limit ? close : indexOrLimit(spelling(finders, !isDsml)[kind](from), limit);
}

function readDsml(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const blockTags = dsmlBlockTags(reply);
  const finders: DsmlFinders = {
    reply,
    dsml: tagFinders(reply, 0),
    bare: undefined,
    blockEnds: blockTags.ends,
  };
  const read = (start: number, limit: number): Block | undefined =>
    readDsmlBlock(reply, start, limit, tools, finders);
  return readTaggedBlocks(reply, blockTags.begins, read);
}

/** What every DSML block tag (each of `DSML_BEGIN` and `DSML_END`) ends with. */
const BLOCK_TAG_END = '_calls>';

/**
 * Where a reply's DSML block tags stand, openers and closers apart, found by one search for `_calls>` (ASCII, so
 * a fast search even in the two-byte reply) instead of one search of the whole reply per spelling (six, most
 * absent). Each tag holds `_calls>` once, at its end, and at most one of them ends at a given place.
 */
function dsmlBlockTags(reply: string): { readonly begins: TagPlaces; readonly ends: TagPlaces } {
  const begins = new TagPlaces();
  const ends = new TagPlaces();
  for (
    let at = reply.indexOf(BLOCK_TAG_END);
    at !== -1;
    at = reply.indexOf(BLOCK_TAG_END, at + BLOCK_TAG_END.length)
  ) {
    const end = at + BLOCK_TAG_END.length;
    const begin = tagEndingAt(reply, DSML_BEGIN, end);
    if (begin !== -1) begins.add(begin, end);
    else {
      const close = tagEndingAt(reply, DSML_END, end);
      if (close !== -1) ends.add(close, end);
    }
  }
  return { begins, ends };
}

/** Where the first of `tags` that ends at `end` starts, or -1 (two characters looked at before the whole tag). */
function tagEndingAt(text: string, tags: readonly string[], end: number): number {
  for (const tag of tags) {
    const start = end - tag.length;
    if (start < 0 || text.charCodeAt(start + 1) !== tag.charCodeAt(1)) continue;
    if (text.charCodeAt(start) !== LESS_THAN) continue;
    // The tags differ in length, so a block tag from `start` to `end` is this one. (A sticky pattern's test costs
    // about a third of `startsWith`, which compares a two-byte tag one character at a time.)
    BLOCK_TAG.lastIndex = start;
    if (BLOCK_TAG.test(text) && BLOCK_TAG.lastIndex === end) return start;
  }
  return -1;
}

/** Any of `DSML_BEGIN` and `DSML_END`. */
const BLOCK_TAG = /<\/?(?:｜DSML｜function|｜DSML｜tool|function)_calls>/y;

const LESS_THAN = 0x3c;

function readDsmlBlock(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  finders: DsmlFinders,
): Block | undefined {
  // Made with its first call (a first push would make room for sixteen).
  let calls: TextCall[] | undefined;
  let at = start;
  let end = start;
  for (;;) {
    at = skipSpace(text, at, limit);
    // The closers found in advance tell one at `at` (and where it ends) without comparing it again.
    if (finders.blockEnds.find(at) === at && finders.blockEnds.foundEnd() <= limit) {
      end = skipEndOfSentence(text, finders.blockEnds.foundEnd(), limit);
      break;
    }
    if (at >= limit) break;
    const entry = readInvoke(text, at, limit, tools, finders);
    if (entry === undefined) break;
    if (entry.call !== undefined) {
      if (calls === undefined) calls = [entry.call];
      else calls.push(entry.call);
    }
    if (entry.call !== undefined || entry.closed) end = entry.end;
    at = entry.end;
  }
  return calls === undefined ? undefined : { end, calls };
}

const INVOKE_HEAD = /<(?:｜DSML｜)?invoke\s+name\s*=\s*"([^"<>\n]{1,256})"\s*>/y;

/**
 * `<｜DSML｜invoke name="x">` parameters or a JSON object `</｜DSML｜invoke>`; `undefined` when no invoke tag (or a
 * bad entry that is not closed) stands at `start`.
 */
function readInvoke(
  text: string,
  start: number,
  limit: number,
  tools: OfferedToolSet,
  finders: DsmlFinders,
): Entry | undefined {
  INVOKE_HEAD.lastIndex = start;
  const head = INVOKE_HEAD.exec(text);
  // A head that matches starts with the tag, which is looked for by itself only when the head does not match.
  if (head === null && tagAt(text, INVOKE_OPEN, start) === undefined) return undefined;
  const close = closingTag(text, start, start, limit, finders, 'invokeClose');
  const ownOpen = spelling(finders, isDsmlAt(text, start, 1));
  const stop = Math.min(
    close,
    indexOrLimit(ownOpen.invokeOpen(start + 1), limit),
    indexOrLimit(finders.blockEnds.find(start), limit),
  );
  const closed = close === stop && close < limit;
  // A closing tag found by either spelling's search stands at `close`: its spelling is told by one look.
  const end = closed ? close + INVOKE_CLOSE[isDsmlAt(text, close, 2) ? 0 : 1].length : stop;
  if (head === null || start + head[0].length > stop)
    return closed ? { call: undefined, end, closed } : undefined;
  const name = head[1] ?? '';
  const args = tools.names.has(name)
    ? readInvokeArguments(text, start + head[0].length, stop, tools, finders, name)
    : undefined;
  const call = args === undefined ? undefined : { name, arguments: args };
  if (call === undefined && !closed) return undefined;
  return { call, end, closed };
}

function readInvokeArguments(
  text: string,
  start: number,
  stop: number,
  tools: OfferedToolSet,
  finders: DsmlFinders,
  name: string,
): string | undefined {
  const at = skipSpace(text, start, stop);
  if (text.charAt(at) === '{') {
    const value = readLenientJsonSpan(text, at, stop);
    if (value === undefined || skipSpace(text, value.end, stop) !== stop) return undefined;
    return isPlainObject(value.value) ? argumentsText(value.value, value.span) : undefined;
  }
  // Made with its first entry (a first push would make room for sixteen).
  let entries: [string, unknown][] | undefined;
  const properties = propertiesOf(tools, name);
  for (let index = at; ; ) {
    index = skipSpace(text, index, stop);
    if (index >= stop) return argumentsJson(entries ?? []);
    const parameter = readParameter(text, index, stop, finders);
    if (parameter === undefined) return undefined;
    const entry: [string, unknown] = [
      parameter.name,
      parameterValue(parameter, properties?.[parameter.name]),
    ];
    if (entries === undefined) entries = [entry];
    else entries.push(entry);
    index = parameter.end;
  }
}

interface Parameter {
  readonly name: string;
  /** The `string` attribute: `true` (raw text), `false` (JSON), or `undefined` when absent. */
  readonly isString: boolean | undefined;
  readonly raw: string;
  readonly end: number;
}

const PARAMETER_HEAD =
  /<(?:｜DSML｜)?parameter\s+name\s*=\s*"([^"<>\n]{1,256})"(?:\s+string\s*=\s*"(true|false)")?\s*>/y;

function readParameter(
  text: string,
  start: number,
  stop: number,
  finders: DsmlFinders,
): Parameter | undefined {
  // The head's pattern starts with the tag in either spelling, so it is not looked for first (`startsWith` of a
  // two-byte tag costs about as much as the match).
  PARAMETER_HEAD.lastIndex = start;
  const head = PARAMETER_HEAD.exec(text);
  if (head === null || start + head[0].length > stop) return undefined;
  const valueStart = start + head[0].length;
  const close = closingTag(text, start, valueStart, stop, finders, 'parameterClose');
  if (close >= stop) return undefined;
  const closeTag = PARAMETER_CLOSE[isDsmlAt(text, close, 2) ? 0 : 1];
  const flag = head[2];
  return {
    name: head[1] ?? '',
    isString: flag === undefined ? undefined : flag === 'true',
    raw: text.slice(valueStart, close),
    end: close + closeTag.length,
  };
}

/** `string="true"` keeps the raw text; `string="false"` (or no flag and a non-string schema) reads JSON. */
function parameterValue(parameter: Parameter, schema: unknown): unknown {
  if (parameter.isString === true) return parameter.raw;
  if (parameter.isString === undefined && isPlainObject(schema) && schema.type === 'string')
    return parameter.raw;
  const trimmed = parameter.raw.trim();
  const value = readLenientJson(trimmed, 0, trimmed.length);
  return value !== undefined && value.end === trimmed.length ? value.value : parameter.raw;
}

function propertiesOf(tools: OfferedToolSet, name: string): Record<string, unknown> | undefined {
  const properties = tools.parametersOf(name)?.properties;
  return isPlainObject(properties) ? properties : undefined;
}
