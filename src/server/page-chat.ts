import { type Context, Hono } from 'hono';
import type { AgentResult, AgentStreamEvent } from '../core/index.js';
import type { JarvisSystem, SessionInfo } from '../system/index.js';
import { usageOf } from './chat-response.js';
import { type ChatRunSettings, runFailure } from './chat-run.js';
import { frameStream } from './chat-sse.js';
import { ApiError, invalidRequest } from './openai-error.js';
import { safeJson } from './page-json.js';
import { clientConnectionOf, RequestDeadline } from './request-deadline.js';
import { limitRequestBody, requireApiKey, requireJsonBody } from './request-guards.js';

/** Options of `createPageChat`: the system, the server's agent and tools, its key and limits. */
export interface PageChatOptions {
  readonly system: () => Promise<JarvisSystem>;
  /** The server's agent and tools (never the client's). */
  readonly settings: ChatRunSettings;
  /** When set, every request needs `Authorization: Bearer <apiKey>` (the same key as `/v1`). */
  readonly apiKey?: string | undefined;
  /** Takes a run slot and returns its release; throws the 429 `ApiError` when every slot is taken. */
  readonly acquire: () => () => void;
  readonly requestTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** Told of failed runs (already redacted). */
  readonly log?: ((line: string) => void) | undefined;
}

/** A checked `POST /api/chat` body. */
export interface PageChatRequest {
  readonly input: string;
  /** The session (id or name) to continue; absent starts a new one. */
  readonly session?: string;
}

/** Longest text of a tool's arguments or result in a chat event (as in `/api`). */
const MAX_TOOL_TEXT_CHARS = 4000;
/** Longest answer text in a chat event. */
const MAX_ANSWER_CHARS = 200_000;
/** Text held back while waiting for a word's end, at most (so a secret split across deltas is still hidden). */
const MAX_HELD_CHARS = 2048;
const BODY_FIELDS = new Set(['input', 'session']);

/**
 * `POST /chat` (mounted under `/api`): runs the server's agent on `{input, session?}` as the next turn of a
 * session (a new one when `session` is absent) and answers Server-Sent Events: `run_start {session_id}`,
 * `text_delta {turn, text}`, `tool_call_start {id, name, arguments}`, `tool_call_end {id, name, result, ok,
 * latency_ms, error_code?}`, then `result {content, usage, turns, session_id, run_id?}` or
 * `error {message, code}`. Every text is redacted; a client that goes away cancels the run.
 */
export function createPageChat(options: PageChatOptions): Hono {
  const api = new Hono();
  let redact: ((text: string) => string) | undefined;
  const redactor = (text: string) => (redact ?? hideLongTokens)(text);
  api.onError((error, c) => {
    const failure = runFailure(error, redactor);
    return c.json(failure.body(), failure.status as 400, failure.headers);
  });
  api.use('/chat', requireApiKey(options.apiKey));
  api.post('/chat', limitRequestBody(options.maxBodyBytes), async (c) => {
    requireJsonBody(c);
    const request = parsePageChatRequest(await jsonBody(c));
    const system = await options.system();
    redact = system.redact;
    return startChat(c, system, request, options);
  });
  return api;
}

function hideLongTokens(text: string): string {
  return text.replace(/\S{32,}/g, '[redacted]');
}

/** Checks a `POST /api/chat` body; anything wrong is a 400 naming the field and what is accepted. */
export function parsePageChatRequest(body: unknown): PageChatRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest('body', 'The body must be a JSON object: {"input": "…", "session": "…"}');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !BODY_FIELDS.has(key));
  if (unknown !== undefined)
    throw invalidRequest(
      unknown,
      `Unknown field '${unknown.slice(0, 40)}'; accepted: input, session`,
    );
  const { input, session } = fields;
  if (typeof input !== 'string' || input.trim() === '')
    throw invalidRequest('input', "'input' must be a non-empty string: the question to answer");
  if (session === undefined || session === null) return { input };
  if (typeof session !== 'string' || session === '' || session.length > 100)
    throw invalidRequest('session', "'session' must be a session id or name (1-100 characters)");
  return { input, session };
}

async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidRequest('body', 'The body is not valid JSON');
  }
}

/** Takes a slot, opens the session and answers the event stream; the slot is released when the stream ends. */
async function startChat(
  c: Context,
  system: JarvisSystem,
  request: PageChatRequest,
  options: PageChatOptions,
): Promise<Response> {
  const release = options.acquire();
  const deadline = new RequestDeadline(clientConnectionOf(c), options.requestTimeoutMs);
  const done = () => {
    deadline.dispose();
    release();
  };
  try {
    const { session, started } = await chatSession(system, request.session);
    // The run's trace is kept under an id chosen here, so the page can open its timeline.
    const runId = crypto.randomUUID();
    const events = system.streamInSession(session.id, request.input, {
      agent: options.settings.agent,
      tools: options.settings.tools,
      signal: deadline.signal,
      runId,
    });
    const run: ChatRun = { system, session, started, request, runId, deadline, options };
    return new Response(
      frameStream(chatFrames(events, run), {
        onEnd: done,
        onCancel: () => deadline.stop('client_gone'),
      }),
      {
        headers: {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache, no-store',
          'X-Content-Type-Options': 'nosniff',
        },
      },
    );
  } catch (error) {
    done();
    throw error;
  }
}

async function chatSession(
  system: JarvisSystem,
  requested?: string,
): Promise<{ session: SessionInfo; started: boolean }> {
  const store = system.sessions();
  if (requested === undefined) return { session: await store.create(), started: true };
  const found = await store.find(requested);
  if (found !== undefined) return { session: found, started: false };
  throw new ApiError({
    status: 404,
    type: 'invalid_request_error',
    code: 'session_not_found',
    param: 'session',
    message: `No session '${requested.slice(0, 80)}' (GET /api/sessions lists them)`,
  });
}

/** What the frames of one chat need. */
interface ChatRun {
  readonly system: JarvisSystem;
  readonly session: SessionInfo;
  /** The session was started by this request (no `session` was asked for). */
  readonly started: boolean;
  readonly request: PageChatRequest;
  /** The id the run's trace is kept under. */
  readonly runId: string;
  readonly deadline: RequestDeadline;
  readonly options: PageChatOptions;
}

async function* chatFrames(
  events: AsyncIterable<AgentStreamEvent>,
  run: ChatRun,
): AsyncGenerator<string> {
  const redact = run.system.redact;
  const text = new DeltaRedactor(redact);
  yield frame('run_start', { session_id: run.session.id });
  try {
    for await (const event of events) {
      if (event.type === 'text_delta') {
        for (const delta of text.push(event.turn, event.text))
          if (delta.text !== '') yield frame('text_delta', delta);
        continue;
      }
      const held = text.flush();
      if (held !== undefined) yield frame('text_delta', held);
      if (event.type === 'result') {
        yield frame('result', safeJson(resultData(event.result, run), redact, MAX_ANSWER_CHARS));
        return;
      }
      const tool = toolEventData(event);
      if (tool !== undefined) yield frame(event.type, safeJson(tool, redact, MAX_TOOL_TEXT_CHARS));
    }
    throw new Error('The agent stream ended without a result');
  } catch (error) {
    const sessionId = await keptSessionId(run);
    yield frame('error', { ...failureData(run, error), session_id: sessionId ?? null });
  }
}

/**
 * After a failed run: the session to continue, or undefined when this request started it and the run failed
 * before a turn could be stored (no engine, say): that session is removed rather than left empty.
 */
async function keptSessionId(run: ChatRun): Promise<string | undefined> {
  if (!run.started) return run.session.id;
  const store = run.system.sessions();
  const stored = await store.find(run.session.id).catch(() => undefined);
  if (stored === undefined || stored.turnCount > 0) return stored?.id;
  await store.remove(stored.id).catch(() => undefined);
  return undefined;
}

function toolEventData(event: AgentStreamEvent): Record<string, unknown> | undefined {
  if (event.type === 'tool_call_start') {
    const { id, name, arguments: args } = event.toolCall;
    return { turn: event.turn, id, name, arguments: args };
  }
  if (event.type !== 'tool_call_end') return undefined;
  const { result, toolCall } = event;
  return {
    turn: event.turn,
    id: toolCall.id,
    name: toolCall.name,
    result: result.content,
    ok: result.success,
    latency_ms: Math.round(result.latencySeconds * 1000),
    ...(result.success ? {} : { error_code: result.errorCode }),
  };
}

function resultData(result: AgentResult, run: ChatRun): Record<string, unknown> {
  const runId = tracedRunId(run);
  return {
    content: result.content,
    usage: usageOf(result),
    turns: result.turns,
    session_id: run.session.id,
    ...(runId === undefined ? {} : { run_id: runId }),
  };
}

/** The failure as the page shows it: a timeout says so; other failures as the API maps them (and logged). */
function failureData(run: ChatRun, error: unknown): { message: string; code: string } {
  if (run.deadline.reason === 'timeout')
    return {
      code: 'request_timeout',
      message: 'The run took longer than the server allows and was stopped',
    };
  const failure = runFailure(error, run.system.redact);
  if (run.deadline.reason !== 'client_gone' && !(error instanceof ApiError)) {
    const detail = error instanceof Error ? error.message : String(error);
    run.options.log?.(`page chat failed: ${run.system.redact(detail)}`);
  }
  return { code: failure.code, message: failure.message };
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The run's id when runs are traced (telemetry on): its trace is stored when the agent ends, before `result`. */
function tracedRunId(run: ChatRun): string | undefined {
  return run.system.config.telemetry.enabled ? run.runId : undefined;
}

/** A piece of answer text and the model turn it came from. */
export interface TextDelta {
  readonly turn: number;
  readonly text: string;
}

/**
 * Redacts streamed text: a delta is sent up to its last whitespace and the rest held until the word ends (or
 * the turn does), so a secret split across deltas is still seen whole by the redactor.
 */
export class DeltaRedactor {
  readonly #redact: (text: string) => string;
  #held = '';
  #turn = 0;

  constructor(redact: (text: string) => string) {
    this.#redact = redact;
  }

  /** The deltas to send now for this one: the last turn's held text first when the turn changed. */
  push(turn: number, text: string): TextDelta[] {
    const out: TextDelta[] = [];
    if (turn !== this.#turn) {
      const held = this.flush();
      if (held !== undefined) out.push(held);
      this.#turn = turn;
    }
    this.#held += text;
    const cut = lastWhitespaceEnd(this.#held);
    if (cut > 0 || this.#held.length > MAX_HELD_CHARS) {
      const end = cut > 0 ? cut : this.#held.length;
      out.push({ turn, text: this.#redact(this.#held.slice(0, end)) });
      this.#held = this.#held.slice(end);
    }
    return out;
  }

  /** The text still held, as a `text_delta` event's data; undefined when nothing is held. */
  flush(): TextDelta | undefined {
    if (this.#held === '') return undefined;
    return { turn: this.#turn, text: this.#redact(this.#take()) };
  }

  #take(): string {
    const held = this.#held;
    this.#held = '';
    return held;
  }
}

/** The index just after the last whitespace character of `text` (0 when it has none). */
function lastWhitespaceEnd(text: string): number {
  return text.search(/\s\S*$/) + 1;
}
