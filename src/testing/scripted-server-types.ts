import type { IncomingHttpHeaders } from 'node:http';

/** A tool call the scripted model makes; `arguments` may be an object or JSON text. */
export interface ScriptedToolCallReply {
  /** The call id; generated when absent, left off the wire entirely when `null`. */
  readonly id?: string | null;
  readonly name: string;
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/** Token counts a scripted answer reports; missing counts are estimated from the text. */
export interface ScriptedUsage {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly totalTokens?: number;
}

/** A well-formed answer of the scripted model. */
export interface ScriptedAnswer {
  readonly content?: string;
  readonly toolCalls?: readonly ScriptedToolCallReply[];
  /** Reasoning text, sent as `reasoning_content` (OpenAI) or `message.thinking` (Ollama). */
  readonly reasoning?: string;
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  readonly finishReason?: string;
  /** Token counts; `null` leaves usage off the answer entirely. */
  readonly usage?: ScriptedUsage | null;
  /** The model named in the answer; defaults to the requested model. */
  readonly model?: string;
  /** OpenAI mode, non-streaming: send object `arguments` as a JSON object, as some non-conforming servers do. */
  readonly argumentsAsObject?: boolean;
}

/** An HTTP error answer. */
export interface ScriptedStatusFault {
  readonly fault: 'status';
  readonly status: number;
  /** Sent as the `Retry-After` header (seconds or an HTTP date). */
  readonly retryAfter?: number | string;
  /** The response body; a JSON error in the mode's format when absent. */
  readonly body?: string | Readonly<Record<string, unknown>>;
}

/** Waits `ms` (a real timer, cancelled when the server closes or the client goes away), then answers `then`. */
export interface ScriptedDelayFault {
  readonly fault: 'delay';
  readonly ms: number;
  readonly then: ScriptedReply;
}

/** Destroys the connection without answering. */
export interface ScriptedResetFault {
  readonly fault: 'reset';
}

/** Answers 200 with half of a JSON body (in a stream: one event whose JSON is cut in half). */
export interface ScriptedTruncatedJsonFault {
  readonly fault: 'truncated_json';
}

/** Starts the answer, sends `afterChunks` chunks, then destroys the connection with no terminator. */
export interface ScriptedCutStreamFault {
  readonly fault: 'cut_stream';
  readonly afterChunks: number;
  /** The answer being cut; a few words of text when absent. */
  readonly reply?: ScriptedAnswer;
}

/** Starts the answer, sends `afterChunks` chunks, then goes silent with the connection open (until close). */
export interface ScriptedStallFault {
  readonly fault: 'stall';
  readonly afterChunks: number;
  /** The answer being stalled; a few words of text when absent. */
  readonly reply?: ScriptedAnswer;
}

/**
 * Starts the answer and never finishes it: in a stream, one text piece (`text`, default `tick `) every
 * `intervalMs` on a real timer; without streaming, one space of JSON whitespace every `intervalMs`. It stops
 * when the client goes away or the server closes.
 */
export interface ScriptedTrickleFault {
  readonly fault: 'trickle';
  readonly intervalMs: number;
  readonly text?: string;
}

/** Any scripted misbehaviour of the server. */
export type ScriptedFault =
  | ScriptedStatusFault
  | ScriptedDelayFault
  | ScriptedResetFault
  | ScriptedTruncatedJsonFault
  | ScriptedCutStreamFault
  | ScriptedStallFault
  | ScriptedTrickleFault;

/** What the scripted server does with one model request: answer it, or misbehave. */
export type ScriptedReply = ScriptedAnswer | ScriptedFault;

/** A request the scripted server received. */
export interface RecordedRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body; `undefined` when the body was empty or not JSON. */
  readonly body: unknown;
  readonly rawBody: string;
}

/** Computes the reply to a model request (handler mode). */
export type ScriptedReplyHandler = (
  request: RecordedRequest,
) => ScriptedReply | Promise<ScriptedReply>;

/** What the scripted Ollama's `/api/show` reports about one model. */
export interface ScriptedModelDetails {
  /** The model's chat template (`template`); none when absent. */
  readonly template?: string;
  /** `details.family`; default `llama`. */
  readonly family?: string;
  /** `model_info['general.architecture']`; default the family. */
  readonly architecture?: string;
  /** The output parser Ollama runs for it (`parser`, e.g. `qwen3-coder`); none when absent. */
  readonly parser?: string;
  /** `capabilities`; default `['completion', 'tools']`. */
  readonly capabilities?: readonly string[];
}

/** Which API the scripted server speaks. */
export type ScriptedServerMode = 'openai' | 'ollama';

interface ScriptedServerCommonOptions {
  /** `openai` (default): `/v1/chat/completions`, `/v1/models`; `ollama`: `/api/chat`, `/api/tags`, `/api/version`. */
  readonly mode?: ScriptedServerMode;
  /** Model ids the model-list endpoint reports; default `['scripted-model']`. */
  readonly models?: readonly string[];
  /** When given, every model-list request gets this misbehaviour instead of the list. */
  readonly modelsFault?: ScriptedFault;
  /** Streamed text is cut into pieces of this many characters; default: one word per piece. */
  readonly streamChunkChars?: number;
  /**
   * Ollama mode: what `POST /api/show` answers per model (its details, or a misbehaviour); a model not listed
   * gets 404 `{"error": "model 'x' not found"}`, as Ollama answers.
   */
  readonly modelDetails?: Readonly<Record<string, ScriptedModelDetails | ScriptedFault>>;
}

/** Options of `startScriptedOpenAIServer`: a fixed script of replies, or a handler computing each reply. */
export type ScriptedServerOptions = ScriptedServerCommonOptions &
  (
    | { readonly script: readonly ScriptedReply[]; readonly handler?: never }
    | { readonly handler: ScriptedReplyHandler; readonly script?: never }
  );

/** A running scripted model server on 127.0.0.1. */
export interface ScriptedOpenAIServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `url + '/v1'`, the base URL OpenAI clients expect. */
  readonly baseUrl: string;
  readonly mode: ScriptedServerMode;
  /** Every request received, in order (model calls, model lists, unknown paths). */
  readonly requests: readonly RecordedRequest[];
  /** Model requests that arrived after the script ran out, or whose handler threw. */
  readonly unexpectedRequests: readonly RecordedRequest[];
  /** How many TCP connections clients have opened so far (keep-alive reuse keeps this low). */
  readonly connectionCount: number;
  /** Throws when scripted replies are left over or a request came that the script did not expect. */
  assertAllRepliesConsumed(): void;
  /** Stops the server, cancels pending delays and destroys every open connection; calling it twice is harmless. */
  close(): Promise<void>;
}
