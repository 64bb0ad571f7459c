import type { Context } from 'hono';
import { systemClock } from '../core/index.js';
import { readBodyText } from './body-limit.js';
import { type ChatRequest, parseChatRequest } from './chat-request.js';
import { type CompletionIdentity, completionJson } from './chat-response.js';
import { prepareChat, runChat, runFailure, streamChat } from './chat-run.js';
import { sseBody } from './chat-sse.js';
import { ApiError, invalidRequest } from './openai-error.js';
import { clientConnectionOf, RequestDeadline } from './request-deadline.js';
import { checkApiKey, requireJsonBody, tooLarge } from './request-guards.js';
import type { ServerState } from './server-state.js';

/** The path of the API's chat route. */
export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

/**
 * `POST /v1/chat/completions`, guards included: the Host check (403), the API key (401), the body limit (413),
 * JSON only (415), then the request (400), the model (404) and a run slot (429). They run here rather than as
 * middleware so that this route, which every question takes, is the one handler Hono calls for its path (no
 * middleware chain); failures are thrown as `ApiError`s for the app's error handler.
 */
export async function chatCompletions(c: Context, state: ServerState): Promise<Response> {
  const refused = state.refuseHost(c);
  if (refused !== undefined) throw refused;
  checkApiKey(c, state.options.apiKey);
  const text = await readBodyText(c, state.maxBodyBytes);
  if (text === undefined) throw tooLarge(state.maxBodyBytes);
  requireJsonBody(c);
  const request = parseChatRequest(parseJson(text));
  const model = state.knownModel ?? (await state.servedModel());
  if (request.model !== model) throw modelNotFound(request.model, model);
  const release = state.slots.tryAcquire();
  if (release === undefined) throw state.busy();
  const deadline = new RequestDeadline(clientConnectionOf(c), state.requestTimeoutMs);
  const done = () => {
    deadline.dispose();
    release();
  };
  try {
    const identity = identityOf(state, model);
    if (request.stream) return await streamed(state, request, identity, deadline, done);
    return await whole(state, request, identity, deadline).finally(done);
  } catch (error) {
    done();
    throw error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidRequest('body', 'The body is not valid JSON');
  }
}

function modelNotFound(asked: string, model: string): ApiError {
  return new ApiError({
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    message: `The model '${asked}' does not exist here; this server answers as '${model}' (GET /v1/models)`,
  });
}

function identityOf(state: ServerState, model: string): CompletionIdentity {
  const clock = state.options.clock ?? systemClock;
  const unique = (state.options.newId ?? (() => crypto.randomUUID()))().replaceAll('-', '');
  return { id: `chatcmpl-${unique}`, created: Math.floor(clock.nowMs() / 1000), model };
}

async function whole(
  state: ServerState,
  request: ChatRequest,
  identity: CompletionIdentity,
  deadline: RequestDeadline,
): Promise<Response> {
  try {
    const system = state.knownSystem ?? (await state.system());
    const run = await prepareChat(system, request, state.options, deadline.signal);
    const result = await runChat(run, request, deadline.signal);
    return new Response(completionJson(identity, result), {
      headers: { 'Content-Type': 'application/json' },
    });
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
  const run = await state
    .system()
    .then((system) => prepareChat(system, request, state.options, deadline.signal))
    .catch((error: unknown) => {
      throw stopFailure(state, deadline, error);
    });
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
  const failure = runFailure(error, state.redact);
  if (deadline.reason !== 'client_gone' && !(error instanceof ApiError)) {
    const detail = error instanceof Error ? error.message : String(error);
    state.options.log?.(`request failed: ${state.redact(detail)}`);
  }
  return failure;
}
