import { createParser, type ParseError } from 'eventsource-parser';
import {
  type FinishReason,
  type StreamChunk,
  type TokenUsage,
  ZERO_USAGE,
} from '../../core/index.js';
import type { StreamEnding, StreamReader } from '../http/chat-dialect.js';
import { ReasoningChunker } from '../wire/stream-chunks.js';
import {
  argumentsText,
  asRecord,
  normalizeToolCalls,
  type ToolCallIdFactory,
  WireFormatError,
} from '../wire/wire-format.js';
import {
  contentText,
  kindOf,
  parseUsage,
  reasoningField,
  reportServerError,
} from './openai-wire.js';

interface PartialToolCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Assembles an OpenAI SSE stream: feed each `data:` payload to `push` (text and reasoning deltas come out at
 * once, `<think>` blocks split out), and `finish` returns the tool calls, whole, once the stream has ended.
 */
export class OpenAIStreamAssembler {
  /** Whether a `finish_reason` arrived. */
  finishReason: FinishReason | undefined;
  /** Whether `[DONE]` arrived. */
  done = false;
  usage: TokenUsage = ZERO_USAGE;
  model: string;
  readonly #calls = new Map<number, PartialToolCall>();
  readonly #chunker = new ReasoningChunker();
  readonly #makeId: ToolCallIdFactory;

  constructor(requestedModel: string, makeId: ToolCallIdFactory) {
    this.model = requestedModel;
    this.#makeId = makeId;
  }

  /** Whether the stream ended properly (a terminator or a finish reason). */
  get complete(): boolean {
    return this.done || this.finishReason !== undefined;
  }

  /** Takes one SSE `data:` payload; returns the text and reasoning pieces it carries. */
  push(data: string): StreamChunk[] {
    if (data.trim() === '[DONE]') {
      this.done = true;
      return [];
    }
    const chunk = parseChunk(data);
    reportServerError(chunk);
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    if (asRecord(chunk.usage) !== undefined) this.usage = parseUsage(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? asRecord(chunk.choices[0]) : undefined;
    if (choice === undefined) return [];
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const delta = asRecord(choice.delta) ?? {};
    this.#addToolCalls(delta.tool_calls);
    return this.#textChunks(delta);
  }

  /** Ends the stream: releases held-back text and returns the assembled tool calls, in index order. */
  finish(): StreamChunk[] {
    const chunks = this.#chunker.flush();
    const ordered = [...this.#calls.entries()].sort(([left], [right]) => left - right);
    const calls = normalizeToolCalls(
      ordered.map(([, call]) => ({
        id: call.id,
        name: call.name,
        arguments: argumentsText(call.arguments),
      })),
      this.#makeId,
    );
    for (const toolCall of calls) chunks.push({ type: 'tool_call', toolCall });
    return chunks;
  }

  #textChunks(delta: Record<string, unknown>): StreamChunk[] {
    const reasoning = reasoningField(delta);
    const content = typeof delta.content === 'string' ? delta.content : contentText(delta.content);
    return this.#chunker.push(reasoning, content);
  }

  #addToolCalls(value: unknown): void {
    if (!Array.isArray(value)) return;
    for (const item of value) {
      const delta = asRecord(item);
      if (delta === undefined) continue;
      const call = this.#callFor(delta);
      const fn = asRecord(delta.function) ?? {};
      if (typeof fn.name === 'string' && fn.name !== '' && fn.name !== call.name)
        call.name += fn.name;
      if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
      else if (fn.arguments !== undefined && fn.arguments !== null)
        call.arguments = JSON.stringify(fn.arguments);
    }
  }

  /** The call a delta continues: by `index`, else by a new `id`, else the latest one. */
  #callFor(delta: Record<string, unknown>): PartialToolCall {
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined;
    let index = typeof delta.index === 'number' ? delta.index : undefined;
    if (index === undefined) {
      const known = [...this.#calls.entries()].find(
        ([, call]) => id !== undefined && call.id === id,
      );
      const latest = Math.max(-1, ...this.#calls.keys());
      index = known?.[0] ?? (id !== undefined || latest < 0 ? latest + 1 : latest);
    }
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { id, name: '', arguments: '' };
      this.#calls.set(index, call);
    }
    if (call.id === undefined && id !== undefined) call.id = id;
    return call;
  }
}

/** Longest SSE event accepted; a server that never ends a line cannot grow memory without bound. */
const SSE_MAX_BUFFER_CHARS = 16 * 1024 * 1024;

/** Reads an OpenAI SSE answer: events parsed by eventsource-parser, each `data:` payload fed to the assembler. */
export class OpenAISseReader implements StreamReader {
  readonly #assembler: OpenAIStreamAssembler;
  readonly #events: string[] = [];
  readonly #parser;
  #failure: ParseError | undefined;

  constructor(requestedModel: string, makeId: ToolCallIdFactory) {
    this.#assembler = new OpenAIStreamAssembler(requestedModel, makeId);
    this.#parser = createParser({
      onEvent: (event) => this.#events.push(event.data),
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.#failure = error;
      },
      maxBufferSize: SSE_MAX_BUFFER_CHARS,
    });
  }

  /** Whether `[DONE]` arrived. */
  get done(): boolean {
    return this.#assembler.done;
  }

  /** Feeds a piece of the body; returns the chunks of the events it completes, up to `[DONE]`. */
  push(text: string): StreamChunk[] {
    this.#parser.feed(text);
    if (this.#failure !== undefined) {
      throw new WireFormatError(
        'engine_protocol_error',
        `the event stream is malformed: ${this.#failure.message}`,
      );
    }
    const chunks: StreamChunk[] = [];
    for (const data of this.#events.splice(0)) {
      if (this.#assembler.done) break;
      chunks.push(...this.#assembler.push(data));
    }
    return chunks;
  }

  /** The tool calls and held text, once a finish reason or `[DONE]` arrived; else the stream was cut. */
  finish(): StreamEnding | undefined {
    const assembler = this.#assembler;
    if (!assembler.complete) return undefined;
    const chunks = assembler.finish();
    const end = {
      finishReason: assembler.finishReason ?? 'stop',
      usage: assembler.usage,
      model: assembler.model,
    };
    return { chunks, end };
  }
}

function parseChunk(data: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    const preview = data.length > 80 ? `${data.slice(0, 80)}…` : data;
    throw new WireFormatError(
      'engine_protocol_error',
      `a stream event is not valid JSON: ${JSON.stringify(preview)}`,
    );
  }
  const record = asRecord(value);
  if (record === undefined) {
    throw new WireFormatError(
      'engine_protocol_error',
      `a stream event is ${kindOf(value)}, expected a JSON object`,
    );
  }
  return record;
}
