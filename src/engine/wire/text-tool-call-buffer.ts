import type { StreamChunk } from '../../core/index.js';
import { endChunk, type StreamEnd } from './stream-chunks.js';
import { extractTextToolCalls, type TextToolCalls } from './text-tool-calls.js';
import type { ToolCallIdFactory } from './wire-format.js';

/** The calls of the named tools written in an answer text; ids it must make come from `makeId`, from 0. */
export function findTextToolCalls(
  content: string,
  names: readonly string[],
  makeId: ToolCallIdFactory,
): TextToolCalls | undefined {
  let count = 0;
  return extractTextToolCalls(content, names, { generateId: () => makeId(count++) });
}

/**
 * Holds back the text of a stream while tool calls written as text may hide in it (some tools are named), and
 * passes every chunk straight on otherwise; at the end, the held text comes out with any such calls cut out.
 */
export class TextToolCallBuffer {
  #text = '';
  readonly #names: readonly string[];
  readonly #makeId: ToolCallIdFactory;

  constructor(names: readonly string[], makeId: ToolCallIdFactory) {
    this.#names = names;
    this.#makeId = makeId;
  }

  /** Passes chunks on, keeping back the text deltas while text tool calls are looked for. */
  *pass(chunks: readonly StreamChunk[]): Generator<StreamChunk> {
    for (const chunk of chunks) {
      if (this.#names.length > 0 && chunk.type === 'text_delta') this.#text += chunk.text;
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
        : findTextToolCalls(this.#text, this.#names, this.#makeId);
    const calls = found?.toolCalls ?? [];
    const content = calls.length > 0 && found !== undefined ? found.content : this.#text;
    if (content !== '') yield { type: 'text_delta', text: content };
    yield* others;
    for (const toolCall of calls) yield { type: 'tool_call', toolCall };
    yield endChunk(calls.length > 0 ? { ...end, finishReason: 'tool_calls' } : end);
  }
}
