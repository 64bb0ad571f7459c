import type { StreamChunk } from '../../core/index.js';
import { textChunks } from '../wire/stream-chunks.js';
import { type ParsedCompletion, WireFormatError } from '../wire/wire-format.js';
import type { StreamEnding, StreamReader } from './chat-dialect.js';

/** Largest JSON answer accepted in place of a stream (as HttpClient's default body limit). */
const MAX_JSON_ANSWER_CHARS = 64 * 1024 * 1024;

/** Reads the one JSON answer of a server that ignored `stream: true`, and replays it as a stream at the end. */
export class JsonAnswerReader implements StreamReader {
  /** A whole answer has no early end: the body is read to its last byte. */
  readonly done = false;
  readonly #parse: (body: unknown) => ParsedCompletion;
  #text = '';

  /** Reads the answer with `parse` (the dialect's parser of whole answers) once the body has ended. */
  constructor(parse: (body: unknown) => ParsedCompletion) {
    this.#parse = parse;
  }

  /** Collects a piece of the body; no chunk comes before the whole answer has arrived. */
  push(text: string): StreamChunk[] {
    this.#text += text;
    if (this.#text.length > MAX_JSON_ANSWER_CHARS) {
      throw new WireFormatError(
        'engine_protocol_error',
        'the answer is larger than the body limit',
      );
    }
    return [];
  }

  /** The answer's reasoning, text and tool calls as chunks, and its end. */
  finish(): StreamEnding {
    const parsed = this.#parse(parseJsonText(this.#text));
    const chunks = textChunks(parsed.reasoning, parsed.content);
    for (const toolCall of parsed.toolCalls) chunks.push({ type: 'tool_call', toolCall });
    return { chunks, end: parsed };
  }
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new WireFormatError('engine_protocol_error', 'the answer is not valid JSON');
  }
}
