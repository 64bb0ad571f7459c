import {
  type FinishReason,
  type StreamChunk,
  type TokenUsage,
  ZERO_USAGE,
} from '../../core/index.js';
import type { StreamEnding, StreamReader } from '../http/chat-dialect.js';
import { ReasoningChunker } from '../wire/stream-chunks.js';
import {
  asRecord,
  normalizeToolCalls,
  type ToolCallIdFactory,
  WireFormatError,
} from '../wire/wire-format.js';
import {
  asOllamaObject,
  modelOf,
  ollamaFinishReason,
  ollamaToolCalls,
  ollamaUsage,
  stringField,
} from './ollama-wire.js';

/** The longest NDJSON line accepted (a runaway line would otherwise grow without bound). */
export const MAX_NDJSON_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Cuts a stream of text pieces into newline-delimited JSON lines; a line may be split across any number of
 * pieces. Blank lines are skipped and a trailing `\r` is dropped.
 */
export class NdjsonLineSplitter {
  #pending: string[] = [];
  #pendingChars = 0;

  /** Takes the next piece of text; returns the lines it completes. */
  push(text: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.#pending.push(text.slice(start, end));
      lines.push(this.#take());
      start = end + 1;
    }
    if (start < text.length) this.#hold(text.slice(start));
    return lines.filter((line) => line.trim() !== '');
  }

  /** Ends the stream: the last line, when it had no newline. */
  flush(): string[] {
    const line = this.#take();
    return line.trim() === '' ? [] : [line];
  }

  #hold(piece: string): void {
    this.#pending.push(piece);
    this.#pendingChars += piece.length;
    if (this.#pendingChars > MAX_NDJSON_LINE_CHARS) {
      throw new WireFormatError(
        'engine_protocol_error',
        `a stream line is longer than ${MAX_NDJSON_LINE_CHARS} characters`,
      );
    }
  }

  #take(): string {
    const line = this.#pending.join('');
    this.#pending = [];
    this.#pendingChars = 0;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}

/**
 * Assembles an Ollama `/api/chat` NDJSON stream: feed each line to `push` (the `thinking` field and `<think>`
 * blocks come out as reasoning, the rest as text, at once); `finish` returns the tool calls, whole and with
 * ids, once the line with `"done": true` has arrived.
 */
export class OllamaStreamAssembler {
  /** Whether the line with `"done": true` arrived. */
  done = false;
  finishReason: FinishReason = 'stop';
  usage: TokenUsage = ZERO_USAGE;
  model: string;
  readonly #calls: ReturnType<typeof ollamaToolCalls> = [];
  readonly #chunker = new ReasoningChunker();
  readonly #makeId: ToolCallIdFactory;

  constructor(requestedModel: string, makeId: ToolCallIdFactory) {
    this.model = requestedModel;
    this.#makeId = makeId;
  }

  /** Takes one NDJSON line; returns the reasoning and text pieces it carries. */
  push(line: string): StreamChunk[] {
    const root = asOllamaObject(parseLine(line), 'a stream line');
    this.model = modelOf(root, this.model);
    const message = asRecord(root.message) ?? {};
    for (const call of ollamaToolCalls(message.tool_calls)) this.#calls.push(call);
    const chunks = this.#chunker.push(
      stringField(message, 'thinking'),
      stringField(message, 'content'),
    );
    if (root.done === true) {
      this.done = true;
      this.finishReason = ollamaFinishReason(root, this.#calls.length > 0);
      this.usage = ollamaUsage(root);
    }
    return chunks;
  }

  /** Ends the stream: releases held-back text and returns the tool calls, in the order they came. */
  finish(): StreamChunk[] {
    const chunks = this.#chunker.flush();
    for (const toolCall of normalizeToolCalls(this.#calls, this.#makeId)) {
      chunks.push({ type: 'tool_call', toolCall });
    }
    return chunks;
  }
}

/** Reads an Ollama NDJSON answer: pieces cut into lines, each line fed to the assembler, up to `"done": true`. */
export class OllamaNdjsonReader implements StreamReader {
  readonly #lines = new NdjsonLineSplitter();
  readonly #assembler: OllamaStreamAssembler;

  constructor(requestedModel: string, makeId: ToolCallIdFactory) {
    this.#assembler = new OllamaStreamAssembler(requestedModel, makeId);
  }

  /** Whether the line with `"done": true` arrived. */
  get done(): boolean {
    return this.#assembler.done;
  }

  /** Feeds a piece of the body; returns the chunks of the lines it completes, up to the done line. */
  push(text: string): StreamChunk[] {
    return this.#pushLines(this.#lines.push(text));
  }

  /** The last line (when it had no newline), then the tool calls and held text; none when no done line came. */
  finish(): StreamEnding | undefined {
    const last = this.done ? [] : this.#pushLines(this.#lines.flush());
    const assembler = this.#assembler;
    if (!assembler.done) return undefined;
    const chunks = [...last, ...assembler.finish()];
    const end = {
      finishReason: assembler.finishReason,
      usage: assembler.usage,
      model: assembler.model,
    };
    return { chunks, end };
  }

  #pushLines(lines: readonly string[]): StreamChunk[] {
    const chunks: StreamChunk[] = [];
    for (const line of lines) {
      if (this.#assembler.done) break;
      chunks.push(...this.#assembler.push(line));
    }
    return chunks;
  }
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    const preview = line.length > 80 ? `${line.slice(0, 80)}…` : line;
    throw new WireFormatError(
      'engine_protocol_error',
      `a stream line is not valid JSON: ${JSON.stringify(preview)}`,
    );
  }
}
