import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Dispatcher, Pool } from 'undici';
import {
  type Clock,
  describeError,
  EngineError,
  type EngineErrorCode,
  JarvisError,
  systemClock,
} from '../core/index.js';

/** Waits `ms` milliseconds; rejects when `signal` aborts first. */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options of an `HttpClient`: one server, one keep-alive connection pool. */
export interface HttpClientOptions {
  /** `http(s)://host:port` with an optional path prefix that every request path is appended to. */
  readonly baseUrl: string;
  /** Named in every error (`vllm`, `ollama`, …). */
  readonly engineId: string;
  /** Sent with every request (for example `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Longest wait for one attempt: the whole answer for JSON, the headers and each gap between chunks for streams. */
  readonly timeoutMs?: number;
  /** Extra attempts after a transient failure; default 2 (3 attempts in all). */
  readonly maxRetries?: number;
  /** First backoff step; each retry doubles it, plus jitter. Default 500 ms. */
  readonly retryBaseDelayMs?: number;
  /** Cap of any wait between attempts, `Retry-After` included. Default 30 s. */
  readonly maxRetryDelayMs?: number;
  /** Largest JSON body accepted. Default 64 MiB. */
  readonly maxBodyBytes?: number;
  /** Most connections open to the server at once (default 64: many agent runs may share one engine). */
  readonly connections?: number;
  /** Jitter source in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** How to wait between attempts. Default: a timer that the request's signal cancels. */
  readonly sleep?: SleepFunction;
  /** Turns a `Retry-After` date into a wait. Default `systemClock`. */
  readonly clock?: Clock;
}

/** One request: a path under the base URL, an optional JSON body, and per-request overrides. */
export interface HttpRequest {
  readonly method?: Dispatcher.HttpMethod;
  /** Path under the base URL, starting with `/`. */
  readonly path: string;
  /** Sent as JSON when present. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Cancels the request, including waits between attempts. */
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
}

/** A successful (2xx) JSON answer. */
export interface HttpJsonResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** Attempts it took, 1 when the first one succeeded. */
  readonly attempts: number;
}

/** A successful (2xx) streamed answer whose first bytes have arrived. */
export interface HttpStreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly attempts: number;
  /** The body as UTF-8 text pieces; iterate it to the end, or call `cancel()`. A cut-off body throws `EngineError`. */
  readonly chunks: AsyncIterable<string>;
  /** Drops the rest of the body and closes its connection (a server stops generating when it sees that). */
  cancel(): void;
  /**
   * For an answer that is complete although its body has not ended yet (after SSE `[DONE]`): reads the rest in
   * the background so the connection can be reused, and closes it if that takes longer than a second.
   */
  release(): void;
}

/** Default per-attempt timeout: generation on a local model can be slow. */
export const DEFAULT_HTTP_TIMEOUT_MS = 120_000;
const ERROR_BODY_BYTES = 64 * 1024;
const MESSAGE_CHARS = 500;
const RETRIABLE_STATUSES = new Set([408, 409, 429]);
const CONNECTION_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server',
  ECONNABORTED: 'connection aborted',
  UND_ERR_SOCKET: 'connection closed by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Why one attempt failed, before the retry loop decides whether to try again. */
class AttemptFailure extends Error {
  constructor(
    readonly code: EngineErrorCode,
    readonly detail: string,
    readonly retriable: boolean,
    readonly extra: {
      readonly status?: number;
      readonly retryAfterMs?: number;
      readonly cause?: unknown;
    } = {},
  ) {
    super(detail);
  }
}

/** The timer and cancellation of one attempt: the caller's signal and the timeout both abort it. */
class AttemptScope {
  readonly controller = new AbortController();
  timedOut = false;
  cancelled = false;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #timeoutMs: number;
  #timer: NodeJS.Timeout | undefined;
  readonly #onCallerAbort = () => {
    this.cancelled = true;
    this.controller.abort(this.#callerSignal?.reason);
  };

  constructor(callerSignal: AbortSignal | undefined, timeoutMs: number) {
    this.#callerSignal = callerSignal;
    this.#timeoutMs = timeoutMs;
    callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    if (callerSignal?.aborted) this.#onCallerAbort();
    this.startTimer();
  }

  startTimer(): void {
    this.stopTimer();
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error(`timed out after ${this.#timeoutMs} ms`));
    }, this.#timeoutMs);
  }

  stopTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/**
 * A small HTTP client for model servers over an undici keep-alive pool: JSON and streamed requests, a timeout
 * per attempt, cancellation by `AbortSignal`, and retries with backoff on transient failures. Every failure
 * becomes an `EngineError` naming the engine, the address and the attempts made.
 */
export class HttpClient {
  readonly engineId: string;
  /** Origin plus path prefix, without a trailing slash. */
  readonly baseUrl: string;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #options: HttpClientOptions;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(options: HttpClientOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.engineId = options.engineId;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.baseUrl = `${url.origin}${this.#prefix}`;
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    // undici loads with the first client, not with the package: commands that never talk to a server skip it.
    const { Pool: PoolClass } = createRequire(import.meta.url)('undici') as typeof import('undici');
    this.#pool = new PoolClass(url.origin, { connections: options.connections ?? 64 });
  }

  /** The full URL of a path, as named in errors. */
  address(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** Sends a request and resolves to its parsed 2xx JSON body, retrying transient failures. */
  requestJson(request: HttpRequest): Promise<HttpJsonResponse> {
    return this.#withRetries(request, (attempts) => this.#attemptJson(request, attempts));
  }

  /**
   * Sends a request and resolves once the 2xx answer's first bytes arrived; failures up to then are retried,
   * failures after that (the body is being handed to the caller) are not.
   */
  requestStream(request: HttpRequest): Promise<HttpStreamResponse> {
    return this.#withRetries(request, (attempts) => this.#attemptStream(request, attempts));
  }

  /** Closes every connection; requests still running fail. Calling it twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.destroy();
  }

  async #withRetries<T>(
    request: HttpRequest,
    attempt: (attempts: number) => Promise<T>,
  ): Promise<T> {
    const maxAttempts = 1 + Math.max(0, request.maxRetries ?? this.#options.maxRetries ?? 2);
    for (let attempts = 1; ; attempts += 1) {
      try {
        return await attempt(attempts);
      } catch (error) {
        const failure = error instanceof AttemptFailure ? error : this.#unexpected(error);
        if (!failure.retriable || attempts >= maxAttempts) {
          throw this.#engineError(request, failure, attempts);
        }
        await this.#pause(request, failure, attempts);
      }
    }
  }

  async #pause(request: HttpRequest, failure: AttemptFailure, attempts: number): Promise<void> {
    const delayMs = this.#retryDelayMs(failure, attempts);
    const sleep = this.#options.sleep ?? abortableSleep;
    try {
      await sleep(delayMs, request.signal);
    } catch (error) {
      if (!request.signal?.aborted) throw error;
    }
    if (request.signal?.aborted) {
      throw this.#engineError(request, cancelledFailure(request.signal.reason), attempts);
    }
  }

  #retryDelayMs(failure: AttemptFailure, attempts: number): number {
    const capMs = this.#options.maxRetryDelayMs ?? 30_000;
    const retryAfterMs = failure.extra.retryAfterMs;
    if (retryAfterMs !== undefined) return Math.min(capMs, retryAfterMs);
    const stepMs = (this.#options.retryBaseDelayMs ?? 500) * 2 ** (attempts - 1);
    const random = this.#options.random ?? Math.random;
    return Math.min(capMs, stepMs / 2 + (stepMs / 2) * random());
  }

  async #attemptJson(request: HttpRequest, attempts: number): Promise<HttpJsonResponse> {
    const scope = this.#openScope(request);
    try {
      const response = await this.#send(request, scope);
      const text = await readText(response.body, this.#options.maxBodyBytes ?? 64 * 1024 * 1024);
      if (text === undefined) throw bodyTooLarge();
      return {
        status: response.statusCode,
        headers: response.headers,
        body: parseJson(text),
        attempts,
      };
    } catch (error) {
      throw this.#classify(error, scope);
    } finally {
      scope.dispose();
    }
  }

  async #attemptStream(request: HttpRequest, attempts: number): Promise<HttpStreamResponse> {
    const scope = this.#openScope(request);
    let response: Dispatcher.ResponseData | undefined;
    try {
      response = await this.#send(request, scope);
      const iterator = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      const first = await iterator.next();
      scope.stopTimer();
      return this.#streamResponse({ request, scope, response, iterator, first, attempts });
    } catch (error) {
      response?.body.destroy();
      scope.dispose();
      throw this.#classify(error, scope);
    }
  }

  #streamResponse(stream: OpenStream): HttpStreamResponse {
    const handle = new StreamHandle(stream.response, stream.iterator, stream.scope);
    return {
      status: stream.response.statusCode,
      headers: stream.response.headers,
      attempts: stream.attempts,
      chunks: this.#streamChunks(stream, handle),
      cancel: () => handle.cancel(),
      release: () => handle.release(),
    };
  }

  async *#streamChunks(stream: OpenStream, handle: StreamHandle): AsyncGenerator<string> {
    const { scope, iterator } = stream;
    const decoder = new TextDecoder();
    let next = stream.first;
    try {
      while (next.done !== true) {
        yield decoder.decode(next.value, { stream: true });
        if (!handle.open) return;
        scope.startTimer();
        try {
          next = await iterator.next();
        } catch (error) {
          throw this.#engineError(
            stream.request,
            this.#midStreamFailure(error, scope),
            stream.attempts,
          );
        } finally {
          scope.stopTimer();
        }
      }
      const rest = decoder.decode();
      if (rest !== '') yield rest;
    } finally {
      handle.cancel();
    }
  }

  #midStreamFailure(error: unknown, scope: AttemptScope): AttemptFailure {
    const failure = this.#classify(error, scope);
    if (failure.code !== 'engine_unavailable') return failure;
    return new AttemptFailure(
      'engine_stream_cut',
      `the stream was cut off: ${failure.detail}`,
      false,
      {
        cause: error,
      },
    );
  }

  #openScope(request: HttpRequest): AttemptScope {
    if (this.#closed)
      throw new AttemptFailure('engine_unavailable', 'the client was closed', false);
    return new AttemptScope(request.signal, request.timeoutMs ?? this.#timeoutMs);
  }

  async #send(request: HttpRequest, scope: AttemptScope): Promise<Dispatcher.ResponseData> {
    const hasBody = request.body !== undefined;
    const response = await this.#pool.request({
      path: `${this.#prefix}${request.path}`,
      method: request.method ?? (hasBody ? 'POST' : 'GET'),
      headers: {
        accept: 'application/json, text/event-stream, application/x-ndjson',
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        ...this.#options.headers,
        ...request.headers,
      },
      body: hasBody ? JSON.stringify(request.body) : null,
      signal: scope.controller.signal,
      headersTimeout: request.timeoutMs ?? this.#timeoutMs,
      bodyTimeout: 0,
    });
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    throw await this.#statusFailure(response);
  }

  async #statusFailure(response: Dispatcher.ResponseData): Promise<AttemptFailure> {
    const status = response.statusCode;
    const text = await readText(response.body, ERROR_BODY_BYTES, true).catch(() => '');
    const message = extractErrorMessage(text ?? '');
    const detail = `HTTP ${status}${message === '' ? '' : `: ${message}`}`;
    const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], this.#clock().nowMs());
    const retriable = RETRIABLE_STATUSES.has(status) || status >= 500;
    return new AttemptFailure('engine_http_error', detail, retriable, {
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }

  #classify(error: unknown, scope: AttemptScope): AttemptFailure {
    if (scope.cancelled) return cancelledFailure(error);
    if (scope.timedOut) {
      const reason = describeError(scope.controller.signal.reason);
      return new AttemptFailure('engine_timeout', `no answer in time: ${reason}`, true, {
        cause: error,
      });
    }
    if (error instanceof AttemptFailure) return error;
    if (this.#closed)
      return new AttemptFailure('engine_unavailable', 'the client was closed', false);
    return this.#unexpected(error);
  }

  #unexpected(error: unknown): AttemptFailure {
    const code = errorCode(error);
    const connection = code === undefined ? undefined : CONNECTION_CODES[code];
    if (connection !== undefined) {
      return new AttemptFailure('engine_unavailable', `${connection} (${code})`, true, {
        cause: error,
      });
    }
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      return new AttemptFailure('engine_timeout', `timed out (${code})`, true, { cause: error });
    }
    return new AttemptFailure('engine_unavailable', describeError(error), false, { cause: error });
  }

  #engineError(request: HttpRequest, failure: AttemptFailure, attempts: number): EngineError {
    return new EngineError({
      code: failure.code,
      engineId: this.engineId,
      address: this.address(request.path),
      detail: failure.detail,
      attempts,
      ...(failure.extra.status === undefined ? {} : { status: failure.extra.status }),
      cause: failure.extra.cause,
    });
  }

  #clock(): Clock {
    return this.#options.clock ?? systemClock;
  }
}

const RELEASE_GRACE_MS = 1_000;

/** The life of one streamed body: open while the caller reads, then draining or closed. */
class StreamHandle {
  #state: 'open' | 'draining' | 'closed' = 'open';
  readonly #response: Dispatcher.ResponseData;
  readonly #iterator: AsyncIterator<Buffer>;
  readonly #scope: AttemptScope;

  constructor(
    response: Dispatcher.ResponseData,
    iterator: AsyncIterator<Buffer>,
    scope: AttemptScope,
  ) {
    this.#response = response;
    this.#iterator = iterator;
    this.#scope = scope;
  }

  get open(): boolean {
    return this.#state === 'open';
  }

  cancel(): void {
    if (this.#state === 'open') this.#close();
  }

  release(): void {
    if (this.#state !== 'open') return;
    this.#state = 'draining';
    this.#scope.stopTimer();
    const timer = setTimeout(() => this.#close(), RELEASE_GRACE_MS);
    timer.unref();
    void this.#drain(timer);
  }

  async #drain(timer: NodeJS.Timeout): Promise<void> {
    try {
      while ((await this.#iterator.next()).done !== true) {
        // The rest of a finished answer is of no interest; reading it keeps the connection reusable.
      }
    } catch {
      // A body that fails after the answer was complete changes nothing.
    } finally {
      clearTimeout(timer);
      this.#close();
    }
  }

  #close(): void {
    this.#state = 'closed';
    this.#scope.dispose();
    if (!this.#response.body.destroyed) this.#response.body.destroy();
  }
}

interface OpenStream {
  readonly request: HttpRequest;
  readonly scope: AttemptScope;
  readonly response: Dispatcher.ResponseData;
  readonly iterator: AsyncIterator<Buffer>;
  readonly first: IteratorResult<Buffer>;
  readonly attempts: number;
}

function bodyTooLarge(): AttemptFailure {
  return new AttemptFailure(
    'engine_protocol_error',
    'the answer is larger than the body limit',
    false,
  );
}

function cancelledFailure(cause: unknown): AttemptFailure {
  return new AttemptFailure('engine_cancelled', 'the request was cancelled', false, { cause });
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== ''
  ) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `Invalid engine base URL '${baseUrl}': expected http(s)://host:port with an optional path, such as http://127.0.0.1:8000/v1`,
    });
  }
  return url;
}

/** Reads a body as UTF-8 text; `undefined` when it exceeds `limitBytes` (or, with `truncate`, the first part). */
async function readText(
  body: AsyncIterable<Buffer> & { destroy(): void },
  limitBytes: number,
  truncate = false,
): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of body) {
    parts.push(part);
    size += part.length;
    if (size > limitBytes) {
      body.destroy();
      if (!truncate) return undefined;
      break;
    }
  }
  return Buffer.concat(parts).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return failProtocol(
      `the answer is not valid JSON (${describeError(error)}): ${JSON.stringify(preview)}`,
    );
  }
}

function failProtocol(detail: string): never {
  // A truncated body is usually a dropped connection in disguise, so it is worth another attempt.
  throw new AttemptFailure('engine_protocol_error', detail, true);
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string') return record.code;
  if (Array.isArray(record.errors)) return errorCode(record.errors[0]);
  return record.cause === undefined ? undefined : errorCode(record.cause);
}

/** The server's own words from an error body: OpenAI `error.message`, Ollama `error`, or `message`/`detail`. */
export function extractErrorMessage(text: string): string {
  let message = text.trim();
  try {
    const body: unknown = JSON.parse(text);
    const found = findMessage(body);
    if (found !== undefined) message = found;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message;
}

function findMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' ? body : undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'object' && value !== null) {
      const nested = findMessage(value);
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}

/** Milliseconds to wait from a `Retry-After` header (seconds or an HTTP date); `undefined` when absent or invalid. */
export function parseRetryAfterMs(
  value: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; anything else (such as '-3') is not a valid header.
  const dateMs = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

/** The default wait between attempts: a timer that the signal cancels (rejecting with its reason). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
