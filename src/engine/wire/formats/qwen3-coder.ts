import { holdsTag, isTrimmedSpace, skipSpace } from '../text-scan.js';
import type { OfferedToolSet, ReadToolCalls, ToolCallFormat } from './tool-call-format.js';
import {
  argumentsJson,
  createCloseFinder,
  PARAMETER_CLOSE,
  type ParameterTags,
  readMarkedBlocks,
  readParameters,
  readTagText,
  THINK_TAGS,
  type XmlBlock,
  type XmlMiss,
} from './xml-parameters.js';

const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAMETER_OPEN = '<parameter=';

/** Options of `createFunctionTagFormat`. */
export interface FunctionTagFormatOptions {
  /** The format's stable name. */
  readonly name: string;
  /** The tag that wraps calls (`<tool_call>`); servers that drop special tokens show calls without it. */
  readonly open: string;
  /** The wrapper's closing tag (`</tool_call>`). */
  readonly close: string;
  /** Thinking sections whose text holds no calls. */
  readonly thinkTags: readonly (readonly [string, string])[];
}

/**
 * A format that writes each call as `<function=name>` followed by `<parameter=p>value</parameter>` blocks and
 * `</function>`, optionally wrapped in `open`/`close` (several functions may share one wrapper). Parameter
 * values are raw text typed by the tool's schema; a `</parameter>` counts only when a `<parameter=`,
 * `</function>`, the wrapper's close or the end follows it, so values may quote the tags. `</function>` and the
 * wrapper's close may be missing at the end of the output; a value without its `</parameter>` is truncated.
 */
export function createFunctionTagFormat(options: FunctionTagFormatOptions): ToolCallFormat {
  // Worked out once per format, not once per reply.
  const syntax: FunctionTagSyntax = {
    ...options,
    followers: [PARAMETER_OPEN, FUNCTION_CLOSE, options.close],
  };
  return {
    name: options.name,
    markers: [options.open, FUNCTION_OPEN],
    read(reply, tools) {
      try {
        return readFunctionTags(reply, tools, syntax);
      } catch {
        // Only a bug could land here (every step is bounded); a reply is never worth a crash.
        return undefined;
      }
    },
  };
}

interface FunctionTagSyntax extends FunctionTagFormatOptions {
  /** What may follow a `</parameter>` that closes a value. */
  readonly followers: readonly string[];
}

const FUNCTION_MARKERS = [FUNCTION_OPEN];

/**
 * Qwen3-Coder (and Qwen3.5): `<tool_call>\n<function=name>\n<parameter=p>\nvalue\n</parameter>\n</function>\n
 * </tool_call>`, several per reply, also without the `<tool_call>` wrapper.
 */
export const qwen3CoderFormat: ToolCallFormat = createFunctionTagFormat({
  name: 'qwen3-coder',
  open: '<tool_call>',
  close: '</tool_call>',
  thinkTags: THINK_TAGS,
});

function readFunctionTags(
  reply: string,
  tools: OfferedToolSet,
  options: FunctionTagSyntax,
): ReadToolCalls | undefined {
  const nextClose = createCloseFinder(reply, PARAMETER_CLOSE, options.followers);
  const read = (at: number, floor: number): XmlBlock | XmlMiss => {
    const call = readFunction(reply, at, tools, options.close, nextClose);
    if ('resume' in call) return call;
    const start = wrapperStart(reply, at, floor, options.open);
    const after = skipSpace(reply, call.end);
    const end = holdsTag(reply, after, options.close) ? after + options.close.length : call.end;
    return { start, end, calls: [{ name: call.name, arguments: call.arguments }], kept: [] };
  };
  return readMarkedBlocks(reply, {
    markers: FUNCTION_MARKERS,
    thinkTags: options.thinkTags,
    readBlock: (at, _marker, floor) => read(at, floor),
  });
}

interface FunctionCall {
  readonly name: string;
  readonly arguments: string;
  readonly end: number;
}

/** `<function=name>` at `at`, its parameters, and `</function>` (missing only before the wrapper's close or the end). */
function readFunction(
  text: string,
  at: number,
  tools: OfferedToolSet,
  wrapperClose: string,
  nextClose: (from: number) => number,
): FunctionCall | XmlMiss {
  const name = readTagText(text, at + FUNCTION_OPEN.length);
  if (name === undefined || !tools.names.has(name.value)) return { resume: at + 1 };
  const read = readParameters(
    text,
    name.end,
    PARAMETER_TAGS,
    wrapperClose,
    tools.parametersOf(name.value),
    nextClose,
  );
  if ('resume' in read) return read;
  const args = argumentsJson(read.entries);
  return args === undefined
    ? { resume: read.end }
    : { name: name.value, arguments: args, end: read.end };
}

const PARAMETER_TAGS: ParameterTags = {
  open: PARAMETER_OPEN,
  callClose: FUNCTION_CLOSE,
  key: (name) => name,
};

/** Where the call's text starts: at the wrapper right before `<function=` (only whitespace between), if any. */
function wrapperStart(text: string, at: number, floor: number, open: string): number {
  let index = at;
  while (index > floor && isTrimmedSpace(text.charCodeAt(index - 1))) index -= 1;
  const start = index - open.length;
  return start >= floor && holdsTag(text, start, open) ? start : at;
}
