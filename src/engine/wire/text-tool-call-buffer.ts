import type { StreamChunk } from '../../core/index.js';
import { toolCallFormatsFor } from './formats/family-formats.js';
import { type FoundTextToolCalls, readTextToolCalls } from './formats/read-text-tool-calls.js';
import type { OfferedToolSet, ToolCallFormat } from './formats/tool-call-format.js';
import { endChunk, type StreamEnd } from './stream-chunks.js';
import { MARKED_CALL_STARTS } from './text-tool-calls.js';
import type { ToolCallIdFactory } from './wire-format.js';

/**
 * The calls of the offered tools written in an answer text of `model` (any family's format); ids it must make
 * come from `makeId`, from 0.
 */
export function findTextToolCalls(
  content: string,
  tools: OfferedToolSet,
  model: string | undefined,
  makeId: ToolCallIdFactory,
  formats?: readonly ToolCallFormat[],
): FoundTextToolCalls | undefined {
  let count = 0;
  return readTextToolCalls(content, tools, {
    model,
    generateId: () => makeId(count++),
    ...(formats === undefined ? {} : { formats }),
  });
}

/**
 * Strings that can start a call in the common formats, besides each family's markers: a JSON or pythonic call
 * starts at `{` or `[`, a fenced one at a fence; `commentary` starts GPT-OSS calls whose tokens a server stripped.
 */
const COMMON_CALL_STARTS: readonly string[] = [
  ...MARKED_CALL_STARTS,
  '{',
  '[',
  '```',
  'commentary',
  '>>>',
];

/**
 * Streams the text of an answer while tool calls written as text may hide in it (some tools are offered): text
 * passes on as it comes up to the first place a call could start (a format's marker, `{`, `[`, a fence), and
 * from there on is held; at the end, the held text comes out with any calls found cut out. A stream whose text
 * never reaches such a place is passed on whole as it arrives. With no tool offered every chunk passes straight on.
 */
export class TextToolCallBuffer {
  /** Text passed on so far. */
  #emitted = '';
  /** Text not passed on yet: all of it once a call could have started, else a possible marker's beginning. */
  #pending = '';
  #holding = false;
  readonly #tools: OfferedToolSet;
  readonly #model: string | undefined;
  readonly #makeId: ToolCallIdFactory;
  readonly #starts: readonly string[];
  readonly #formats: readonly ToolCallFormat[] | undefined;

  constructor(
    tools: OfferedToolSet,
    model: string | undefined,
    makeId: ToolCallIdFactory,
    formats?: readonly ToolCallFormat[],
  ) {
    this.#tools = tools;
    this.#model = model;
    this.#makeId = makeId;
    this.#formats = formats;
    const markers = (formats ?? toolCallFormatsFor(model)).flatMap((format) => format.markers);
    this.#starts = [...new Set([...COMMON_CALL_STARTS, ...markers])].filter((m) => m !== '');
  }

  /** Passes chunks on; text deltas up to where a call could start, the rest is held until `end`. */
  *pass(chunks: readonly StreamChunk[]): Generator<StreamChunk> {
    for (const chunk of chunks) {
      if (this.#tools.names.size === 0 || chunk.type !== 'text_delta') {
        yield chunk;
        continue;
      }
      const out = this.#accept(chunk.text);
      if (out !== '') yield { type: 'text_delta', text: out };
    }
  }

  /**
   * Ends the stream with the assembler's last chunks: the held text without the calls found in the whole
   * answer (none are looked for when `finish` has structured calls), the other last chunks, the found calls, the
   * end chunk.
   */
  *end(finish: readonly StreamChunk[], end: StreamEnd): Generator<StreamChunk> {
    const hasNativeCalls = finish.some((chunk) => chunk.type === 'tool_call');
    const others: StreamChunk[] = [];
    for (const chunk of finish) {
      if (chunk.type === 'text_delta' && this.#tools.names.size > 0) this.#pending += chunk.text;
      else others.push(chunk);
    }
    const whole = this.#emitted + this.#pending;
    const found =
      hasNativeCalls || this.#tools.names.size === 0 || whole === ''
        ? undefined
        : findTextToolCalls(whole, this.#tools, this.#model, this.#makeId, this.#formats);
    const calls = found?.toolCalls ?? [];
    const rest =
      found !== undefined && calls.length > 0
        ? found.content.slice(commonPrefixLength(this.#emitted, found.content))
        : this.#pending;
    if (rest !== '') yield { type: 'text_delta', text: rest };
    yield* others;
    for (const toolCall of calls) yield { type: 'tool_call', toolCall };
    yield endChunk(calls.length > 0 ? { ...end, finishReason: 'tool_calls' } : end);
  }

  /** Takes a text delta; returns what may be passed on now. */
  #accept(text: string): string {
    this.#pending += text;
    if (this.#holding) return '';
    const at = firstIndexOfAny(this.#pending, this.#starts);
    const cut =
      at === -1 ? this.#pending.length - partialStartLength(this.#pending, this.#starts) : at;
    if (at !== -1) this.#holding = true;
    const out = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
    this.#emitted += out;
    return out;
  }
}

/** The first index in `text` at which any of `needles` occurs, or -1. */
function firstIndexOfAny(text: string, needles: readonly string[]): number {
  let first = -1;
  for (const needle of needles) {
    const at = text.indexOf(needle);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  return first;
}

/** How long the end of `text` is that could be the beginning of one of `needles` (held until it is known). */
function partialStartLength(text: string, needles: readonly string[]): number {
  let longest = 0;
  for (const needle of needles) {
    for (let length = Math.min(needle.length - 1, text.length); length > longest; length -= 1) {
      if (text.endsWith(needle.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

/** How many leading characters `a` and `b` share. */
function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}
