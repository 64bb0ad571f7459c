import { isPlainObject, jsonTypeName, type ToolErrorCode, type ToolSpec } from '../core/index.js';
import { matchingBrace, normalizeToolInput, resolveToolSpec } from './text-protocol.js';

/** The tag that opens a tool call written into a reply's text (Hermes / Qwen / GLM style). */
export const TOOL_CALL_OPEN_TAG = '<tool_call>';

/** Most `<tool_call>` blocks of one reply that are run; the ones after them are reported as not run. */
export const MAX_TOOL_CALL_BLOCKS = 8;

/** Where a block sits in the reply: `start` is its `<tool_call>`, `end` is just after its closing tag. */
interface BlockSpan {
  readonly start: number;
  readonly end: number;
}

/** One `<tool_call>` block of a reply: a call to run, or what is wrong with it, for the model to repair. */
export type ToolCallBlock =
  | (BlockSpan & {
      readonly kind: 'call';
      /** The tool name, matched to an offered tool when the model wrote it loosely (`Calculator`). */
      readonly name: string;
      /** The arguments as JSON object text (or the model's own text, which the executor then explains). */
      readonly arguments: string;
    })
  | (BlockSpan & {
      readonly kind: 'malformed';
      /** The tool the block names, or `tool_call` when it names none. */
      readonly toolName: string;
      readonly errorCode: ToolErrorCode;
      /** What was wrong and how to write it instead. */
      readonly problem: string;
    });

/** The first `maxBlocks` blocks of a reply and how many more it had. */
export interface ToolCallBlocks {
  readonly blocks: readonly ToolCallBlock[];
  readonly omitted: number;
}

/** A closing tag `</name>` of the text. */
interface ClosingTag {
  readonly start: number;
  readonly end: number;
}

interface Scan {
  readonly text: string;
  readonly specs: readonly ToolSpec[];
  /** Every closing tag of the text, in order, and the same by name. */
  readonly closers: readonly ClosingTag[];
  readonly closersByName: ReadonlyMap<string, readonly ClosingTag[]>;
  /** False when only the blocks' spans are wanted (stripping). */
  readonly readArguments: boolean;
}

const TAG_NAME = '[A-Za-z_][\\w.-]*';
// Shared patterns: every use sets `lastIndex` first and finishes before another use (the code is synchronous).
const NAME_AT = new RegExp(TAG_NAME, 'y');
const ANY_TAG = new RegExp(`<(/?)(${TAG_NAME})[ \\t]*>`, 'g');
const OPEN_TAG = new RegExp(`<(${TAG_NAME})[ \\t]*>`, 'g');
const CLOSE_TAG = new RegExp(`</(${TAG_NAME})[ \\t]*>`, 'g');
const EXAMPLE =
  '<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call> or <tool_call><tool>\n$param=value\n</tool_call>';

/**
 * Finds the tool calls a model wrote as `<tool_call>` blocks, in the forms the original agent reads and the
 * JSON form: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, and `<tool_call>name` followed by
 * `$param=value` lines (values may span lines), `<param>value</param>` elements, `param: value` lines, a JSON
 * object or plain text for the tool's one text parameter, closed by `</tool_call>` or any `</name>` tag
 * (`<tool_call>calculator\n$expression=7*6</calculator>`). A block that cannot be read (no tool name, bad
 * JSON, no closing tag) comes back `malformed`. Blocks inside code fences count, as in the original. Runs
 * in linear time on any text and never throws.
 */
export function findToolCallBlocks(
  text: string,
  specs: readonly ToolSpec[],
  maxBlocks: number = MAX_TOOL_CALL_BLOCKS,
): ToolCallBlocks {
  return scanBlocks(indexText(text, specs, true), maxBlocks);
}

function scanBlocks(scan: Scan, maxBlocks: number): ToolCallBlocks {
  const { text } = scan;
  if (!text.includes(TOOL_CALL_OPEN_TAG)) return { blocks: [], omitted: 0 };
  const blocks: ToolCallBlock[] = [];
  let at = text.indexOf(TOOL_CALL_OPEN_TAG);
  while (at !== -1 && blocks.length < maxBlocks) {
    const next = text.indexOf(TOOL_CALL_OPEN_TAG, at + TOOL_CALL_OPEN_TAG.length);
    blocks.push(readBlock(scan, at, next === -1 ? text.length : next));
    at = next;
  }
  return { blocks, omitted: at === -1 ? 0 : countOpenTags(text, at) };
}

/** The text without its `<tool_call>` blocks (closed or not) and stray `<tool_call>` / `</tool_call>` tags. */
export function stripToolCallBlocks(text: string): string {
  const { blocks } = scanBlocks(indexText(text, [], false), Number.POSITIVE_INFINITY);
  let kept = '';
  let at = 0;
  for (const block of blocks) {
    kept += text.slice(at, block.start);
    at = block.end;
  }
  kept += text.slice(at);
  return kept.replace(/<\/?tool_call>/g, '').trim();
}

function indexText(text: string, specs: readonly ToolSpec[], readArguments: boolean): Scan {
  const closers: ClosingTag[] = [];
  const closersByName = new Map<string, ClosingTag[]>();
  if (!text.includes(TOOL_CALL_OPEN_TAG))
    return { text, specs, closers, closersByName, readArguments };
  for (const match of text.matchAll(CLOSE_TAG)) {
    const tag = { start: match.index, end: match.index + match[0].length };
    closers.push(tag);
    const name = match[1] ?? '';
    const list = closersByName.get(name);
    if (list === undefined) closersByName.set(name, [tag]);
    else list.push(tag);
  }
  return { text, specs, closers, closersByName, readArguments };
}

function countOpenTags(text: string, from: number): number {
  let count = 0;
  for (let at = text.indexOf(TOOL_CALL_OPEN_TAG, from); at !== -1; count += 1) {
    at = text.indexOf(TOOL_CALL_OPEN_TAG, at + TOOL_CALL_OPEN_TAG.length);
  }
  return count;
}

/** The first closing tag that starts at or after `from` and before `limit` (binary search). */
function firstCloser(
  tags: readonly ClosingTag[],
  from: number,
  limit: number,
): ClosingTag | undefined {
  let low = 0;
  let high = tags.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((tags[middle]?.start ?? 0) < from) low = middle + 1;
    else high = middle;
  }
  const tag = tags[low];
  return tag !== undefined && tag.start < limit ? tag : undefined;
}

/** Reads the block whose `<tool_call>` is at `start`; it may not reach `limit` (the next `<tool_call>`). */
function readBlock(scan: Scan, start: number, limit: number): ToolCallBlock {
  const { text } = scan;
  const bodyStart = skipLead(text, start + TOOL_CALL_OPEN_TAG.length, limit);
  if (text[bodyStart] === '{') return readJsonBlock(scan, start, bodyStart, limit);
  NAME_AT.lastIndex = bodyStart;
  const match = NAME_AT.exec(text);
  if (match === null || bodyStart >= limit) {
    const closer = firstCloser(scan.closers, bodyStart, limit);
    if (closer === undefined) return notClosed({ start, end: limit }, 'tool_call');
    return malformed(
      { start, end: closer.end },
      'tool_call',
      'unknown_tool',
      `A <tool_call> block names no tool. Write the tool name first: ${EXAMPLE}`,
    );
  }
  return readXmlBlock(scan, start, match[0], bodyStart + match[0].length, limit);
}

/** Skips whitespace and a ``` fence line (```` ```json ````) after `<tool_call>`, never past `limit`. */
function skipLead(text: string, from: number, limit: number): number {
  let at = skipSpace(text, from, limit);
  if (text.startsWith('```', at)) {
    at += 3;
    while (at < limit && text[at] !== '\n') at += 1;
    at = skipSpace(text, at, limit);
  }
  return at;
}

function skipSpace(text: string, from: number, limit: number): number {
  let at = from;
  while (at < limit && /\s/.test(text[at] ?? '')) at += 1;
  return at;
}

function malformed(
  span: BlockSpan,
  toolName: string,
  errorCode: ToolErrorCode,
  problem: string,
): ToolCallBlock {
  return { kind: 'malformed', ...span, toolName, errorCode, problem };
}

function notClosed(span: BlockSpan, toolName: string): ToolCallBlock {
  const named = toolName === 'tool_call' ? '' : ` for '${toolName}'`;
  return malformed(
    span,
    toolName,
    'invalid_arguments',
    `The <tool_call> block${named} is not closed, so it was not run. End each call with </tool_call>: ${EXAMPLE}`,
  );
}

/** The JSON form: one object with `name` and `arguments` (or `parameters`, or OpenAI's `function` shape). */
function readJsonBlock(scan: Scan, start: number, braceAt: number, limit: number): ToolCallBlock {
  const { text } = scan;
  const close = matchingBrace(text, braceAt, limit);
  const closer = firstCloser(scan.closers, close === -1 ? braceAt : close + 1, limit);
  const guess = /"name"\s*:\s*"([^"\\]{1,200})"/.exec(text.slice(braceAt, closer?.start ?? limit));
  const toolName = guess?.[1] ?? 'tool_call';
  if (closer === undefined) return notClosed({ start, end: limit }, toolName);
  const span = { start, end: closer.end };
  if (!scan.readArguments) return { kind: 'call', ...span, name: toolName, arguments: '{}' };
  if (close === -1) {
    const problem = `The JSON object of the <tool_call> block${toolName === 'tool_call' ? '' : ` for '${toolName}'`} is not complete (a '}' is missing), so it was not run. Write: ${EXAMPLE}`;
    return malformed(span, toolName, 'invalid_arguments', problem);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.slice(braceAt, close + 1));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const problem = `The <tool_call> block is not valid JSON (${reason}), so it was not run. Write: ${EXAMPLE}`;
    return malformed(span, toolName, 'invalid_arguments', problem);
  }
  return callFromObject(value, span, scan.specs);
}

function callFromObject(
  value: unknown,
  span: BlockSpan,
  specs: readonly ToolSpec[],
): ToolCallBlock {
  const call = isPlainObject(value) && isPlainObject(value.function) ? value.function : value;
  if (!isPlainObject(call) || typeof call.name !== 'string' || call.name.trim() === '') {
    const problem = `The <tool_call> JSON has no "name" of a tool, so it was not run. Write: ${EXAMPLE}`;
    return malformed(span, 'tool_call', 'unknown_tool', problem);
  }
  const name = resolveToolSpec(call.name, call.name, specs)?.name ?? call.name;
  const args = call.arguments ?? call.parameters ?? {};
  if (typeof args === 'string') return { kind: 'call', ...span, name, arguments: args };
  if (!isPlainObject(args)) {
    const problem = `The "arguments" of the <tool_call> for '${name}' must be a JSON object, got ${jsonTypeName(args)}.`;
    return malformed(span, name, 'invalid_arguments', problem);
  }
  return { kind: 'call', ...span, name, arguments: JSON.stringify(args) };
}

/** The name form: parameters up to the first closing tag that does not close a `<param>` element. */
function readXmlBlock(
  scan: Scan,
  start: number,
  writtenName: string,
  nameEnd: number,
  limit: number,
): ToolCallBlock {
  const spec = resolveToolSpec(writtenName, writtenName, scan.specs);
  const name = spec?.name ?? writtenName;
  const closer = findXmlCloser(scan, nameEnd, limit);
  if (closer === undefined) return notClosed({ start, end: limit }, name);
  const args = scan.readArguments ? xmlArguments(scan, nameEnd, closer.start, spec) : '{}';
  return { kind: 'call', start, end: closer.end, name, arguments: args };
}

function findXmlCloser(scan: Scan, from: number, limit: number): ClosingTag | undefined {
  const tags = ANY_TAG;
  tags.lastIndex = from;
  for (let match = tags.exec(scan.text); match !== null; match = tags.exec(scan.text)) {
    if (match.index >= limit) return undefined;
    if (match[1] === '/') return { start: match.index, end: match.index + match[0].length };
    const own = firstCloser(scan.closersByName.get(match[2] ?? '') ?? [], tags.lastIndex, limit);
    if (own !== undefined) tags.lastIndex = own.end;
  }
  return undefined;
}

/** The JSON arguments text of a name-form block's parameters (see `findToolCallBlocks`). */
function xmlArguments(scan: Scan, from: number, to: number, spec: ToolSpec | undefined): string {
  const body = scan.text.slice(from, to);
  const entries =
    dollarParameters(body) ?? elementParameters(scan, from, to) ?? keyedLines(body, spec);
  if (entries !== undefined) {
    const coerced = entries.map(([key, value]) => [key, coerce(value, spec, key)] as const);
    return JSON.stringify(Object.fromEntries(coerced));
  }
  const rest = body.trim();
  return normalizeToolInput(rest === '' ? undefined : rest, spec);
}

type Entries = readonly (readonly [string, string])[];

/** `$param=value` at the start or after whitespace; a value runs to the next parameter or the end. */
function dollarParameters(body: string): Entries | undefined {
  const starts = [...body.matchAll(/(?<!\S)\$([A-Za-z_]\w*)=/g)];
  if (starts.length === 0) return undefined;
  return starts.map((match, index) => {
    const valueStart = match.index + match[0].length;
    const valueEnd = starts[index + 1]?.index ?? body.length;
    return [match[1] ?? '', body.slice(valueStart, valueEnd).trim()] as const;
  });
}

/** `<param>value</param>` elements between `from` and `to`. */
function elementParameters(scan: Scan, from: number, to: number): Entries | undefined {
  const entries: [string, string][] = [];
  const opens = OPEN_TAG;
  opens.lastIndex = from;
  for (let match = opens.exec(scan.text); match !== null; match = opens.exec(scan.text)) {
    if (match.index >= to) break;
    const key = match[1] ?? '';
    const close = firstCloser(scan.closersByName.get(key) ?? [], opens.lastIndex, to);
    if (close === undefined) continue;
    entries.push([key, scan.text.slice(opens.lastIndex, close.start).trim()]);
    opens.lastIndex = close.end;
  }
  return entries.length === 0 ? undefined : entries;
}

/** `param: value` lines (GLM style) naming the tool's declared parameters; other lines continue a value. */
function keyedLines(body: string, spec: ToolSpec | undefined): Entries | undefined {
  const declared = propertiesOf(spec);
  const entries: [string, string][] = [];
  for (const line of body.trim().split('\n')) {
    const match = /^\s*([A-Za-z_]\w*)\s*:(.*)$/.exec(line);
    const key = match?.[1] ?? '';
    const last = entries.at(-1);
    if (match !== null && Object.hasOwn(declared, key)) entries.push([key, match[2] ?? '']);
    else if (last !== undefined) last[1] += `\n${line}`;
    else return undefined;
  }
  return entries.length === 0
    ? undefined
    : entries.map(([key, value]) => [key, unquote(value.trim())] as const);
}

function unquote(text: string): string {
  const quoted = /^(["'])([\s\S]*)\1$/.exec(text);
  return quoted === null ? text : (quoted[2] ?? '');
}

function propertiesOf(spec: ToolSpec | undefined): Readonly<Record<string, unknown>> {
  const properties = spec?.parameters.properties;
  return isPlainObject(properties) ? properties : {};
}

/** A value for a parameter that does not take text (number, list, object…) is read as JSON when it is JSON. */
function coerce(value: string, spec: ToolSpec | undefined, key: string): unknown {
  const properties = propertiesOf(spec);
  const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
  const type = isPlainObject(property) ? property.type : undefined;
  const takesText =
    type === undefined || type === 'string' || (Array.isArray(type) && type.includes('string'));
  if (takesText) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
