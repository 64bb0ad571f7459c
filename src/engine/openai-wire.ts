import { createParser, type ParseError } from 'eventsource-parser';
import {
  type EngineErrorCode,
  type FinishReason,
  type GenerateOptions,
  type Message,
  type StreamChunk,
  splitReasoning,
  type TokenUsage,
  type ToolCall,
  ZERO_USAGE,
} from '../core/index.js';
import { joinReasoning, ReasoningChunker } from './stream-chunks.js';

/** A server answer that does not follow the OpenAI format (or reports an error inside a 200 answer). */
export class WireFormatError extends Error {
  constructor(
    readonly code: Extract<EngineErrorCode, 'engine_protocol_error' | 'engine_model_error'>,
    message: string,
  ) {
    super(message);
    this.name = 'WireFormatError';
  }
}

/** Makes the id of the n-th tool call of an answer when the server gave none (or a duplicate). */
export type ToolCallIdFactory = (index: number) => string;

/** Ids of the form `call_<n>_<8 random base-36 characters>`, drawn from `random`. */
export function createToolCallIdFactory(random: () => number = Math.random): ToolCallIdFactory {
  return (index) => {
    let suffix = '';
    for (let i = 0; i < 8; i += 1) suffix += Math.floor(random() * 36).toString(36);
    return `call_${index}_${suffix}`;
  };
}

/** Converts core messages to OpenAI Chat Completions messages. */
export function toOpenAIMessages(messages: readonly Message[]): Record<string, unknown>[] {
  return messages.map((message) => {
    const wire: Record<string, unknown> = { role: message.role, content: message.content };
    if (message.name) wire.name = message.name;
    if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
      wire.tool_calls = message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
      }));
    }
    if (message.toolCallId) wire.tool_call_id = message.toolCallId;
    return wire;
  });
}

/** How a streamed request is asked for. */
export interface StreamRequestOptions {
  readonly stream: boolean;
  /** Ask for a final usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

/** The JSON body of a `/v1/chat/completions` request. */
export function buildChatCompletionBody(
  messages: readonly Message[],
  options: GenerateOptions,
  streaming: StreamRequestOptions,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: toOpenAIMessages(messages),
    stream: streaming.stream,
  };
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
  if (options.tools !== undefined && options.tools.length > 0) {
    body.tools = options.tools;
    if (options.toolChoice !== undefined) body.tool_choice = options.toolChoice;
  }
  if (streaming.stream && streaming.includeUsage) body.stream_options = { include_usage: true };
  return body;
}

/** A parsed (non-streamed) chat completion. */
export interface ParsedCompletion {
  readonly content: string;
  readonly reasoning: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage;
  readonly model: string;
}

/** Reads a `chat.completion` body; throws `WireFormatError` when it is not one. */
export function parseChatCompletion(
  body: unknown,
  requestedModel: string,
  makeId: ToolCallIdFactory,
): ParsedCompletion {
  const root = asRecord(body);
  if (root === undefined)
    throw new WireFormatError('engine_protocol_error', `expected a JSON object, got ${kind(body)}`);
  reportServerError(root);
  const choice = Array.isArray(root.choices) ? asRecord(root.choices[0]) : undefined;
  const message = asRecord(choice?.message);
  if (choice === undefined || message === undefined) {
    throw new WireFormatError('engine_protocol_error', 'expected choices[0].message in the answer');
  }
  const split = splitReasoning(contentText(message.content));
  const fieldReasoning = reasoningField(message);
  const toolCalls = normalizeToolCalls(toolCallList(message.tool_calls), makeId);
  return {
    content: split.content,
    reasoning: joinReasoning(fieldReasoning, split.reasoning),
    toolCalls,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop',
    usage: parseUsage(root.usage),
    model: typeof root.model === 'string' && root.model !== '' ? root.model : requestedModel,
  };
}

/** Throws the error a server reported inside a 200 answer (`{"error": …}`). */
function reportServerError(root: Record<string, unknown>): void {
  if (root.error === undefined || root.error === null) return;
  const error = asRecord(root.error);
  const message = typeof error?.message === 'string' ? error.message : JSON.stringify(root.error);
  throw new WireFormatError('engine_model_error', `the server reported an error: ${message}`);
}

function reasoningField(record: Record<string, unknown>): string {
  const value = record.reasoning_content ?? record.reasoning;
  return typeof value === 'string' ? value : '';
}

/** Message content as text: a string, `null`, or an array of `{type: 'text', text}` parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      const record = asRecord(part);
      return typeof record?.text === 'string' ? record.text : '';
    })
    .join('');
}

interface RawToolCall {
  readonly id: unknown;
  readonly name: string;
  readonly arguments: string;
}

function toolCallList(value: unknown): RawToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const call = asRecord(item);
    const fn = asRecord(call?.function);
    if (call === undefined || fn === undefined || typeof fn.name !== 'string') return [];
    return [{ id: call.id, name: fn.name, arguments: argumentsText(fn.arguments) }];
  });
}

/** Tool-call arguments as JSON text; servers that send an object get it serialised. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value.trim() === '' ? '{}' : value;
  if (value === undefined || value === null) return '{}';
  return JSON.stringify(value);
}

/** Gives every call a non-empty id that no other call of the answer has. */
export function normalizeToolCalls(
  calls: readonly RawToolCall[],
  makeId: ToolCallIdFactory,
): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    let id =
      typeof call.id === 'string' && call.id !== '' && !seen.has(call.id) ? call.id : makeId(index);
    while (seen.has(id)) id = makeId(index);
    seen.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
}

/** OpenAI usage to core usage: missing or malformed counts become 0, a missing total is the sum. */
export function parseUsage(value: unknown): TokenUsage {
  const usage = asRecord(value);
  if (usage === undefined) return ZERO_USAGE;
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  return {
    promptTokens,
    completionTokens,
    totalTokens: total > 0 ? total : promptTokens + completionTokens,
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** The object behind a value, or `undefined` when it is not a plain JSON object. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

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

/** The `data` of each SSE event in a stream of text pieces (parsed by eventsource-parser). */
export async function* sseData(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  const events: string[] = [];
  let failure: ParseError | undefined;
  const parser = createParser({
    onEvent: (event) => events.push(event.data),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') failure = error;
    },
    maxBufferSize: SSE_MAX_BUFFER_CHARS,
  });
  for await (const text of chunks) {
    parser.feed(text);
    if (failure !== undefined) {
      throw new WireFormatError(
        'engine_protocol_error',
        `the event stream is malformed: ${failure.message}`,
      );
    }
    yield* events.splice(0);
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
      `a stream event is ${kind(value)}, expected a JSON object`,
    );
  }
  return record;
}
