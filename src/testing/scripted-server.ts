import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveAnswer } from './scripted-server-answer.js';
import {
  OLLAMA_SHOW_PATH,
  ollamaShowBody,
  ollamaWire,
  showRequestModel,
} from './scripted-server-ollama.js';
import { openAIWire, type ScriptedWire } from './scripted-server-openai.js';
import { performReply, type ReplyContext, sendBody } from './scripted-server-respond.js';
import type {
  RecordedRequest,
  ScriptedDelayFault,
  ScriptedModelDetails,
  ScriptedOpenAIServer,
  ScriptedReply,
  ScriptedServerOptions,
} from './scripted-server-types.js';

export type {
  RecordedRequest,
  ScriptedAnswer,
  ScriptedCutStreamFault,
  ScriptedDelayFault,
  ScriptedFault,
  ScriptedModelDetails,
  ScriptedOpenAIServer,
  ScriptedReply,
  ScriptedReplyHandler,
  ScriptedResetFault,
  ScriptedServerMode,
  ScriptedServerOptions,
  ScriptedStallFault,
  ScriptedStatusFault,
  ScriptedToolCallReply,
  ScriptedTrickleFault,
  ScriptedTruncatedJsonFault,
  ScriptedUsage,
} from './scripted-server-types.js';

/** Builds a `delay` fault: wait `ms` on a real timer, then carry out `reply`. */
export function delayReply(ms: number, reply: ScriptedReply): ScriptedDelayFault {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the documented field name; its value is never a function.
  return { fault: 'delay', ms, then: reply };
}

/**
 * Starts a fake model server on 127.0.0.1 (a random free port) that answers model requests from a script or a
 * handler, over real HTTP with real SSE / JSON-lines streaming, and can misbehave on purpose (faults).
 */
export async function startScriptedOpenAIServer(
  options: ScriptedServerOptions,
): Promise<ScriptedOpenAIServer> {
  const scripted = new ScriptedServer(options);
  await scripted.listen();
  return scripted;
}

class ScriptedServer implements ScriptedOpenAIServer {
  readonly mode: ScriptedOpenAIServer['mode'];
  readonly requests: RecordedRequest[] = [];
  readonly unexpectedRequests: RecordedRequest[] = [];
  url = '';
  baseUrl = '';
  connectionCount = 0;
  readonly #options: ScriptedServerOptions;
  readonly #wire: ScriptedWire;
  readonly #script: ScriptedReply[];
  readonly #scriptLength: number;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #server: Server;
  #modelRequests = 0;
  #closing: Promise<void> | undefined;

  constructor(options: ScriptedServerOptions) {
    this.#options = options;
    this.mode = options.mode ?? 'openai';
    this.#wire = this.mode === 'ollama' ? ollamaWire : openAIWire;
    this.#script = [...(options.script ?? [])];
    this.#scriptLength = this.#script.length;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => failRequest(res, error));
    });
    this.#server.on('connection', () => {
      this.connectionCount += 1;
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        const { port } = this.#server.address() as AddressInfo;
        this.url = `http://127.0.0.1:${port}`;
        this.baseUrl = `${this.url}/v1`;
        resolve();
      });
    });
  }

  assertAllRepliesConsumed(): void {
    const problems: string[] = [];
    if (this.#script.length > 0)
      problems.push(`${this.#script.length} scripted reply(ies) were never used`);
    if (this.unexpectedRequests.length > 0) {
      const list = this.unexpectedRequests.map((request) => `${request.method} ${request.path}`);
      problems.push(`${list.length} unexpected request(s): ${list.join(', ')}`);
    }
    if (problems.length > 0)
      throw new Error(`Scripted server at ${this.url}: ${problems.join('; ')}`);
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    return this.#closing;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = await recordRequest(req);
    this.requests.push(request);
    const wire = this.#wire;
    if (request.method === 'POST' && request.path === wire.chatPath) {
      await this.#answerChat(request, res);
    } else if (request.method === 'GET' && request.path === wire.modelsPath) {
      await this.#answerModels(request, res);
    } else if (this.#answersShow(request)) {
      await this.#answerShow(request, res);
    } else if (request.method === 'GET' && request.path in wire.extraGets) {
      sendBody(res, 200, wire.extraGets[request.path]);
    } else {
      sendBody(res, 404, wire.errorBody(`no route for ${request.method} ${request.path}`, 404));
    }
  }

  async #answerChat(request: RecordedRequest, res: ServerResponse): Promise<void> {
    if (request.body === undefined) {
      sendBody(res, 400, this.#wire.errorBody('the request body is not valid JSON', 400));
      return;
    }
    const number = ++this.#modelRequests;
    const reply = await this.#nextReply(request, res);
    if (reply === undefined) return;
    const context = this.#context(request, res, this.#wire.isStream(request), (answer) =>
      this.#wire.render(
        resolveAnswer(answer, request, number),
        request,
        this.#options.streamChunkChars,
      ),
    );
    await performReply(reply, context);
  }

  async #answerModels(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const models = this.#options.models ?? ['scripted-model'];
    const json = this.#wire.modelsBody(models);
    const reply = this.#options.modelsFault ?? {};
    await performReply(
      reply,
      this.#context(request, res, false, () => ({ json, chunks: [], tail: [] })),
    );
  }

  #answersShow(request: RecordedRequest): boolean {
    return this.mode === 'ollama' && request.method === 'POST' && request.path === OLLAMA_SHOW_PATH;
  }

  /** Ollama's `/api/show`: the scripted details of the model named, or Ollama's 404 for any other. */
  async #answerShow(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const model = showRequestModel(request);
    const all = this.#options.modelDetails ?? {};
    const scripted = model !== undefined && Object.hasOwn(all, model) ? all[model] : undefined;
    if (scripted === undefined) {
      sendBody(res, 404, this.#wire.errorBody(`model '${model ?? ''}' not found`, 404));
      return;
    }
    const details: ScriptedModelDetails = 'fault' in scripted ? {} : scripted;
    const reply: ScriptedReply = 'fault' in scripted ? scripted : {};
    const json = ollamaShowBody(details);
    await performReply(
      reply,
      this.#context(request, res, false, () => ({ json, chunks: [], tail: [] })),
    );
  }

  async #nextReply(
    request: RecordedRequest,
    res: ServerResponse,
  ): Promise<ScriptedReply | undefined> {
    const handler = this.#options.handler;
    if (handler !== undefined) {
      try {
        return await handler(request);
      } catch (error) {
        this.unexpectedRequests.push(request);
        failRequest(res, error, this.#wire);
        return undefined;
      }
    }
    const reply = this.#script.shift();
    if (reply === undefined) {
      this.unexpectedRequests.push(request);
      const message = `the script is exhausted (${this.#scriptLength} replies were scripted); unexpected request ${request.method} ${request.path}`;
      sendBody(res, 500, this.#wire.errorBody(message, 500));
    }
    return reply;
  }

  #context(
    request: RecordedRequest,
    res: ServerResponse,
    stream: boolean,
    render: ReplyContext['render'],
  ): ReplyContext {
    const schedule = (ms: number, run: () => void) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        run();
      }, ms);
      this.#timers.add(timer);
      return () => {
        clearTimeout(timer);
        this.#timers.delete(timer);
      };
    };
    return { res, request, wire: this.#wire, stream, render, schedule };
  }
}

async function recordRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const rawBody = Buffer.concat(parts).toString('utf8');
  let body: unknown;
  try {
    body = rawBody === '' ? undefined : JSON.parse(rawBody);
  } catch {
    body = undefined;
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  return { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body, rawBody };
}

function failRequest(res: ServerResponse, error: unknown, wire: ScriptedWire = openAIWire): void {
  const message = `scripted server failed: ${error instanceof Error ? error.message : String(error)}`;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendBody(res, 500, wire.errorBody(message, 500));
}
