import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import {
  type Clock,
  createRedactor,
  describeError,
  EngineError,
  JarvisError,
  type Redactor,
  systemClock,
} from '../../core/index.js';
import {
  AttemptFailure,
  bodyTooLarge,
  cancelledFailure,
  extractErrorMessage,
  failProtocol,
  parseRetryAfterMs,
  timeoutFailure,
  unexpectedFailure,
} from './http-failures.js';
import { StreamHandle } from './http-stream-handle.js';
import {
  AttemptScope,
  type HttpTimeouts,
  RequestDeadline,
  requestTimeouts,
  resolveTimeouts,
  type TimeoutOptions,
} from './http-timeouts.js';
import { HttpTransport, type TransportRequest, type TransportResponse } from './http-transport.js';
import { JsonText } from './json-body.js';
import { type EngineRequestLog, type EngineRequestLogEntry, reportRequest } from './request-log.js';

export { extractErrorMessage, parseRetryAfterMs } from './http-failures.js';
export { DEFAULT_HTTP_TIMEOUT_MS } from './http-timeouts.js';

/** Waits `ms` milliseconds; rejects when `signal` aborts first. */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options of an `HttpClient`: one server, one keep-alive connection pool. */
export interface HttpClientOptions extends TimeoutOptions {
  /** `http(s)://host:port` with an optional path prefix that every request path is appended to. */
  readonly baseUrl: string;
  /** Named in every error (`vllm`, `ollama`, …). */
  readonly engineId: string;
  /** Sent with every request (for example `authorization`); values of credential headers are redacted from errors. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Secrets (API keys) that never appear in errors or request-log entries, whatever the server echoes. */
  readonly secrets?: readonly (string | undefined)[];
  /** Receives one entry per attempt and per finished stream (method, address, status, time, error). */
  readonly onRequest?: EngineRequestLog;
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
  /** Turns a `Retry-After` date into a wait and times the request log. Default `systemClock`. */
  readonly clock?: Clock;
}

/** The HTTP methods an engine request may use. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS' | 'PATCH';

/** One request: a path under the base URL, an optional JSON body, and per-request overrides. */
export interface HttpRequest {
  readonly method?: HttpMethod;
  /** Path under the base URL, starting with `/`. */
  readonly path: string;
  /** Sent as JSON when present (a `JsonText` as its text). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Cancels the request, including waits between attempts. */
  readonly signal?: AbortSignal;
  /** Longest wait for the first byte of this request's answer (and for any silence after it). */
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  /** The model the request asks, named in timeout errors. */
  readonly model?: string;
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

const ERROR_BODY_BYTES = 64 * 1024;
const ACCEPT = 'application/json, text/event-stream, application/x-ndjson';
const RETRIABLE_STATUSES = new Set([408, 409, 429]);
/** Header names whose values are credentials. */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session|password/i;

/**
 * A small HTTP client for model servers over a `node:http` keep-alive pool: JSON and streamed requests, separate
 * connect, first-byte and idle timeouts under an overall deadline, cancellation by `AbortSignal`, and retries
 * with backoff on transient failures. Every failure becomes an `EngineError` naming the engine, the address and
 * the attempts made, with known secrets and secret-shaped text redacted.
 */
export class HttpClient {
  readonly engineId: string;
  /** Origin plus path prefix, without a trailing slash. */
  readonly baseUrl: string;
  readonly #transport: HttpTransport;
  readonly #prefix: string;
  /** The headers every request sends, built once: without a body, and with a JSON body. */
  readonly #baseHeaders: Readonly<Record<string, string>>;
  readonly #jsonHeaders: Readonly<Record<string, string>>;
  readonly #options: HttpClientOptions;
  readonly #timeouts: HttpTimeouts;
  readonly #redact: Redactor;
  #closed = false;

  constructor(options: HttpClientOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.engineId = options.engineId;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.baseUrl = `${url.origin}${this.#prefix}`;
    this.#options = options;
    this.#timeouts = resolveTimeouts(options);
    this.#redact = clientRedactor(options);
    this.#transport = new HttpTransport(url, {
      connections: options.connections ?? 64,
      connectTimeoutMs: this.#timeouts.connectMs,
    });
    this.#baseHeaders = { accept: ACCEPT, ...options.headers };
    this.#jsonHeaders = { accept: ACCEPT, 'content-type': 'application/json', ...options.headers };
  }

  /** The full URL of a path, as named in errors. */
  address(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** Removes this client's secrets (API key, credential headers) and secret-shaped text from `text`. */
  redact(text: string): string {
    return this.#redact(text);
  }

  /** Sends a request and resolves to its parsed 2xx JSON body, retrying transient failures. */
  async requestJson(request: HttpRequest): Promise<HttpJsonResponse> {
    const deadline = this.#deadline(request);
    // `#withRetries` written out (one async step less on every model call).
    let acceptedTimeouts = 0;
    try {
      for (let attempts = 1; ; attempts += 1) {
        try {
          return await this.#attemptJson(request, deadline, attempts);
        } catch (error) {
          acceptedTimeouts = await this.#retryOrThrow(
            request,
            deadline,
            error,
            attempts,
            acceptedTimeouts,
          );
        }
      }
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Sends a request and resolves once the 2xx answer's first bytes arrived; failures up to then are retried,
   * failures after that (the body is being handed to the caller) are not.
   */
  async requestStream(request: HttpRequest): Promise<HttpStreamResponse> {
    const deadline = this.#deadline(request);
    try {
      return await this.#withRetries(request, deadline, this.#attemptStream);
    } catch (error) {
      deadline.dispose();
      throw error;
    }
  }

  /** Closes every connection; requests still running fail. Calling it twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#transport.destroy();
  }

  #deadline(request: HttpRequest): RequestDeadline {
    return new RequestDeadline(requestTimeouts(this.#timeouts, request.timeoutMs).deadlineMs);
  }

  /**
   * Runs `attempt` (one of this client's attempt methods, passed as is: no closure per request, this runs on every
   * model call) until it succeeds or a failure is not worth another attempt.
   */
  async #withRetries<T>(
    request: HttpRequest,
    deadline: RequestDeadline,
    attempt: (
      this: HttpClient,
      request: HttpRequest,
      deadline: RequestDeadline,
      attempts: number,
    ) => Promise<T>,
  ): Promise<T> {
    let acceptedTimeouts = 0;
    for (let attempts = 1; ; attempts += 1) {
      try {
        return await attempt.call(this, request, deadline, attempts);
      } catch (error) {
        acceptedTimeouts = await this.#retryOrThrow(
          request,
          deadline,
          error,
          attempts,
          acceptedTimeouts,
        );
      }
    }
  }

  /**
   * After a failed attempt: throws the request's `EngineError` when it is not worth another attempt, else waits
   * out the backoff and resolves to the count of accepted-then-silent timeouts so far.
   */
  async #retryOrThrow(
    request: HttpRequest,
    deadline: RequestDeadline,
    error: unknown,
    attempts: number,
    acceptedTimeoutsBefore: number,
  ): Promise<number> {
    const maxAttempts = 1 + Math.max(0, request.maxRetries ?? this.#options.maxRetries ?? 2);
    const failure =
      error instanceof AttemptFailure
        ? error
        : unexpectedFailure(error, this.#timeouts, request.model);
    const acceptedTimeouts = acceptedTimeoutsBefore + (failure.extra.acceptedTimeout ? 1 : 0);
    // A server that took the request and went silent is given one more chance, never more.
    if (!failure.retriable || attempts >= maxAttempts || acceptedTimeouts > 1) {
      throw this.#engineError(request, failure, attempts);
    }
    await this.#pause(request, deadline, failure, attempts);
    return acceptedTimeouts;
  }

  async #pause(
    request: HttpRequest,
    deadline: RequestDeadline,
    failure: AttemptFailure,
    attempts: number,
  ): Promise<void> {
    const delayMs = this.#retryDelayMs(failure, attempts);
    const sleep = this.#options.sleep ?? abortableSleep;
    const signal =
      request.signal === undefined
        ? deadline.signal
        : AbortSignal.any([request.signal, deadline.signal]);
    try {
      await sleep(delayMs, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    if (request.signal?.aborted) {
      throw this.#engineError(request, cancelledFailure(request.signal.reason), attempts);
    }
    if (deadline.expired) {
      const timeouts = requestTimeouts(this.#timeouts, request.timeoutMs);
      throw this.#engineError(
        request,
        timeoutFailure('deadline', timeouts, request.model),
        attempts,
      );
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

  async #attemptJson(
    request: HttpRequest,
    deadline: RequestDeadline,
    attempts: number,
  ): Promise<HttpJsonResponse> {
    const scope = this.#openScope(request, deadline);
    const startedMs = this.#logStartMs();
    try {
      // #send written out (one async step less on every model call).
      const response = await this.#transport.send(this.#transportRequest(request, scope));
      if (!isSuccess(response.statusCode)) throw await this.#statusFailure(response);
      scope.startTimer('idle');
      const limitBytes = this.#options.maxBodyBytes ?? 64 * 1024 * 1024;
      const text = await readText(response.body, limitBytes, false, scope);
      if (text === undefined) throw bodyTooLarge();
      const body = parseJson(text, this.#redact);
      // The step is only built when there is a log to write it to.
      if (this.#options.onRequest !== undefined)
        this.#log(request, { attempt: attempts, startedMs, status: response.statusCode });
      return { status: response.statusCode, headers: response.headers, body, attempts };
    } catch (error) {
      const failure = this.#classify(error, scope, request);
      this.#log(request, { attempt: attempts, startedMs, failure });
      throw failure;
    } finally {
      scope.dispose();
    }
  }

  async #attemptStream(
    request: HttpRequest,
    deadline: RequestDeadline,
    attempts: number,
  ): Promise<HttpStreamResponse> {
    const scope = this.#openScope(request, deadline);
    const startedMs = this.#logStartMs();
    let response: TransportResponse | undefined;
    try {
      response = await this.#send(request, scope);
      const iterator = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      const first = await iterator.next();
      scope.stopTimer();
      this.#log(request, { attempt: attempts, startedMs, status: response.statusCode });
      const stream = { request, scope, deadline, response, iterator, first, attempts, startedMs };
      return this.#streamResponse(stream);
    } catch (error) {
      response?.body.destroy();
      scope.dispose();
      const failure = this.#classify(error, scope, request);
      this.#log(request, { attempt: attempts, startedMs, failure });
      throw failure;
    }
  }

  #streamResponse(stream: OpenStream): HttpStreamResponse {
    const { response, iterator, scope, deadline } = stream;
    const handle = new StreamHandle(response, iterator, scope, deadline);
    return {
      status: response.statusCode,
      headers: response.headers,
      attempts: stream.attempts,
      chunks: this.#streamChunks(stream, handle),
      cancel: () => handle.cancel(),
      release: () => handle.release(),
    };
  }

  async *#streamChunks(stream: OpenStream, handle: StreamHandle): AsyncGenerator<string> {
    const decoder = new TextDecoder();
    let next = stream.first;
    let failure: AttemptFailure | undefined;
    try {
      while (next.done !== true) {
        yield decoder.decode(next.value, { stream: true });
        if (!handle.open) return;
        try {
          next = await this.#nextPiece(stream);
        } catch (error) {
          failure = this.#midStreamFailure(error, stream.scope, stream.request);
          throw this.#engineError(stream.request, failure, stream.attempts);
        }
      }
      const rest = decoder.decode();
      if (rest !== '') yield rest;
    } finally {
      handle.cancel();
      const { attempts: attempt, startedMs, response } = stream;
      const status = response.statusCode;
      this.#log(stream.request, { attempt, startedMs, status, failure, phase: 'stream_end' });
    }
  }

  /** The next piece of a streamed body, within the idle timeout and the request's deadline. */
  async #nextPiece(stream: OpenStream): Promise<IteratorResult<Buffer>> {
    const { scope } = stream;
    if (scope.timedOut !== undefined) throw new Error(`${scope.timedOut} timeout`);
    scope.startTimer('idle');
    try {
      return await stream.iterator.next();
    } finally {
      scope.stopTimer();
    }
  }

  #midStreamFailure(error: unknown, scope: AttemptScope, request: HttpRequest): AttemptFailure {
    const failure = this.#classify(error, scope, request);
    if (failure.code !== 'engine_unavailable') return failure;
    const detail = `the stream was cut off: ${failure.detail}`;
    return new AttemptFailure('engine_stream_cut', detail, false, { cause: error });
  }

  #openScope(request: HttpRequest, deadline: RequestDeadline): AttemptScope {
    if (this.#closed)
      throw new AttemptFailure('engine_unavailable', 'the client was closed', false);
    const timeouts = requestTimeouts(this.#timeouts, request.timeoutMs);
    return new AttemptScope(request.signal, deadline, timeouts);
  }

  async #send(request: HttpRequest, scope: AttemptScope): Promise<TransportResponse> {
    const response = await this.#transport.send(this.#transportRequest(request, scope));
    if (isSuccess(response.statusCode)) return response;
    throw await this.#statusFailure(response);
  }

  /** What the transport sends for `request`; its timeouts are the scope's own timers, which abort it. */
  #transportRequest(request: HttpRequest, scope: AttemptScope): TransportRequest {
    const hasBody = request.body !== undefined;
    const headers = hasBody ? this.#jsonHeaders : this.#baseHeaders;
    return {
      path: `${this.#prefix}${request.path}`,
      method: request.method ?? (hasBody ? 'POST' : 'GET'),
      headers: request.headers === undefined ? headers : { ...headers, ...request.headers },
      body: hasBody ? jsonText(request.body) : null,
      abort: scope,
    };
  }

  async #statusFailure(response: TransportResponse): Promise<AttemptFailure> {
    const status = response.statusCode;
    const text = await readText(response.body, ERROR_BODY_BYTES, true).catch(() => '');
    // Redacted before it is shortened, so that a cut cannot leave half a key behind.
    const message = extractErrorMessage(this.#redact(text ?? ''));
    const detail = `HTTP ${status}${message === '' ? '' : `: ${message}`}`;
    const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], this.#clock().nowMs());
    const retriable = RETRIABLE_STATUSES.has(status) || status >= 500;
    return new AttemptFailure('engine_http_error', detail, retriable, {
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }

  #classify(error: unknown, scope: AttemptScope, request: HttpRequest): AttemptFailure {
    if (scope.cancelled) return cancelledFailure(error);
    if (scope.timedOut !== undefined)
      return timeoutFailure(scope.timedOut, scope.timeouts, request.model, error);
    if (error instanceof AttemptFailure) return error;
    if (this.#closed)
      return new AttemptFailure('engine_unavailable', 'the client was closed', false);
    return unexpectedFailure(error, scope.timeouts, request.model);
  }

  #engineError(request: HttpRequest, failure: AttemptFailure, attempts: number): EngineError {
    return new EngineError({
      code: failure.code,
      engineId: this.engineId,
      address: this.#redact(this.address(request.path)),
      detail: this.#redact(failure.detail),
      attempts,
      ...(failure.extra.status === undefined ? {} : { status: failure.extra.status }),
      cause: failure.extra.cause,
    });
  }

  #log(request: HttpRequest, step: LogStep): void {
    if (this.#options.onRequest === undefined) return;
    const { failure } = step;
    const status = failure?.extra.status ?? step.status;
    const entry: EngineRequestLogEntry = {
      engineId: this.engineId,
      method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
      url: this.#redact(this.address(request.path)),
      attempt: step.attempt,
      phase: step.phase ?? 'response',
      ...(status === undefined ? {} : { status }),
      durationMs: Math.max(0, this.#clock().monotonicMs() - step.startedMs),
      ...(failure === undefined ? {} : { error: this.#redact(failure.detail) }),
    };
    reportRequest(this.#options.onRequest, entry);
  }

  /** When an attempt started, for the request log (the clock is only read when there is a log). */
  #logStartMs(): number {
    return this.#options.onRequest === undefined ? 0 : this.#clock().monotonicMs();
  }

  #clock(): Clock {
    return this.#options.clock ?? systemClock;
  }
}

interface LogStep {
  readonly attempt: number;
  readonly startedMs: number;
  readonly status?: number | undefined;
  readonly failure?: AttemptFailure | undefined;
  readonly phase?: EngineRequestLogEntry['phase'];
}

interface OpenStream {
  readonly request: HttpRequest;
  readonly scope: AttemptScope;
  readonly deadline: RequestDeadline;
  readonly response: TransportResponse;
  readonly iterator: AsyncIterator<Buffer>;
  readonly first: IteratorResult<Buffer>;
  readonly attempts: number;
  readonly startedMs: number;
}

/** The redactor of a client: its explicit secrets, and the values of its credential headers. */
function clientRedactor(options: HttpClientOptions): Redactor {
  const secrets: (string | undefined)[] = [...(options.secrets ?? [])];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    secrets.push(value, /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1]);
  }
  return createRedactor(secrets);
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

/**
 * Reads a body as UTF-8 text; `undefined` when it exceeds `limitBytes` (or, with `truncate`, the first part).
 * Each piece that arrives restarts the idle wait of `scope`, when given. Read by its events rather than its
 * async iterator, which costs a promise and a set of stream listeners per piece on the path of every answer.
 */
function readText(
  body: IncomingMessage,
  limitBytes: number,
  truncate: boolean,
  scope?: AttemptScope,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    if (body.destroyed) {
      reject(body.errored ?? prematureClose());
      return;
    }
    // Most answers arrive in one piece: kept as it is, without a list or a copy.
    let first: Buffer | undefined;
    let parts: Buffer[] | undefined;
    let size = 0;
    // The promise settles once: what the body emits after that (its close) changes nothing, so the listeners
    // are plain `on` ones (a `once` wrapper costs a closure per listener) and are left to go with the body.
    // Four closures and nothing else per body: this runs on every answer.
    let done = false;
    const onData = (part: Buffer) => {
      scope?.startTimer('idle');
      if (first === undefined) first = part;
      else if (parts === undefined) parts = [first, part];
      else parts.push(part);
      size += part.length;
      if (done || size <= limitBytes) return;
      done = true;
      body.destroy();
      resolve(truncate ? joinText(first, parts, size) : undefined);
    };
    const onEnd = () => {
      if (done) return;
      done = true;
      resolve(joinText(first, parts, size));
    };
    const onError = (error: Error) => {
      if (done) return;
      done = true;
      reject(error);
    };
    // A body destroyed without an error (its connection closed) ends before its end: as its iterator would say.
    const onClose = () => {
      if (done) return;
      done = true;
      reject(prematureClose());
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/** The text of a body read in one piece (`first`) or in several (`parts`, `size` bytes in all). */
function joinText(first: Buffer | undefined, parts: Buffer[] | undefined, size: number): string {
  if (parts !== undefined) return Buffer.concat(parts, size).toString('utf8');
  return first === undefined ? '' : first.toString('utf8');
}

/** A request body as sent: its JSON, or the text of a body already written out. */
function jsonText(body: unknown): string {
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

function parseJson(text: string, redact: Redactor): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message quotes the text, so the words come from a second parse of the redacted text.
    const safe = redact(text);
    const reason = describeJsonError(safe);
    const preview = safe.length > 80 ? `${safe.slice(0, 80)}…` : safe;
    return failProtocol(`the answer is not valid JSON (${reason}): ${JSON.stringify(preview)}`);
  }
}

function describeJsonError(text: string): string {
  try {
    JSON.parse(text);
    return 'invalid JSON';
  } catch (error) {
    return describeError(error);
  }
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
