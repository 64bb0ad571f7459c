import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isPlainObject } from '../core/index.js';
import {
  buildOpenClawRuntimeScript,
  OPENCLAW_HUGE_LINE_BYTES,
  type OpenClawRuntimeBehaviour,
  type OpenClawRuntimeFault,
  type OpenClawRuntimeStep,
} from './openclaw-runtime-script.js';

export {
  buildOpenClawRuntimeScript,
  OPENCLAW_HUGE_LINE_BYTES,
  type OpenClawRuntimeBehaviour,
  type OpenClawRuntimeFault,
  type OpenClawRuntimeHealth,
  type OpenClawRuntimeStep,
} from './openclaw-runtime-script.js';

/** A message as it travels on the wire (snake_case keys). */
export type OpenClawWireMessage = Readonly<Record<string, unknown>>;

/** A node:http request handler that plays the reference runtime and records what it received. */
export interface OpenClawRuntimeHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /** Every message posted to `/api/query`, parsed, in arrival order. */
  readonly received: readonly OpenClawWireMessage[];
  /** Ends the requests held open by a `hang` (so a server can close). */
  releaseHangingRequests(): void;
}

/** A running reference runtime on 127.0.0.1. */
export interface OpenClawHttpRuntime {
  /** Base URL, e.g. `http://127.0.0.1:41234`; pass it as the transport's `host`. */
  readonly url: string;
  readonly received: readonly OpenClawWireMessage[];
  /** Stops the server and drops every open connection. */
  close(): Promise<void>;
}

type RuntimeAction =
  | { readonly kind: 'reply'; readonly message: OpenClawWireMessage }
  | { readonly kind: 'fault'; readonly fault: OpenClawRuntimeFault };

const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * The reference runtime's conversation logic (the same as the generated script's): `health` → `health_ok`,
 * `query` → the first step, `tool_result` → the next step.
 */
class RuntimeConversation {
  readonly #behaviour: OpenClawRuntimeBehaviour;
  #step = 0;
  #input = '';
  #metadata: unknown = {};
  #lastResult = '';
  #pendingCallId: string | undefined;

  constructor(behaviour: OpenClawRuntimeBehaviour) {
    this.#behaviour = behaviour;
  }

  handle(message: Readonly<Record<string, unknown>>): RuntimeAction {
    const replyTo = typeof message.id === 'string' ? message.id : undefined;
    if (message.type === 'health') return this.#health(replyTo);
    if (message.type === 'query') {
      this.#input = typeof message.content === 'string' ? message.content : '';
      this.#metadata = message.metadata ?? {};
      this.#pendingCallId = undefined;
      return this.#perform(0, replyTo);
    }
    if (message.type === 'tool_result') return this.#toolResult(message, replyTo);
    const got = JSON.stringify(message.type);
    return this.#reply(replyTo, {
      type: 'error',
      error: `reference runtime accepts health, query and tool_result, got ${got}`,
    });
  }

  #health(replyTo: string | undefined): RuntimeAction {
    const health = this.#behaviour.health ?? 'ok';
    if (health === 'ok') return this.#reply(replyTo, { type: 'health_ok' });
    if (health === 'unhealthy') {
      return this.#reply(replyTo, { type: 'error', error: 'reference runtime is not ready' });
    }
    return { kind: 'fault', fault: health };
  }

  #toolResult(
    message: Readonly<Record<string, unknown>>,
    replyTo: string | undefined,
  ): RuntimeAction {
    const metadata = isPlainObject(message.metadata) ? message.metadata : {};
    const callId = metadata.tool_call_id;
    if (this.#pendingCallId === undefined || callId !== this.#pendingCallId) {
      const expected =
        this.#pendingCallId === undefined
          ? 'but no tool call is pending'
          : `expected ${JSON.stringify(this.#pendingCallId)}`;
      const error = `tool_result answers ${JSON.stringify(callId ?? null)}, ${expected}`;
      return this.#reply(replyTo, { type: 'error', error });
    }
    this.#pendingCallId = undefined;
    this.#lastResult = typeof message.tool_result === 'string' ? message.tool_result : '';
    return this.#perform(this.#step + 1, replyTo);
  }

  #perform(index: number, replyTo: string | undefined): RuntimeAction {
    this.#step = index;
    const step: OpenClawRuntimeStep | undefined = this.#behaviour.steps[index];
    if (step === undefined) {
      return this.#reply(replyTo, {
        type: 'error',
        error: `reference runtime script has no step ${index}`,
      });
    }
    if ('toolCall' in step) {
      this.#pendingCallId = randomUUID();
      const call = { type: 'tool_call', tool_name: step.toolCall, tool_args: step.arguments ?? {} };
      return this.#reply(replyTo, { ...call, id: this.#pendingCallId });
    }
    if ('answer' in step)
      return this.#reply(replyTo, { type: 'response', content: this.#fill(step.answer) });
    if ('error' in step) return this.#reply(replyTo, { type: 'error', error: step.error });
    if ('wrongReplyTo' in step) {
      const metadata = { reply_to: `not-${String(replyTo)}` };
      return {
        kind: 'reply',
        message: { type: 'response', id: randomUUID(), content: step.wrongReplyTo, metadata },
      };
    }
    return { kind: 'fault', fault: step.fault };
  }

  #fill(template: string): string {
    return template
      .replaceAll('{result}', this.#lastResult)
      .replaceAll('{input}', this.#input)
      .replaceAll('{metadata}', JSON.stringify(this.#metadata));
  }

  #reply(replyTo: string | undefined, fields: Readonly<Record<string, unknown>>): RuntimeAction {
    const echo = this.#behaviour.echoReplyTo !== false && replyTo !== undefined;
    const message = {
      id: randomUUID(),
      content: '',
      ...fields,
      metadata: echo ? { reply_to: replyTo } : {},
    };
    return { kind: 'reply', message };
  }
}

/**
 * Creates a node:http handler that plays an OpenClaw runtime following `behaviour`: `GET /health` answers 200
 * (503 when unhealthy) and `POST /api/query` takes one message as the JSON body and answers with one message.
 */
export function createOpenClawRuntimeHandler(
  behaviour: OpenClawRuntimeBehaviour,
): OpenClawRuntimeHandler {
  const conversation = new RuntimeConversation(behaviour);
  const received: OpenClawWireMessage[] = [];
  const hanging = new Set<ServerResponse>();
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    readRequestBody(request)
      .then((body) =>
        deliver(response, answerRequest(request, body, conversation, received), hanging),
      )
      .catch((error: unknown) => sendJson(response, 500, { type: 'error', error: String(error) }));
  };
  const releaseHangingRequests = (): void => {
    for (const response of hanging) response.destroy();
    hanging.clear();
  };
  return Object.assign(handler, { received, releaseHangingRequests });
}

/** What the HTTP runtime does with one request: answer with JSON, or commit a fault. */
type HttpAnswer =
  | { readonly status: number; readonly json: unknown }
  | { readonly fault: OpenClawRuntimeFault };

function answerRequest(
  request: IncomingMessage,
  body: string,
  conversation: RuntimeConversation,
  received: OpenClawWireMessage[],
): HttpAnswer {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method === 'GET' && path === '/health') {
    const action = conversation.handle({ type: 'health' });
    if (action.kind === 'fault') return { fault: action.fault };
    const healthy = action.message.type === 'health_ok';
    return { status: healthy ? 200 : 503, json: { status: healthy ? 'ok' : 'unhealthy' } };
  }
  if (request.method !== 'POST' || path !== '/api/query') {
    return { status: 404, json: { type: 'error', error: 'use GET /health or POST /api/query' } };
  }
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { status: 400, json: { type: 'error', error: 'request body is not JSON' } };
  }
  if (!isPlainObject(message)) {
    return { status: 400, json: { type: 'error', error: 'request body is not a JSON object' } };
  }
  received.push(message);
  const action = conversation.handle(message);
  return action.kind === 'fault' ? { fault: action.fault } : { status: 200, json: action.message };
}

function deliver(response: ServerResponse, answer: HttpAnswer, hanging: Set<ServerResponse>): void {
  if (!('fault' in answer)) {
    sendJson(response, answer.status, answer.json);
  } else if (answer.fault === 'crash') {
    response.socket?.destroy();
  } else if (answer.fault === 'hang') {
    hanging.add(response);
    response.on('close', () => hanging.delete(response));
  } else if (answer.fault === 'http_500') {
    sendText(response, 500, 'Internal Server Error');
  } else if (answer.fault === 'garbage') {
    sendText(response, 200, 'this is not JSON');
  } else if (answer.fault === 'unknown_type') {
    sendJson(response, 200, { type: 'bogus', id: randomUUID() });
  } else {
    const content = 'x'.repeat(OPENCLAW_HUGE_LINE_BYTES);
    sendJson(response, 200, { type: 'response', id: randomUUID(), content });
  }
}

function readRequestBody(request: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) request.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain' });
  response.end(text);
}

/** Starts the reference runtime as an HTTP server on 127.0.0.1 (a random free port). */
export async function startOpenClawHttpRuntime(
  behaviour: OpenClawRuntimeBehaviour,
): Promise<OpenClawHttpRuntime> {
  const handler = createOpenClawRuntimeHandler(behaviour);
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    handler.releaseHangingRequests();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  return { url: `http://127.0.0.1:${port}`, received: handler.received, close };
}

/**
 * Writes the reference runtime as a self-contained Node script (`openclaw-runtime-<uuid>.mjs`) into `directory` and
 * returns its path, for `SubprocessTransport({ scriptPath })`. To write your own runtime, follow the same
 * contract: read one JSON message per line on stdin, write exactly one reply line per request on stdout (never
 * anything else there; diagnostics go to stderr), answer `health` with `health_ok`, a `query` with `tool_call`,
 * `response` or `error`, and a `tool_result` (whose `metadata.tool_call_id` names your call) the same way.
 */
export async function writeOpenClawRuntimeScript(
  directory: string,
  behaviour: OpenClawRuntimeBehaviour,
): Promise<string> {
  await mkdir(directory, { recursive: true });
  const path = join(directory, `openclaw-runtime-${randomUUID()}.mjs`);
  await writeFile(path, buildOpenClawRuntimeScript(behaviour), 'utf8');
  return path;
}
