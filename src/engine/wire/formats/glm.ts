import { holdsTag, trimmedSlice } from '../text-scan.js';
import type { OfferedToolSet, ReadToolCalls, ToolCallFormat } from './tool-call-format.js';
import {
  argumentsJson,
  createCloseFinder,
  MAX_NAME_LENGTH,
  propertySchema,
  readMarkedBlocks,
  THINK_TAGS,
  typedParameter,
  type XmlBlock,
  type XmlMiss,
} from './xml-parameters.js';

const CALL_OPEN = '<tool_call>';
const CALL_CLOSE = '</tool_call>';
const KEY_OPEN = '<arg_key>';
const KEY_CLOSE = '</arg_key>';
const VALUE_OPEN = '<arg_value>';
const VALUE_CLOSE = '</arg_value>';

/**
 * GLM-4.5, 4.6 and 4.7: `<tool_call>name\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n…</tool_call>` (4.7
 * writes no line breaks), one call per block, values typed by the tool's schema. An `</arg_value>` counts only
 * when `<arg_key>`, `</tool_call>` or the end follows it; `</tool_call>` may be missing at the end of the output.
 * A block whose first line is not an offered tool's name (Hermes JSON, say) is not this format's.
 */
export const glmFormat: ToolCallFormat = {
  name: 'glm-4.5',
  markers: [CALL_OPEN],
  read(reply, tools) {
    try {
      return readGlm(reply, tools);
    } catch {
      // Only a bug could land here (every step is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
};

const VALUE_FOLLOWERS = [KEY_OPEN, CALL_CLOSE];
const MARKERS = [CALL_OPEN];

function readGlm(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined {
  const nextClose = createCloseFinder(reply, VALUE_CLOSE, VALUE_FOLLOWERS, skipGap);
  return readMarkedBlocks(reply, {
    markers: MARKERS,
    thinkTags: THINK_TAGS,
    readBlock: (at) => readCall(reply, at, tools, nextClose),
  });
}

function readCall(
  text: string,
  at: number,
  tools: OfferedToolSet,
  nextClose: (from: number) => number,
): XmlBlock | XmlMiss {
  const nameStart = at + CALL_OPEN.length;
  const nameEnd = endOfName(text, nameStart);
  const name = nameEnd === -1 ? '' : trimmedSlice(text, nameStart, nameEnd);
  if (!tools.names.has(name)) return { resume: nameStart };
  const schema = tools.parametersOf(name);
  const entries: [string, unknown][] = [];
  let index = nameEnd;
  for (;;) {
    index = skipGap(text, index);
    if (holdsTag(text, index, CALL_CLOSE)) {
      index += CALL_CLOSE.length;
      break;
    }
    if (index >= text.length && entries.length > 0) break;
    const pair = readPair(text, index, nextClose);
    if (pair === undefined) return { resume: index + 1 };
    entries.push([pair.key, typedParameter(pair.raw, propertySchema(schema, pair.key))]);
    index = pair.end;
  }
  const args = argumentsJson(entries);
  if (args === undefined) return { resume: index };
  return { start: at, end: index, calls: [{ name, arguments: args }], kept: [] };
}

/** The name ends at the first line break or tag; a long first line is not a name. */
function endOfName(text: string, start: number): number {
  const stop = Math.min(text.length, start + MAX_NAME_LENGTH + 1);
  for (let at = start; at < stop; at += 1) {
    const char = text.charAt(at);
    if (char === '\n' || char === '<') return at;
  }
  return stop === text.length ? stop : -1;
}

/** `<arg_key>k</arg_key>` then `<arg_value>v</arg_value>`, at `index`. */
function readPair(
  text: string,
  index: number,
  nextClose: (from: number) => number,
): { readonly key: string; readonly raw: string; readonly end: number } | undefined {
  if (!holdsTag(text, index, KEY_OPEN)) return undefined;
  const keyStart = index + KEY_OPEN.length;
  const keyEnd = endOfName(text, keyStart);
  if (keyEnd === -1 || !holdsTag(text, keyEnd, KEY_CLOSE)) return undefined;
  const key = trimmedSlice(text, keyStart, keyEnd);
  const valueOpen = skipGap(text, keyEnd + KEY_CLOSE.length);
  if (key === '' || !holdsTag(text, valueOpen, VALUE_OPEN)) return undefined;
  const valueStart = valueOpen + VALUE_OPEN.length;
  const close = nextClose(valueStart);
  if (close === -1) return undefined;
  return { key, raw: text.slice(valueStart, close), end: close + VALUE_CLOSE.length };
}

/** Whitespace between tags; GLM-4.7 sometimes writes the two characters `\n` there too. */
function skipGap(text: string, at: number): number {
  let index = at;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) index += 1;
    else if (code === 0x5c && text.charAt(index + 1) === 'n') index += 2;
    else return index;
  }
}
