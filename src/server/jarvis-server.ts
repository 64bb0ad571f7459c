import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { CHAT_COMPLETIONS_PATH, chatCompletions } from './chat-completions.js';
import { runFailure } from './chat-run.js';
import { ApiError, errorResponse } from './openai-error.js';
import { createPageApi } from './page-api.js';
import { createPageChat } from './page-chat.js';
import { checkApiKey } from './request-guards.js';
import type { JarvisServerOptions } from './server-options.js';
import { ServerState } from './server-state.js';
import { createWebAssets } from './web-assets.js';

/**
 * The paths of every route but the chat route, which checks the Host itself (see `chatCompletions`); any other
 * path is answered by the not-found handler, which checks it too.
 */
const HOST_CHECKED_PATHS = ['/health', '/v1/models', '/api/*', '/', '/assets/*'] as const;

/**
 * The OpenAI-compatible API as a Hono app (`app.fetch` answers requests): `POST /v1/chat/completions`,
 * `GET /v1/models`, `GET /health`. Serve it with `startJarvisServer`, or mount it in another Hono app.
 */
export function createJarvisServer(options: JarvisServerOptions): Hono {
  const state = new ServerState(options);
  const app = new Hono();
  const withCors = options.corsOrigins !== undefined && options.corsOrigins.length > 0;
  if (withCors) {
    // CORS answers preflights on every path, so the Host check comes first on every path.
    app.use('*', checkHost(state));
    app.use('*', cors({ origin: [...(options.corsOrigins ?? [])], maxAge: 600 }));
  }
  app.onError((error, c) => errorResponse(c, runFailure(error, state.redact)));
  app.notFound((c) => notFound(c, state));
  // The chat route runs its guards in its one handler; with no middleware on its path (unless CORS is on), it
  // is the one handler Hono finds there and calls directly. Every other route gets the Host check as middleware.
  app.post(CHAT_COMPLETIONS_PATH, (c) => chatCompletions(c, state));
  if (!withCors) for (const path of HOST_CHECKED_PATHS) app.use(path, checkHost(state));
  app.get('/health', (c) => health(c, state));
  app.get('/v1/models', async (c) => {
    checkApiKey(c, options.apiKey);
    return c.json(modelList(state.knownModel ?? (await state.servedModel())));
  });
  app.route('/api', pageChat(state));
  app.route('/api', createPageApi({ system: () => state.system(), apiKey: options.apiKey }));
  app.route('/', createWebAssets());
  return app;
}

/** The Host check as middleware (the 403 of `hostRefusal`). */
function checkHost(state: ServerState): MiddlewareHandler {
  return async (c, next) => {
    const refused = state.refuseHost(c);
    if (refused !== undefined) return errorResponse(c, refused);
    return next();
  };
}

/** 404 for unknown routes, after the Host check, and the API key for paths under `/v1`. */
function notFound(c: Context, state: ServerState): Response {
  const refused = state.refuseHost(c);
  if (refused !== undefined) return errorResponse(c, refused);
  const path = new URL(c.req.url).pathname;
  if (path.startsWith('/v1/')) checkApiKey(c, state.options.apiKey);
  return errorResponse(
    c,
    new ApiError({
      status: 404,
      type: 'invalid_request_error',
      code: 'not_found',
      message: `No route ${c.req.method} ${path}`,
    }),
  );
}

/** `POST /api/chat` for the web page, sharing the run slots and limits of `/v1`. */
function pageChat(state: ServerState): Hono {
  const { options } = state;
  return createPageChat({
    system: () => state.system(),
    settings: options,
    apiKey: options.apiKey,
    acquire: () => {
      const release = state.slots.tryAcquire();
      if (release === undefined) throw state.busy();
      return release;
    },
    requestTimeoutMs: state.requestTimeoutMs,
    maxBodyBytes: state.maxBodyBytes,
    log: options.log,
  });
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

function modelList(model: string): unknown {
  return {
    object: 'list',
    data: [{ id: model, object: 'model', created: 0, owned_by: 'openjarvis' }],
  };
}
