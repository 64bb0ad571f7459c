import { type ChatEvent, chatEventOf, object, text } from './chat-protocol.js';
import { SseParser } from './sse-parser.js';

/** A failed API request: the HTTP status (0 when the server could not be reached) and the server's message. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, message: string, code: string) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
    this.code = code;
  }
}

/** Options of an `ApiClient`. */
export interface ApiClientOptions {
  /** The API key to send as Bearer, if any (read on every request). */
  readonly key: () => string | undefined;
  /** Default: the page's `fetch`. */
  readonly fetch?: typeof fetch;
}

/** A chat question: the input and the session it continues (none starts a new one). */
export interface ChatQuestion {
  readonly input: string;
  readonly session?: string | undefined;
}

/** Reads the server's `/api` (same origin as the page), sending the API key when there is one. */
export class ApiClient {
  readonly #options: ApiClientOptions;

  constructor(options: ApiClientOptions) {
    this.#options = options;
  }

  /** The JSON answer of a GET; an error status is an `ApiFailure` with the server's message. */
  async getJson(path: string, signal?: AbortSignal): Promise<unknown> {
    const response = await this.#fetch(path, { method: 'GET', ...(signal ? { signal } : {}) });
    return response.json() as Promise<unknown>;
  }

  /** Asks a question and yields the chat's events as they arrive; `signal` stops the run. */
  async *chat(question: ChatQuestion, signal?: AbortSignal): AsyncGenerator<ChatEvent> {
    const body = JSON.stringify(
      question.session === undefined ? { input: question.input } : question,
    );
    const response = await this.#fetch('/api/chat', {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json' },
      ...(signal ? { signal } : {}),
    });
    if (response.body === null) throw new ApiFailure(response.status, 'The answer had no body', '');
    yield* chatEvents(response.body);
  }

  async #fetch(path: string, init: RequestInit): Promise<Response> {
    const key = this.#options.key();
    const headers = new Headers(init.headers);
    headers.set('Accept', path === '/api/chat' ? 'text/event-stream' : 'application/json');
    if (key !== undefined && key !== '') headers.set('Authorization', `Bearer ${key}`);
    const doFetch = this.#options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(path, { ...init, headers });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiFailure(0, 'The server could not be reached', 'unreachable');
    }
    if (!response.ok) throw await failureOf(response);
    return response;
  }
}

/** The chat events of an SSE body, in order (events the page does not know are skipped). */
export async function* chatEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const messages = done
        ? parser.push(decoder.decode()).concat(parser.end())
        : parser.push(decoder.decode(value, { stream: true }));
      for (const message of messages) {
        const event = chatEventOf(message.event, message.data);
        if (event !== undefined) yield event;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function failureOf(response: Response): Promise<ApiFailure> {
  let message = `The server answered ${response.status} ${response.statusText}`.trim();
  let code = '';
  try {
    const error = object((await response.json()) as Record<string, unknown>, 'error');
    message = text(error, 'message') || message;
    code = text(error, 'code');
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiFailure(response.status, message, code);
}
