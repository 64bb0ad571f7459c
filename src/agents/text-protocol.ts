import type { ToolCall, ToolSpec } from '../core/index.js';
import { stripThinkTags } from './agent-messages.js';

/** The kinds of labelled lines the text protocols use (structured `TOOL:`/`INPUT:` and ReAct `Action:` alike). */
export type TextProtocolLabel = 'final' | 'input' | 'tool' | 'thought' | 'observation';

/** What a model's reply asks for: a final answer, a tool call, or (no protocol markers) a plain answer. */
export type TextProtocolReply =
  | {
      readonly kind: 'final';
      /** The text after `FINAL_ANSWER:` / `Final Answer:`, without `<think>` blocks. */
      readonly answer: string;
      /** The reasoning the reply wrote besides its answer or call (`THOUGHT:` text, or text before the labels). */
      readonly thought: string;
    }
  | {
      readonly kind: 'tool_call';
      /** The tool name as written (see `buildTextToolCall` for matching it to a tool). */
      readonly toolName: string;
      /** The whole line the tool name was on, for finding a tool named in prose (`Action: use the calculator`). */
      readonly toolLine: string;
      /** The input text (fences and surrounding prose removed), or `undefined` when none was written. */
      readonly input: string | undefined;
      readonly thought: string;
      /** The reply up to the end of the call; anything after it (such as a made-up `Observation:`) is dropped. */
      readonly callText: string;
    }
  | { readonly kind: 'answer'; readonly answer: string; readonly thought: string };

interface LabelHit {
  readonly kind: TextProtocolLabel;
  /** Where the label's line starts. */
  readonly start: number;
  /** Where the text after `LABEL:` starts. */
  readonly valueStart: number;
}

/**
 * A label at the start of a line, in any case, with the decorations small models add: leading `-`, `>`, `#`,
 * bold or italic markers around the label, a step number (`Thought 2:`), spaces before the colon. `Action Input` is
 * tried before `Action`.
 */
const LABEL_LINE =
  /^[ \t]*(?:[-*>#]+[ \t]*)?[*_]{0,2}(?:(?<final>final[ \t_-]?answer)|(?<input>(?:action|tool)[ \t_-]?input|input)|(?<tool>tool|action)|(?<thought>thoughts?)|(?<observation>observations?))[*_]{0,2}(?:[ \t]*\d+)?[*_]{0,2}[ \t]*:[*_]{0,2}[ \t]*/gim;

/** Tool names that mean "no tool". */
const NO_TOOL = /^(?:none|null|n\/a|no_tool|no)$/i;

/** Reads one reply of a text-protocol model; `FINAL ANSWER` wins over a tool call, as in the original. */
export function parseTextProtocolReply(content: string): TextProtocolReply {
  const text = stripThinkTags(content.replace(/\r\n?/g, '\n'));
  const labels = findLabels(text);
  const final = labels.find((label) => label.kind === 'final');
  if (final !== undefined) {
    const answer = text.slice(final.valueStart).trim();
    if (answer !== '') return { kind: 'final', answer, thought: thoughtOf(text, labels, final) };
  }
  const tool = labels.find((label) => label.kind === 'tool');
  const call = tool === undefined ? undefined : readToolCall(text, labels, tool);
  if (call !== undefined && tool !== undefined) {
    return { kind: 'tool_call', ...call, thought: thoughtOf(text, labels, tool) };
  }
  return { kind: 'answer', answer: text, thought: thoughtOf(text, labels, undefined) };
}

function findLabels(text: string): LabelHit[] {
  const hits: LabelHit[] = [];
  for (const match of text.matchAll(LABEL_LINE)) {
    const groups = match.groups ?? {};
    const kind = (['final', 'input', 'tool', 'thought', 'observation'] as const).find(
      (name) => groups[name] !== undefined,
    );
    if (kind !== undefined) {
      hits.push({ kind, start: match.index, valueStart: match.index + match[0].length });
    }
  }
  return hits;
}

/** The text of the last `THOUGHT:` before `decision` (up to the next label), else the text before the first label. */
function thoughtOf(
  text: string,
  labels: readonly LabelHit[],
  decision: LabelHit | undefined,
): string {
  const limit = decision === undefined ? labels.length : labels.indexOf(decision);
  const index = labels.slice(0, limit).findLastIndex((label) => label.kind === 'thought');
  const thought = labels[index];
  if (index !== -1 && thought !== undefined) {
    return text.slice(thought.valueStart, labels[index + 1]?.start ?? text.length).trim();
  }
  return labels.length === 0 ? '' : text.slice(0, labels[0]?.start).trim();
}

type ToolCallParts = Omit<Extract<TextProtocolReply, { kind: 'tool_call' }>, 'kind' | 'thought'>;

function readToolCall(
  text: string,
  labels: readonly LabelHit[],
  tool: LabelHit,
): ToolCallParts | undefined {
  const index = labels.indexOf(tool);
  const next = labels[index + 1];
  const line = toolLine(text, tool, next?.start ?? text.length);
  const parsed = parseToolLine(line.text);
  if (parsed === undefined) return undefined;
  let input = parsed.inline;
  let end = line.end;
  if (next?.kind === 'input') {
    const block = extractInputBlock(text.slice(next.valueStart, labels[index + 2]?.start));
    input = block.value;
    end = next.valueStart + block.end;
  } else if (input === undefined) {
    // No `INPUT:` label: accept a JSON object or a fenced block on the lines right after the name.
    const region = text.slice(line.end, next?.start);
    if (/^\s*(?:\{|```|~~~)/.test(region)) {
      const block = extractInputBlock(region);
      input = block.value;
      end = line.end + block.end;
    }
  }
  return {
    toolName: parsed.name,
    toolLine: line.text,
    input,
    callText: text.slice(0, end).trimEnd(),
  };
}

/** The tool name's line: the rest of the label's line, or the next non-empty line before `limit`. */
function toolLine(
  text: string,
  tool: LabelHit,
  limit: number,
): { readonly text: string; readonly end: number } {
  let start = tool.valueStart;
  while (start < limit) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 || newline > limit ? limit : newline;
    const value = text.slice(start, end).trim();
    if (value !== '') return { text: value, end };
    start = end + 1;
  }
  return { text: '', end: tool.valueStart };
}

/** Splits `calculator`, `` `calculator` ``, `calculator(2+2)` or `calculator {"expression": "2"}` into name and inline input. */
function parseToolLine(
  line: string,
): { readonly name: string; readonly inline: string | undefined } | undefined {
  const cleaned = line.replace(/^[\s`*"'[<]+/, '');
  const match = /^[A-Za-z_][\w./-]*/.exec(cleaned);
  if (match === null) return undefined;
  const name = match[0].replace(/[./-]+$/, '');
  if (NO_TOOL.test(name)) return undefined;
  const rest = cleaned
    .slice(match[0].length)
    .replace(/^[`*"'\]>]+/, '')
    .trim();
  if (rest.startsWith('(')) {
    const close = rest.lastIndexOf(')');
    return { name, inline: rest.slice(1, close === -1 ? undefined : close).trim() };
  }
  if (rest.startsWith('{')) return { name, inline: rest.replace(/[`*]+$/, '').trim() };
  return { name, inline: undefined };
}

/**
 * Cuts the input out of the text after `INPUT:`: a fenced block, a balanced JSON object, or else plain text up
 * to the first blank line. `end` is how far into `region` the input reached.
 */
function extractInputBlock(region: string): { readonly value: string; readonly end: number } {
  const lead = region.length - region.trimStart().length;
  const body = region.slice(lead);
  const fence = /^(`{3,}|~{3,})[\w-]*[ \t]*\n?([\s\S]*?)\n?[ \t]*\1/.exec(body);
  if (fence !== null) return { value: (fence[2] ?? '').trim(), end: lead + fence[0].length };
  if (body.startsWith('{')) {
    const close = matchingBrace(body);
    if (close !== -1) return { value: body.slice(0, close + 1), end: lead + close + 1 };
  }
  const blank = /\n[ \t]*\n/.exec(body);
  const cut = blank === null ? body.length : blank.index;
  return { value: body.slice(0, cut).trim(), end: lead + cut };
}

/**
 * Index of the `}` closing the object that starts at `from` (strings and escapes respected) before `limit`,
 * or -1.
 */
export function matchingBrace(text: string, from = 0, limit = text.length): number {
  let depth = 0;
  let inString = false;
  for (let index = from; index < limit; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/**
 * Turns a parsed tool-call reply into a `ToolCall` for the executor: the name is matched to an available tool
 * (case, `-`/`_`, or a single tool named in the line), and the input is normalised by `normalizeToolInput`.
 */
export function buildTextToolCall(
  reply: Extract<TextProtocolReply, { kind: 'tool_call' }>,
  specs: readonly ToolSpec[],
  id: string,
): ToolCall {
  const spec = resolveToolSpec(reply.toolName, reply.toolLine, specs);
  return {
    id,
    name: spec?.name ?? reply.toolName,
    arguments: normalizeToolInput(reply.input, spec),
  };
}

/** The available tool a model meant by `name` (exact, then ignoring case and `-`/`_`/spaces, then named in `line`). */
export function resolveToolSpec(
  name: string,
  line: string,
  specs: readonly ToolSpec[],
): ToolSpec | undefined {
  const exact = specs.find((spec) => spec.name === name);
  if (exact !== undefined) return exact;
  const canonical = (value: string) => value.toLowerCase().replace(/[\s-]+/g, '_');
  const loose = specs.find((spec) => canonical(spec.name) === canonical(name));
  if (loose !== undefined) return loose;
  const mentioned = specs.filter((spec) =>
    new RegExp(`(?:^|[^\\w])${escapeRegExp(spec.name)}(?:[^\\w]|$)`, 'i').test(line),
  );
  return mentioned.length === 1 ? mentioned[0] : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The JSON arguments text for a call written in a text protocol. A JSON object is used as written (```json
 * fences and Python-style single quotes tolerated); plain text (`15 * 7 + 23`) goes to the tool's single string
 * parameter, or its single required one; `name=value` fills the named parameter; no input, or any input for a
 * tool without parameters, is `{}`. Anything else is passed on so the executor explains what is expected.
 */
export function normalizeToolInput(input: string | undefined, spec: ToolSpec | undefined): string {
  const text = unwrapInput(input ?? '');
  if (text === '') return '{}';
  const object = parseObject(text);
  if (spec === undefined) return object === undefined ? '{}' : object;
  if (object !== undefined) return object;
  if (text.startsWith('{')) return text;
  const properties = propertiesOf(spec);
  const names = Object.keys(properties);
  if (names.length === 0) return '{}';
  const keyword = keywordArgument(text, properties);
  if (keyword !== undefined) return JSON.stringify(keyword);
  const target = textParameter(spec, properties);
  return target === undefined ? text : JSON.stringify({ [target]: unquote(text) });
}

/** Removes a code fence or inline backticks around the input. */
function unwrapInput(input: string): string {
  const text = input.trim();
  const fence = /^(`{3,}|~{3,})[\w-]*[ \t]*\n?([\s\S]*?)\n?[ \t]*\1$/.exec(text);
  if (fence !== null) return (fence[2] ?? '').trim();
  const inline = /^`([^`]*)`$/.exec(text);
  return inline === null ? text : (inline[1] ?? '').trim();
}

/** The text itself when it is a JSON object, a repaired copy for Python-style quotes, else `undefined`. */
function parseObject(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined;
  if (isJsonObject(text)) return text;
  const repaired = text.replace(/'/g, '"');
  return isJsonObject(repaired) ? repaired : undefined;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

type Properties = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

function propertiesOf(spec: ToolSpec): Properties {
  const properties = spec.parameters.properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties)
    ? (properties as Properties)
    : {};
}

/** The parameter plain text goes to: the only parameter if it takes text, else the only required one if it does. */
function textParameter(spec: ToolSpec, properties: Properties): string | undefined {
  const names = Object.keys(properties);
  const takesText = (name: string) => {
    const type = properties[name]?.type;
    return (
      type === undefined || type === 'string' || (Array.isArray(type) && type.includes('string'))
    );
  };
  if (names.length === 1) return names.filter(takesText)[0];
  const required = Array.isArray(spec.parameters.required) ? spec.parameters.required : [];
  const declared = required.filter((name): name is string => names.includes(String(name)));
  return declared.length === 1 ? declared.filter(takesText)[0] : undefined;
}

/** `expression = 2+2` or `query: "cats"` where the name is a declared parameter. */
function keywordArgument(
  text: string,
  properties: Properties,
): Record<string, unknown> | undefined {
  const match = /^([A-Za-z_]\w*)\s*[=:]\s*([\s\S]+)$/.exec(text);
  const name = match?.[1] ?? '';
  if (match === null || !Object.hasOwn(properties, name)) return undefined;
  const raw = (match[2] ?? '').trim();
  if (properties[name]?.type === 'string') return { [name]: unquote(raw) };
  try {
    return { [name]: JSON.parse(raw) as unknown };
  } catch {
    return { [name]: unquote(raw) };
  }
}

/** Removes one pair of matching quotes or backticks around the text. */
function unquote(text: string): string {
  const quoted = /^(["'`])([\s\S]*)\1$/.exec(text);
  if (quoted === null) return text;
  if (quoted[1] === '"') {
    try {
      return String(JSON.parse(text));
    } catch {
      // Not valid JSON string syntax: drop the quotes as written.
    }
  }
  return quoted[2] ?? '';
}
