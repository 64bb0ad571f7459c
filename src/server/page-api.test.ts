import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistries } from '../core/index.js';
import { Jarvis } from '../sdk/index.js';
import type { JarvisSystem } from '../system/index.js';
import {
  assistantReply,
  ScriptedEngine,
  type ScriptedEngineReply,
  toolCallReply,
} from '../testing/index.js';
import { type RunningJarvisServer, startJarvisServer } from './start-server.js';

const SECRET = 'sk-page-api-secret-0123456789abcdefXYZ';

let home: string;
let cleanups: (() => Promise<void>)[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-page-api-'));
  cleanups = [];
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await rm(home, { recursive: true, force: true });
});

interface Served {
  readonly server: RunningJarvisServer;
  readonly system: JarvisSystem;
  readonly get: (path: string, headers?: Record<string, string>) => Promise<Response>;
  readonly json: (path: string) => Promise<Record<string, unknown>>;
}

async function serve(
  script: readonly ScriptedEngineReply[] = [],
  apiKey?: string,
  tools?: readonly string[],
): Promise<Served> {
  const jarvis = new Jarvis({
    engine: new ScriptedEngine(script),
    env: { OPENJARVIS_HOME: home, OPENAI_API_KEY: SECRET },
    cwd: home,
    registries: createRegistries(),
  });
  cleanups.push(() => jarvis.close());
  const system = await jarvis.system();
  const server = await startJarvisServer({ system, port: 0, apiKey, tools });
  cleanups.push(() => server.close());
  const auth: Record<string, string> =
    apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
  const get = (path: string, headers: Record<string, string> = auth) =>
    fetch(`${server.url}${path}`, { headers });
  const json = async (path: string) => {
    const response = await get(path);
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };
  return { server, system, get, json };
}

function list(body: Record<string, unknown>): Record<string, unknown>[] {
  expect(body.object).toBe('list');
  return body.data as Record<string, unknown>[];
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 500 && !ok(value); i++) {
    await new Promise((r) => setTimeout(r, 5));
    value = await read();
  }
  return value;
}

describe('GET /api/runs', () => {
  it('lists a run made through /v1/chat/completions and shows its trace with the tool call', async () => {
    const { server, json } = await serve(
      [
        toolCallReply({ name: 'calculator', arguments: { expression: '6*7' } }),
        assistantReply(`It is 42 (key ${SECRET})`, {
          usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
        }),
      ],
      undefined,
      ['calculator'],
    );
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'What is 6*7?' }],
    });
    const runs = list(
      await eventually(
        () => json('/api/runs'),
        (b) => list(b).length > 0,
      ),
    );
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run).toMatchObject({ status: 'ok', model_calls: 2, tool_calls: 1 });
    expect(Number(run?.completion_tokens)).toBeGreaterThanOrEqual(4);
    expect(run?.id).toMatch(/^[0-9a-f]{32}$/);

    const trace = await json(`/api/runs/${String(run?.id)}`);
    expect(trace.id).toBe(run?.id);
    const spans = trace.spans as Record<string, unknown>[];
    expect(spans).toHaveLength(1);
    expect(spans[0]?.kind).toBe('agent');
    const kinds: string[] = [];
    const walk = (node: Record<string, unknown>) => {
      kinds.push(String(node.kind));
      for (const child of node.children as Record<string, unknown>[]) walk(child);
    };
    walk(spans[0] as Record<string, unknown>);
    expect(kinds.filter((k) => k === 'model')).toHaveLength(2);
    expect(kinds).toContain('tool');
    expect(JSON.stringify(trace)).not.toContain(SECRET);
  });

  it('answers an unknown run with an OpenAI-shaped 404 and bad parameters with 400', async () => {
    const { get } = await serve();
    const missing = await get('/api/runs/ffffffffffffffffffffffffffffffff');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        message: "No run 'ffffffffffffffffffffffffffffffff' is stored",
        type: 'invalid_request_error',
        param: null,
        code: 'run_not_found',
      },
    });
    const bad = await get('/api/runs?limit=ten');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('limit');
  });
});

describe('GET /api/sessions', () => {
  it('lists sessions and shows a session with its turns, redacted and bounded', async () => {
    const long = 'x'.repeat(10_000);
    const { system, json, get } = await serve([
      assistantReply(`First answer ${SECRET}`),
      assistantReply(long),
      assistantReply('Third answer'),
    ]);
    const session = await system.openSession('maths');
    await system.runInSession(session.id, 'one?');
    await system.runInSession(session.id, 'two?');
    await system.runInSession(session.id, 'three?');
    await system.openSession('other');

    const sessions = list(await json('/api/sessions?limit=1000'));
    expect(sessions.map((s) => s.name).sort()).toEqual(['maths', 'other']);
    expect(list(await json('/api/sessions?limit=1'))).toHaveLength(1);

    const whole = await json(`/api/sessions/${session.id}`);
    expect(whole.session).toMatchObject({ id: session.id, name: 'maths', turns: 3 });
    const turns = whole.turns as { turn: number; messages: { role: string; content: string }[] }[];
    expect(turns.map((t) => t.turn)).toEqual([1, 2, 3]);
    const text = JSON.stringify(whole);
    expect(text).toContain('First answer');
    expect(text).not.toContain(SECRET);
    const second = turns[1]?.messages.find((m) => m.role === 'assistant')?.content ?? '';
    expect(second.length).toBeLessThanOrEqual(4000);
    expect(second.endsWith('…')).toBe(true);

    const byName = await json('/api/sessions/maths?limit=1');
    expect((byName.turns as { turn: number }[]).map((t) => t.turn)).toEqual([3]);
    expect(byName.has_more).toBe(true);

    const missing = await get('/api/sessions/ses_nothere');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'session_not_found',
    );
  });
});

describe('GET /api/tasks, /api/tools, /api/agents', () => {
  it('shows a scheduled task with its next run', async () => {
    const { system, json } = await serve();
    const task = await system
      .scheduler()
      .createTask({ prompt: 'Water the plants', scheduleType: 'interval', scheduleValue: '3600' });
    const tasks = list(await json('/api/tasks'));
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      id: task.id,
      prompt: 'Water the plants',
      schedule_type: 'interval',
      status: 'active',
      recent_runs: [],
    });
    expect(tasks[0]?.next_run).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    await system
      .scheduler()
      .createTask({ prompt: 'Second', scheduleType: 'interval', scheduleValue: '60' });
    const one = await json('/api/tasks?limit=1');
    expect(list(one)).toHaveLength(1);
    expect(one.has_more).toBe(true);
    expect(list(await json('/api/tasks?limit=999999999'))).toHaveLength(2);
  });

  it('lists the tools and agents in snake_case', async () => {
    const { json } = await serve();
    const tools = list(await json('/api/tools'));
    expect(tools.find((t) => t.name === 'calculator')).toMatchObject({
      name: 'calculator',
      requires_confirmation: false,
    });
    const agents = list(await json('/api/agents'));
    expect(agents.map((a) => a.key)).toContain('simple');
    expect(agents.find((a) => a.key === 'simple')).toHaveProperty('class_name');
  });
});

describe('GET /api/memory/search', () => {
  it('needs q, and answers nothing without creating a memory database', async () => {
    const { system, json, get } = await serve();
    const bad = await get('/api/memory/search');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('q');
    expect(list(await json('/api/memory/search?q=plants'))).toEqual([]);
    expect(existsSync(system.config.memory.dbPath)).toBe(false);
  });

  it('finds stored chunks, at most top_k of them', async () => {
    const { system, json } = await serve();
    const memory = system.memory();
    for (let i = 0; i < 4; i++)
      await memory.store(`plants need water ${i}`, { source: `n${i}.md` });
    await memory.store(`the key is ${SECRET}`, { source: 'k.md' });
    const found = list(await json('/api/memory/search?q=plants&top_k=2'));
    expect(found).toHaveLength(2);
    expect(found[0]).toMatchObject({ relevance: 1 });
    expect(String(found[0]?.content)).toContain('plants need water');
    const key = list(await json('/api/memory/search?q=key'));
    expect(JSON.stringify(key)).not.toContain(SECRET);
  });
});

describe('auth', () => {
  it('requires the bearer key on /api when one is set', async () => {
    const { get } = await serve([], 'k-123');
    for (const path of ['/api/runs', '/api/tools', '/api/memory/search?q=x', '/api/sessions/x']) {
      const refused = await get(path, {});
      expect(refused.status, path).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'invalid_api_key',
      );
      expect((await get(path, { authorization: 'Bearer wrong' })).status).toBe(401);
    }
    expect((await get('/api/runs')).status).toBe(200);
  });
});
