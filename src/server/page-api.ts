import { type Context, Hono } from 'hono';
import { bestScore } from '../core/index.js';
import {
  agentCatalog,
  type JarvisSystem,
  memoryResultJson,
  runJson,
  runToDict,
  sessionInfoJson,
  taskToDict,
  toolCatalog,
  toolJson,
  traceJson,
  turnJson,
} from '../system/index.js';
import { runFailure } from './chat-run.js';
import { ApiError, invalidRequest } from './openai-error.js';
import { agentJson, safeJson } from './page-json.js';
import { requireApiKey } from './request-guards.js';

/** Options of `createPageApi`. */
export interface PageApiOptions {
  /** The system whose runs, sessions, tasks, memory, tools and agents are read. */
  readonly system: () => Promise<JarvisSystem>;
  /** When set, every request needs `Authorization: Bearer <apiKey>` (the same key as `/v1`). */
  readonly apiKey?: string | undefined;
}

/** Default and largest `limit` of the lists. */
const RUNS_LIMIT = { default: 20, max: 100 } as const;
const SESSIONS_LIMIT = { default: 20, max: 100 } as const;
const TURNS_LIMIT = { default: 50, max: 200 } as const;
const TASKS_LIMIT = { default: 50, max: 200 } as const;
const TOP_K = { default: 5, max: 50 } as const;
/** Recent runs shown with each scheduled task. */
const RECENT_TASK_RUNS = 5;
/** Longest memory query accepted. */
const MAX_QUERY_CHARS = 1000;

/**
 * The read-only JSON endpoints the web page uses, to mount under `/api`: `GET /runs?limit&before`,
 * `/runs/:id`, `/sessions?limit`, `/sessions/:id?limit&after`, `/tasks?limit`, `/memory/search?q&top_k`,
 * `/tools`, `/agents`. Keys are snake_case like the CLI's `--json`; every string is redacted with the system's
 * redactor and cut to `MAX_API_TEXT_CHARS`; every list is bounded.
 */
export function createPageApi(options: PageApiOptions): Hono {
  const api = new Hono();
  let redact: ((text: string) => string) | undefined;
  const system = async (): Promise<JarvisSystem> => {
    const resolved = await options.system();
    redact ??= resolved.redact;
    return resolved;
  };
  const answer = async (c: Context, value: unknown): Promise<Response> => {
    const { redact: redactor } = await system();
    return c.json(safeJson(value, redactor) as object);
  };
  api.onError((error, c) => {
    const failure = runFailure(error, redact ?? ((text) => text.replace(/\S{32,}/g, '[redacted]')));
    return c.json(failure.body(), failure.status as 400, failure.headers);
  });
  api.use('*', requireApiKey(options.apiKey));

  api.get('/runs', async (c) => {
    const limit = limitParam(c, 'limit', RUNS_LIMIT);
    const before = integerParam(c, 'before');
    const store = (await system()).telemetry();
    const runs = await store.listRuns({
      limit,
      ...(before === undefined ? {} : { beforeMs: before }),
    });
    return answer(c, { object: 'list', data: runs.map(runJson) });
  });
  api.get('/runs/:id', async (c) => {
    const id = c.req.param('id');
    const run = await (await system()).telemetry().getRun(id);
    if (run === undefined) throw notFound('run_not_found', `No run '${id.slice(0, 80)}' is stored`);
    return answer(c, traceJson(run));
  });
  api.get('/sessions', async (c) => {
    const limit = limitParam(c, 'limit', SESSIONS_LIMIT);
    const sessions = await (await system()).sessions().list({ limit });
    return answer(c, { object: 'list', data: sessions.map(sessionInfoJson) });
  });
  api.get('/sessions/:id', async (c) => {
    const limit = limitParam(c, 'limit', TURNS_LIMIT);
    const after = integerParam(c, 'after') ?? 0;
    const store = (await system()).sessions();
    const id = c.req.param('id');
    const info = await store.find(id);
    if (info === undefined) throw notFound('session_not_found', `No session '${id.slice(0, 80)}'`);
    const turns = await store.turns(info.id, { afterSeq: after });
    const shown = turns.slice(-limit);
    return answer(c, {
      session: sessionInfoJson(info),
      turns: shown.map(turnJson),
      has_more: shown.length < turns.length,
    });
  });
  api.get('/tasks', async (c) => {
    const limit = limitParam(c, 'limit', TASKS_LIMIT);
    const scheduler = (await system()).scheduler();
    const tasks = await scheduler.listTasks();
    const data = await Promise.all(
      tasks.slice(0, limit).map(async (task) => ({
        ...taskToDict(task),
        recent_runs: (await scheduler.logs(task.id, RECENT_TASK_RUNS)).map(runToDict),
      })),
    );
    return answer(c, { object: 'list', data, has_more: tasks.length > limit });
  });
  api.get('/memory/search', async (c) => {
    const query = c.req.query('q') ?? '';
    if (query.trim() === '')
      throw invalidRequest('q', 'Memory search needs `q`: the words to look for');
    if (query.length > MAX_QUERY_CHARS)
      throw invalidRequest('q', `\`q\` is longer than ${MAX_QUERY_CHARS} characters`);
    const topK = limitParam(c, 'top_k', TOP_K);
    const memory = (await system()).memoryIfPresent();
    const results =
      memory === undefined ? [] : await memory.retrieve(query, { topK, signal: c.req.raw.signal });
    const best = bestScore(results);
    return answer(c, { object: 'list', data: results.map((r) => memoryResultJson(r, best)) });
  });
  api.get('/tools', async (c) => {
    const catalog = toolCatalog(await system());
    return answer(c, { object: 'list', data: catalog.map(toolJson) });
  });
  api.get('/agents', async (c) => {
    const catalog = agentCatalog(await system());
    return answer(c, { object: 'list', data: catalog.map(agentJson) });
  });
  return api;
}

function notFound(code: string, message: string): ApiError {
  return new ApiError({ status: 404, type: 'invalid_request_error', code, message });
}

/** A non-negative whole-number query parameter, undefined when absent; anything else is a 400. */
function integerParam(c: Context, name: string): number | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,15}$/.test(text))
    throw invalidRequest(
      name,
      `\`${name}\` must be a whole number ≥ 0, not '${text.slice(0, 40)}'`,
    );
  return Number(text);
}

/** A `limit`-like parameter: its default when absent, at least 1, capped at the largest allowed. */
function limitParam(
  c: Context,
  name: string,
  bounds: { readonly default: number; readonly max: number },
): number {
  const value = integerParam(c, name) ?? bounds.default;
  return Math.min(Math.max(value, 1), bounds.max);
}
