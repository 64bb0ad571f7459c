import type http from 'node:http';
import { createRequire } from 'node:module';
import { describeError, JarvisError, positiveNumberOption } from '../../core/index.js';
import {
  type OpenClawIdOptions,
  type OpenClawMessage,
  OpenClawProtocolError,
  parseMessage,
  serializeMessage,
} from './protocol.js';
import {
  OPENCLAW_DEFAULT_TIMEOUT_MS,
  OPENCLAW_HEALTH_TIMEOUT_MS,
  OPENCLAW_MAX_MESSAGE_BYTES,
  type OpenClawSendOptions,
  type OpenClawTransport,
  OpenClawTransportError,
} from './transport.js';

let httpClient: typeof import('node:http') | undefined;
let httpsClient: typeof import('node:https') | undefined;

/** `node:http`, loaded by the first transport: importing the package should not load the HTTP stack. */
function httpModule(): typeof import('node:http') {
  httpClient ??= createRequire(import.meta.url)('node:http') as typeof import('node:http');
  return httpClient;
}

/** `node:https`, loaded for the first https host: importing the package should not load TLS. */
function httpsModule(): typeof import('node:https') {
  httpsClient ??= createRequire(import.meta.url)('node:https') as typeof import('node:https');
  return httpsClient;
}

/** Options of an `HttpTransport`. */
export interface HttpTransportOptions extends OpenClawIdOptions {
  /** Base URL of the runtime (default `http://localhost:18789`); a trailing `/` is ignored. */
  readonly host?: string;
  /** Longest wait for a reply to `send` (default 30 s). */
  readonly timeoutMs?: number;
  /** Longest wait for `GET /health` (default 5 s). */
  readonly healthTimeoutMs?: number;
  /** Largest reply body accepted (default 8 MiB). */
  readonly maxMessageBytes?: number;
}

/** Default address of an OpenClaw runtime's HTTP server. */
export const OPENCLAW_DEFAULT_HOST = 'http://localhost:18789';

interface Exchange {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

interface HttpReply {
  readonly status: number;
  readonly body: string;
}

/**
 * Talks to an OpenClaw runtime over HTTP: `POST {host}/api/query` with one message as the JSON body, the reply
 * message as the JSON response body; `GET {host}/health` answering 200 means healthy.
 */
export class HttpTransport implements OpenClawTransport {
  readonly host: string;
  readonly timeoutMs: number;
  readonly healthTimeoutMs: number;
  readonly description: string;
  lastHealthFailure: string | undefined;
  readonly #maxMessageBytes: number;
  readonly #idOptions: OpenClawIdOptions;
  #agent: http.Agent;

  constructor(options: HttpTransportOptions = {}) {
    this.host = normaliseHost(options.host ?? OPENCLAW_DEFAULT_HOST);
    this.timeoutMs = positiveNumberOption(
      'timeoutMs',
      options.timeoutMs,
      OPENCLAW_DEFAULT_TIMEOUT_MS,
    );
    this.healthTimeoutMs = positiveNumberOption(
      'healthTimeoutMs',
      options.healthTimeoutMs,
      OPENCLAW_HEALTH_TIMEOUT_MS,
    );
    this.#maxMessageBytes = positiveNumberOption(
      'maxMessageBytes',
      options.maxMessageBytes,
      OPENCLAW_MAX_MESSAGE_BYTES,
    );
    this.#idOptions = options.generateId === undefined ? {} : { generateId: options.generateId };
    this.description = `HTTP runtime at ${this.host}`;
    this.#agent = this.#createAgent();
  }

  /** Posts one message to `/api/query` and parses the reply; non-2xx, timeouts and bad bodies throw. */
  async send(
    message: OpenClawMessage,
    options: OpenClawSendOptions = {},
  ): Promise<OpenClawMessage> {
    const reply = await this.#exchange({
      method: 'POST',
      path: '/api/query',
      body: serializeMessage(message),
      timeoutMs: this.timeoutMs,
      signal: options.signal,
    });
    if (reply.status < 200 || reply.status >= 300) {
      throw new OpenClawTransportError({
        failure: 'http_status',
        message: `OpenClaw runtime at ${this.host} answered POST /api/query with HTTP ${reply.status}: ${snippet(reply.body)}`,
      });
    }
    try {
      return parseMessage(reply.body, this.#idOptions);
    } catch (error) {
      throw new OpenClawProtocolError(
        `OpenClaw runtime at ${this.host} sent a bad reply to POST /api/query: ${describeError(error)}`,
        error,
      );
    }
  }

  /** True when `GET /health` answers 200 in time; never throws. */
  async health(options: OpenClawSendOptions = {}): Promise<boolean> {
    const hint = `start the OpenClaw runtime so that it listens on ${this.host} (GET /health, POST /api/query), or pass another host`;
    try {
      const reply = await this.#exchange({
        method: 'GET',
        path: '/health',
        timeoutMs: this.healthTimeoutMs,
        signal: options.signal,
      });
      this.lastHealthFailure =
        reply.status === 200
          ? undefined
          : `GET ${this.host}/health answered HTTP ${reply.status}; ${hint}`;
    } catch (error) {
      this.lastHealthFailure = `${describeError(error)}; ${hint}`;
    }
    return this.lastHealthFailure === undefined;
  }

  /** Closes the kept-alive connections; later calls open new ones. */
  async close(): Promise<void> {
    this.#agent.destroy();
    this.#agent = this.#createAgent();
  }

  #createAgent(): http.Agent {
    return this.host.startsWith('https:')
      ? new (httpsModule().Agent)({ keepAlive: true })
      : new (httpModule().Agent)({ keepAlive: true });
  }

  #exchange(exchange: Exchange): Promise<HttpReply> {
    const where = `${exchange.method} ${this.host}${exchange.path}`;
    if (exchange.signal?.aborted === true) {
      return Promise.reject(cancelledError(where, exchange.signal.reason));
    }
    const client = this.host.startsWith('https:') ? httpsModule() : httpModule();
    return new Promise<HttpReply>((resolve, reject) => {
      const request = client.request(`${this.host}${exchange.path}`, {
        method: exchange.method,
        agent: this.#agent,
        headers: exchange.body === undefined ? {} : { 'content-type': 'application/json' },
      });
      const settle = createSettler({ request, exchange, where, resolve, reject });
      request.on('error', (error) =>
        settle(
          transportError(
            'connection_failed',
            `Cannot reach OpenClaw runtime (${where}): ${describeError(error)}`,
            error,
          ),
        ),
      );
      request.on('response', (response) =>
        readBody(response, this.#maxMessageBytes, where, settle),
      );
      request.end(exchange.body);
    });
  }
}

type Settle = (error: Error | undefined, reply?: HttpReply) => void;

/** Settles an exchange once: on the reply, an error, the timeout or the caller's signal. */
function createSettler(options: {
  readonly request: http.ClientRequest;
  readonly exchange: Exchange;
  readonly where: string;
  readonly resolve: (reply: HttpReply) => void;
  readonly reject: (error: Error) => void;
}): Settle {
  const { request, exchange, where } = options;
  let settled = false;
  const settle: Settle = (error, reply) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    exchange.signal?.removeEventListener('abort', onAbort);
    if (error === undefined) options.resolve(reply as HttpReply);
    else {
      request.destroy();
      options.reject(error);
    }
  };
  const onAbort = (): void => settle(cancelledError(where, exchange.signal?.reason));
  const timer = setTimeout(() => {
    const message = `OpenClaw runtime did not answer ${where} within ${exchange.timeoutMs} ms`;
    settle(transportError('timed_out', message));
  }, exchange.timeoutMs);
  exchange.signal?.addEventListener('abort', onAbort, { once: true });
  return settle;
}

function cancelledError(where: string, reason: unknown): OpenClawTransportError {
  return transportError('cancelled', `${where} was cancelled`, reason);
}

function readBody(
  response: http.IncomingMessage,
  maxBytes: number,
  where: string,
  settle: Settle,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      settle(
        new OpenClawProtocolError(
          `OpenClaw reply to ${where} is larger than the ${maxBytes}-byte limit of one message`,
        ),
      );
      return;
    }
    chunks.push(chunk);
  });
  response.on('end', () =>
    settle(undefined, {
      status: response.statusCode ?? 0,
      body: Buffer.concat(chunks).toString('utf8'),
    }),
  );
  response.on('close', () => {
    if (!response.complete) {
      settle(transportError('connection_failed', `Connection closed while reading ${where}`));
    }
  });
}

function transportError(
  failure: OpenClawTransportError['failure'],
  message: string,
  cause?: unknown,
): OpenClawTransportError {
  return new OpenClawTransportError({ failure, message, cause });
}

function normaliseHost(host: string): string {
  let url: URL;
  try {
    url = new URL(host);
  } catch (error) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `OpenClaw host must be an http:// or https:// URL such as ${OPENCLAW_DEFAULT_HOST}, got ${JSON.stringify(host)}`,
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `OpenClaw host must use http:// or https://, got ${JSON.stringify(host)}`,
    });
  }
  return host.replace(/\/+$/, '');
}

function snippet(body: string): string {
  const limit = 300;
  const text = body.trim() === '' ? '(empty body)' : body.trim();
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
