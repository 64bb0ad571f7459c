import { readLenientJsonSpan } from '../lenient-json.js';
import { skipSpace } from '../text-scan.js';
import { argumentsText } from '../text-tool-calls.js';
import {
  type BlockReader,
  jsonBlockReader,
  type MarkedBlock,
  readMarkedBlocks,
  skipEndToken,
} from './json-list-markers.js';
import type { ToolCallFormat } from './tool-call-format.js';

/** The tags llama.cpp's Hermes 2 Pro reader accepts around a `{"name": …, "arguments": {…}}` object. */
const HERMES_TAGS = [
  'tool_call',
  'function_call',
  'tool',
  'tools',
  'response',
  'json',
  'JSON',
  'xml',
] as const;

/** Longest tool name read from `<function=…>` (a longer one is not a tag). */
const MAX_NAME_LENGTH = 256;
const FUNCTION_CLOSE = '</function>';

/**
 * Reads `name>{…arguments}</function>` after `<function=`, and `name">{…}</function>` after
 * `<function name="`: the name runs to `nameEnd`, the arguments are a JSON object, the closing tag may be missing.
 */
function functionTagReader(nameEnd: string): BlockReader {
  return (text, start, limit, tools) => {
    const bound = Math.min(limit, start + MAX_NAME_LENGTH + nameEnd.length);
    const head = text.slice(start, bound).indexOf(nameEnd);
    if (head === -1) return undefined;
    const close = start + head;
    const name = text.slice(start, close).trim();
    if (!tools.names.has(name)) return undefined;
    let at = close + nameEnd.length;
    if (nameEnd !== '>') {
      at = skipSpace(text, at, limit);
      if (text.charAt(at) !== '>' || at >= limit) return undefined;
      at += 1;
    }
    const value = readLenientJsonSpan(text, at, limit);
    const isObject = typeof value?.value === 'object' && value.value !== null;
    const args =
      value === undefined || !isObject ? undefined : argumentsText(value.value, value.span);
    if (value === undefined || args === undefined) return undefined;
    let end = value.end;
    const after = skipSpace(text, end, limit);
    if (text.startsWith(FUNCTION_CLOSE, after) && after + FUNCTION_CLOSE.length <= limit) {
      end = after + FUNCTION_CLOSE.length;
    }
    return { calls: [{ name, arguments: args }], end: skipEndToken(text, end, limit) };
  };
}

/** `<function=name>{…}</function>` and `<function name="name">{…}</function>` (Llama 3.1 / Functionary v3.1). */
export const FUNCTION_TAG_BLOCKS: readonly MarkedBlock[] = [
  { marker: '<function=', read: functionTagReader('>') },
  { marker: '<function name="', read: functionTagReader('"') },
];

function tagBlock(tag: string): MarkedBlock {
  return { marker: `<${tag}>`, read: jsonBlockReader({ close: `</${tag}>` }) };
}

const HERMES_BLOCKS: readonly MarkedBlock[] = [
  ...HERMES_TAGS.map(tagBlock),
  ...FUNCTION_TAG_BLOCKS,
];

/**
 * Hermes 2 Pro and the variants llama.cpp's generic Hermes reader meets: a `{"name": …, "arguments": {…}}`
 * object (or a list of them) in `<tool_call>`, `<function_call>`, `<tool>`, `<tools>`, `<response>`,
 * `<json>`, `<JSON>` or `<xml>` with the matching closing tag (which may be missing at the end), optionally
 * in a ```` ```json ```` fence inside the tag or as the whole reply; and `<function=name>{…}</function>` /
 * `<function name="name">{…}</function>`. A block that holds no call (Granite's `<response>text</response>`)
 * stays in the text.
 */
export const hermesVariantsFormat: ToolCallFormat = {
  name: 'hermes',
  markers: HERMES_BLOCKS.map((block) => block.marker),
  read: (reply, tools) => readMarkedBlocks(reply, HERMES_BLOCKS, tools),
};

const QWEN_CODER_BLOCKS: readonly MarkedBlock[] = [tagBlock('tools'), tagBlock('tool_call')];

/**
 * Qwen2.5-Coder with a `<tools>` prompt: `<tools>{"name": …, "arguments": {…}}</tools>`, the body one
 * object, a list, or objects one per line (JSON Lines) or separated by commas; the Hermes `<tool_call>` that
 * Qwen2.5 writes is read too. The closing tag may be missing at the end.
 */
export const qwen25CoderFormat: ToolCallFormat = {
  name: 'qwen2.5-coder',
  markers: QWEN_CODER_BLOCKS.map((block) => block.marker),
  read: (reply, tools) => readMarkedBlocks(reply, QWEN_CODER_BLOCKS, tools),
};
