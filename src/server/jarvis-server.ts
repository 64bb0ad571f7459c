import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { systemClock } from '../core/index.js';
import type { JarvisSystem } from '../system/index.js';
import { type ChatRequest, parseChatRequest } from './chat-request.js';
import { type CompletionIdentity, completionOf } from './chat-response.js';
import { prepareChat, runChat, runFailure, streamChat } from './chat-run.js';
import { sseBody } from './chat-sse.js';
import { ApiError, errorResponse, invalidRequest } from './openai-error.js';
import { createPageApi } from './page-api.js';
import { createPageChat } from './page-chat.js';
import { RequestDeadline } from './request-deadline.js';
import { allowHosts, limitRequestBody, requireApiKey, requireJsonBody } from './request-guards.js';
import { RunSlots } from './run-slots.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type JarvisServerOptions,
} from './server-options.js';
import { createWebAssets } from './web-assets.js';

/** What the routes share: the options, the system, and the run slots. */
interface ServerState {
  readonly options: JarvisServerOptions;
  readonly system: () => Promise<JarvisSystem>;
  readonly slots: RunSlots;
  /** The system's redactor once the system is known. */
  redact: ((text: string) => string) | undefined;
}

/**
 * The OpenAI-compatible API as a Hono app (`app.fetch` answers requests): `POST /v1/chat/completions`,
 * `GET /v1/models`, `GET /health`. Serve it with `startJarvisServer`, or mount it in another Hono app.
 */
export function createJarvisServer(options: JarvisServerOptions): Hono {
  const source = systemSource(options);
  const state: ServerState = {
    options,
    system: async () => {
      const system = await source();
      state.redact ??= system.redact;
      return system;
    },
    slots: new RunSlots(options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS),
    redact: options.system?.redact,
  };
  const app = new Hono();
  app.use('*', allowHosts(options.allowedHosts));
  if (options.corsOrigins !== undefined && options.corsOrigins.length > 0)
    app.use('*', cors({ origin: [...options.corsOrigins], maxAge: 600 }));
  app.onError((error, c) => errorResponse(c, runFailure(error, redactorOf(state))));
  app.notFound((c) =>
    errorResponse(
      c,
      new ApiError({
        status: 404,
        type: 'invalid_request_error',
        code: 'not_found',
        message: `No route ${c.req.method} ${new URL(c.req.url).pathname}`,
      }),
    ),
  );
  app.get('/health', (c) => health(c, state));
  app.use('/v1/*', requireApiKey(options.apiKey));
  app.get('/v1/models', async (c) => c.json(modelList(await servedModel(state))));
  app.post(
    '/v1/chat/completions',
    limitRequestBody(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
    (c) => chatCompletions(c, state),
  );
  app.route('/api', pageChat(state));
  app.route('/api', createPageApi({ system: state.system, apiKey: options.apiKey }));
  app.route('/', createWebAssets());
  return app;
}

/** `POST /api/chat` for the web page, sharing the run slots and limits of `/v1`. */
function pageChat(state: ServerState): Hono {
  const { options } = state;
  return createPageChat({
    system: state.system,
    settings: options,
    apiKey: options.apiKey,
    acquire: () => {
      const release = state.slots.tryAcquire();
      if (release === undefined) throw busy(state);
      return release;
    },
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    log: options.log,
  });
}

function systemSource(options: JarvisServerOptions): () => Promise<JarvisSystem> {
  const { system, jarvis } = options;
  if (system !== undefined) return () => Promise.resolve(system);
  if (jarvis !== undefined) return () => jarvis.system();
  throw new TypeError('createJarvisServer needs a `system` or a `jarvis`');
}

/** The system's redactor; before the system is known, long tokens (key-like) are hidden. */
function redactorOf(state: ServerState): (text: string) => string {
  return state.redact ?? ((text) => text.replace(/\S{32,}/g, '[redacted]'));
}

/** `{status: "ok"}` while the server runs, with the engine's reachability beside it (never an error). */
async function health(c: Context, state: ServerState): Promise<Response> {
  let engine = 'unreachable';
  try {
    const resolved = await (await state.system()).engine(AbortSignal.timeout(2000));
    if (await resolved.engine.health({ signal: AbortSignal.timeout(2000) })) engine = 'ok';
  } catch {
    engine = 'unreachable';
  }
  return c.json({ status: 'ok', engine });
}

/** The model id requests must name: the configured one, else the engine's. */
async function servedModel(state: ServerState): Promise<string> {
  if (state.options.model !== undefined) return state.options.model;
  try {
    return (await (await state.system()).engine()).model;
  } catch (error) {
    throw runFailure(error, redactorOf(state));
  }
}

function modelList(model: string): unknown {
  return {
    object: 'list',
    data: [{ id: model, object: 'model', created: 0, owned_by: 'openjarvis' }],
  };
}

async function chatCompletions(c: Context, state: ServerState): Promise<Response> {
  requireJsonBody(c);
  const request = parseChatRequest(await jsonBody(c));
  const model = await servedModel(state);
  if (request.model !== model) {
    throw new ApiError({
      status: 404,
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
      message: `The model '${request.model}' does not exist here; this server answers as '${model}' (GET /v1/models)`,
    });
  }
  const release = state.slots.tryAcquire();
  if (release === undefined) throw busy(state);
  const deadline = new RequestDeadline(
    c.req.raw.signal,
    state.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  );
  const done = () => {
    deadline.dispose();
    release();
  };
  try {
    const identity = identityOf(state, model);
    if (request.stream) return await streamed(state, request, identity, deadline, done);
    return await whole(c, state, request, identity, deadline).finally(done);
  } catch (error) {
    done();
    throw error;
  }
}

async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidRequest('body', 'The body is not valid JSON');
  }
}

function busy(state: ServerState): ApiError {
  const seconds = String(state.options.retryAfterSeconds ?? 1);
  return new ApiError({
    status: 429,
    type: 'rate_limit_error',
    code: 'too_many_runs',
    message: `The server is already running ${state.slots.limit} requests; retry after ${seconds} s`,
    headers: { 'Retry-After': seconds },
  });
}

function identityOf(state: ServerState, model: string): CompletionIdentity {
  const clock = state.options.clock ?? systemClock;
  const unique = (state.options.newId ?? randomUUID)().replaceAll('-', '');
  return { id: `chatcmpl-${unique}`, created: Math.floor(clock.nowMs() / 1000), model };
}

async function whole(
  c: Context,
  state: ServerState,
  request: ChatRequest,
  identity: CompletionIdentity,
  deadline: RequestDeadline,
): Promise<Response> {
  try {
    const system = await state.system();
    const run = await prepareChat(system, request, state.options, deadline.signal);
    const result = await runChat(run, request, deadline.signal);
    return c.json(completionOf(identity, result));
  } catch (error) {
    throw stopFailure(state, deadline, error);
  }
}

async function streamed(
  state: ServerState,
  request: ChatRequest,
  identity: CompletionIdentity,
  deadline: RequestDeadline,
  done: () => void,
): Promise<Response> {
  const system = await state.system().catch((error: unknown) => {
    throw stopFailure(state, deadline, error);
  });
  const run = await prepareChat(system, request, state.options, deadline.signal).catch(
    (error: unknown) => {
      throw stopFailure(state, deadline, error);
    },
  );
  const body = sseBody(streamChat(run, request, deadline.signal), {
    identity,
    includeUsage: request.includeUsage,
    onEnd: done,
    onCancel: () => deadline.stop('client_gone'),
    failure: (error) => stopFailure(state, deadline, error),
  });
  return new Response(body, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    },
  });
}

/** A run's failure as the API reports it: 504 after the time limit, else the mapped error (logged). */
function stopFailure(state: ServerState, deadline: RequestDeadline, error: unknown): ApiError {
  if (deadline.reason === 'timeout') {
    return new ApiError({
      status: 504,
      type: 'timeout_error',
      code: 'request_timeout',
      message: 'The request took longer than the server allows and was stopped',
    });
  }
  const failure = runFailure(error, redactorOf(state));
  if (deadline.reason !== 'client_gone' && !(error instanceof ApiError)) {
    const detail = error instanceof Error ? error.message : String(error);
    state.options.log?.(`request failed: ${redactorOf(state)(detail)}`);
  }
  return failure;
}
