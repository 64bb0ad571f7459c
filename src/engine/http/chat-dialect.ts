import type { IncomingHttpHeaders } from 'node:http';
import type { EngineError, GenerateOptions, Message, StreamChunk } from '../../core/index.js';
import type { ToolCallFormatChoice } from '../wire/formats/template-formats.js';
import type { StreamEnd } from '../wire/stream-chunks.js';
import type { ParsedCompletion, ToolCallIdFactory } from '../wire/wire-format.js';

/** How a streamed answer ended: the chunks its last piece completes, and its end. */
export interface StreamEnding {
  readonly chunks: readonly StreamChunk[];
  readonly end: StreamEnd;
}

/**
 * Reads one streamed answer as its text arrives: `push` each piece (a piece may hold part of an event, or
 * several), stop reading once `done`, then `finish`. Malformed input throws `WireFormatError`.
 */
export interface StreamReader {
  /** Takes the next piece of the body; returns the chunks it completes. */
  push(text: string): StreamChunk[];
  /** Whether the answer's last event arrived (the rest of the body is not needed). */
  readonly done: boolean;
  /** Ends the answer: its last chunks and its end, or `undefined` when the body ended before the answer did. */
  finish(): StreamEnding | undefined;
}

/** The request an HTTP error answered: its path, and the model it asked for (none for the model list). */
export interface ChatRequestContext {
  readonly path: string;
  readonly model?: string;
}

/** One JSON request a dialect sends to learn about a model. */
export interface DialectJsonBody {
  /** Path under the server's address (`/api/show`). */
  readonly path: string;
  /** Sent as JSON. */
  readonly body: unknown;
  /** The model it is about, named in errors and logs. */
  readonly model: string;
  /** Longest wait for the answer (one attempt, no retries). */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** Sends a dialect's request on the engine's connections; resolves to the 2xx JSON body, rejects on any failure. */
export type DialectJsonRequest = (request: DialectJsonBody) => Promise<unknown>;

/**
 * The wire format of one kind of chat server, as `HttpChatEngine` uses it: where to send, how to write the
 * request, how to read whole and streamed answers and the model list, and what an HTTP error means for the user.
 */
export interface ChatDialect {
  /** Path of the chat endpoint (`/v1/chat/completions`, `/api/chat`). */
  readonly chatPath: string;
  /** Path of the model list. */
  readonly modelsPath: string;
  /** Path whose GET answers when the server is up. */
  readonly healthPath: string;
  /** What a cut-off stream lacked, for its `engine_stream_cut` error. */
  readonly streamCutDetail: string;
  /** The JSON body of a chat request. */
  buildBody(
    messages: readonly Message[],
    options: GenerateOptions,
    stream: boolean,
  ): Record<string, unknown>;
  /** Reads a whole answer; throws `WireFormatError` when it is not one. */
  parseAnswer(body: unknown, requestedModel: string, makeId: ToolCallIdFactory): ParsedCompletion;
  /** Reads the model list; throws `WireFormatError` when it is not one. */
  parseModels(body: unknown): string[];
  /** A reader for a streamed answer with these response headers. */
  openStream(
    headers: IncomingHttpHeaders,
    requestedModel: string,
    makeId: ToolCallIdFactory,
  ): StreamReader;
  /** An HTTP error as an error that says what to do, or `undefined` to keep it as it is. */
  describeHttpError(error: unknown, request: ChatRequestContext): EngineError | undefined;
  /**
   * The formats `model` writes tool calls as text in, from what the server says about it (Ollama's template);
   * never rejects. Absent: chosen from the model's name.
   */
  toolCallFormats?(
    model: string,
    request: DialectJsonRequest,
    signal: AbortSignal | undefined,
  ): Promise<ToolCallFormatChoice>;
}
