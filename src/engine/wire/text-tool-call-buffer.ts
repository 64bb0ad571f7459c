import type { StreamChunk } from '../../core/index.js';
import { type FoundTextToolCalls, readTextToolCalls } from './formats/read-text-tool-calls.js';
import type { OfferedToolSet } from './formats/tool-call-format.js';
import { endChunk, type StreamEnd } from './stream-chunks.js';
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
): FoundTextToolCalls | undefined {
  let count = 0;
  return readTextToolCalls(content, tools, { model, generateId: () => makeId(count++) });
}

/**
 * Holds back the text of a stream while tool calls written as text may hide in it (some tools are named), and
 * passes every chunk straight on otherwise; at the end, the held text comes out with any such calls cut out.
 */
export class TextToolCallBuffer {
  #text = '';
  readonly #tools: OfferedToolSet;
  readonly #model: string | undefined;
  readonly #makeId: ToolCallIdFactory;

  constructor(tools: OfferedToolSet, model: string | undefined, makeId: ToolCallIdFactory) {
    this.#tools = tools;
    this.#model = model;
    this.#makeId = makeId;
  }

  /** Passes chunks on, keeping back the text deltas while text tool calls are looked for. */
  *pass(chunks: readonly StreamChunk[]): Generator<StreamChunk> {
    for (const chunk of chunks) {
      if (this.#tools.names.size > 0 && chunk.type === 'text_delta') this.#text += chunk.text;
      else yield chunk;
    }
  }

  /**
   * Ends the stream with the assembler's last chunks: the held text without the calls found in it (none are
   * looked for when `finish` has structured calls), the other last chunks, the found calls, the end chunk.
   */
  *end(finish: readonly StreamChunk[], end: StreamEnd): Generator<StreamChunk> {
    const hasNativeCalls = finish.some((chunk) => chunk.type === 'tool_call');
    const others = [...this.pass(finish)];
    const found =
      hasNativeCalls || this.#text === ''
        ? undefined
        : findTextToolCalls(this.#text, this.#tools, this.#model, this.#makeId);
    const calls = found?.toolCalls ?? [];
    const content = calls.length > 0 && found !== undefined ? found.content : this.#text;
    if (content !== '') yield { type: 'text_delta', text: content };
    yield* others;
    for (const toolCall of calls) yield { type: 'tool_call', toolCall };
    yield endChunk(calls.length > 0 ? { ...end, finishReason: 'tool_calls' } : end);
  }
}
