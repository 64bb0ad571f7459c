import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistries } from '../core/index.js';
import { Jarvis } from '../sdk/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineCall,
  type ScriptedEngineReply,
  toolCallReply,
} from '../testing/index.js';
import { DeltaRedactor, parsePageChatRequest } from './page-chat.js';
import {
  type RunningJarvisServer,
  type StartJarvisServerOptions,
  startJarvisServer,
} from './start-server.js';

const SECRET = 'sk-page-chat-secret-0123456789abcdefXYZ';

let home: string;
let cleanups: (() => Promise<void>)[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-page-chat-'));
  cleanups = [];
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await rm(home, { recursive: true, force: true });
});

async function serve(
  script: readonly ScriptedEngineReply[],
  options: Partial<StartJarvisServerOptions> = {},
): Promise<{ server: RunningJarvisServer; engine: ScriptedEngine }> {
  const engine = new ScriptedEngine(script);
  const jarvis = new Jarvis({
    engine,
    env: { OPENJARVIS_HOME: home, OPENAI_API_KEY: SECRET },
    cwd: home,
    registries: createRegistries(),
  });
  cleanups.push(() => jarvis.close());
  const system = await jarvis.system();
  const server = await startJarvisServer({ system, port: 0, tools: ['calculator'], ...options });
  cleanups.push(() => server.close());
  return { server, engine };
}

interface Event {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

function post(server: RunningJarvisServer, body: unknown, init: RequestInit = {}) {
  return fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** The SSE events of a whole answer. */
async function events(response: Response): Promise<Event[]> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return {
        event: String(eventLine).replace(/^event: /, ''),
        data: JSON.parse(String(dataLine).replace(/^data: /, '')) as Record<string, unknown>,
      };
    });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(condition()).toBe(true);
}

function hangUntilAborted(seen: { started: boolean; aborted: boolean }): ScriptedEngineReply {
  return (call: ScriptedEngineCall) =>
    new Promise((resolve) => {
      seen.started = true;
      call.options.signal?.addEventListener('abort', () => {
        seen.aborted = true;
        resolve(errorReply('engine_cancelled'));
      });
    });
}

describe('POST /api/chat', () => {
  it('streams the run start, the tool call with its result and latency, the text, and the result with its run id', async () => {
    const { server } = await serve([
      toolCallReply({ id: 'call_a', name: 'calculator', arguments: { expression: '6*7' } }),
      assistantReply(`It is 42, key ${SECRET}`, {
        usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
      }),
    ]);
    const all = await events(await post(server, { input: 'What is 6*7?' }));
    // The scripted engine streams word by word: one delta per word, the last one held until the answer ends.
    expect(all.map((e) => e.event)).toEqual([
      'run_start',
      'tool_call_start',
      'tool_call_end',
      ...Array(5).fill('text_delta'),
      'result',
    ]);
    const sessionId = all[0]?.data.session_id;
    expect(sessionId).toMatch(/^ses_[0-9a-f]{16}$/);
    expect(all[1]?.data).toEqual({
      turn: 1,
      id: 'call_a',
      name: 'calculator',
      arguments: '{"expression":"6*7"}',
    });
    expect(all[2]?.data).toMatchObject({
      id: 'call_a',
      name: 'calculator',
      result: '42',
      ok: true,
    });
    expect(typeof all[2]?.data.latency_ms).toBe('number');
    const text = all
      .filter((e) => e.event === 'text_delta')
      .map((e) => e.data.text)
      .join('');
    expect(text).toBe('It is 42, key [REDACTED]');
    const result = all.at(-1)?.data ?? {};
    expect(result).toMatchObject({
      content: 'It is 42, key [REDACTED]',
      turns: 2,
      session_id: sessionId,
    });
    expect(Number((result.usage as Record<string, number>).completion_tokens)).toBeGreaterThan(0);
    expect(JSON.stringify(all)).not.toContain(SECRET);

    const trace = (await (
      await fetch(`${server.url}/api/runs/${String(result.run_id)}`)
    ).json()) as {
      model_calls: number;
      tool_calls: number;
    };
    expect(trace).toMatchObject({ model_calls: 2, tool_calls: 1 });
  });

  it('gives two identical questions asked at once each the run id of its own trace', async () => {
    const { server } = await serve([
      toolCallReply({ id: 'call_b', name: 'calculator', arguments: { expression: '1+1' } }),
      assistantReply('Two.'),
      assistantReply('Two.'),
    ]);
    const answers = await Promise.all([
      post(server, { input: 'What is 1+1?' }).then(events),
      post(server, { input: 'What is 1+1?' }).then(events),
    ]);
    const runIds = answers.map((all) => String(all.at(-1)?.data.run_id));
    expect(new Set(runIds).size).toBe(2);
    for (const [index, all] of answers.entries()) {
      const trace = (await (await fetch(`${server.url}/api/runs/${runIds[index]}`)).json()) as {
        tool_calls: number;
      };
      expect(trace.tool_calls).toBe(all.filter((e) => e.event === 'tool_call_end').length);
    }
    expect(answers.flat().filter((e) => e.event === 'tool_call_end')).toHaveLength(1);
  });

  it('continues a session: the next question sees the earlier exchange', async () => {
    const { server, engine } = await serve([assistantReply('Hello Ada.'), assistantReply('Ada.')]);
    const first = await events(await post(server, { input: 'I am Ada.' }));
    const session = first[0]?.data.session_id;
    const second = await events(await post(server, { input: 'Who am I?', session }));
    expect(second.at(-1)?.data).toMatchObject({ content: 'Ada.', session_id: session });
    const sent = engine.calls[1]?.messages.map((m) => m.content);
    expect(sent).toEqual(expect.arrayContaining(['I am Ada.', 'Hello Ada.', 'Who am I?']));

    const missing = await post(server, { input: 'Hi', session: 'ses_0000000000000000' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'session_not_found',
    );
  });

  it('shows a failing tool call as a failure and an engine failure as an error event', async () => {
    const { server } = await serve([
      toolCallReply({ id: 'call_b', name: 'calculator', arguments: { expression: '1/' } }),
      errorReply('engine_unavailable'),
    ]);
    const all = await events(await post(server, { input: 'Break it' }));
    const ended = all.find((e) => e.event === 'tool_call_end')?.data;
    expect(ended).toMatchObject({ id: 'call_b', ok: false });
    expect(typeof ended?.error_code).toBe('string');
    const started = all[0]?.data.session_id;
    expect(all.at(-1)).toEqual({
      event: 'error',
      data: {
        code: 'engine_error',
        message: 'The model engine failed (engine_unavailable); the server log has the details',
        // The failed turn is stored: the session stays, to be continued.
        session_id: started,
      },
    });
  });

  it('removes the session a first question started when it failed before a turn was stored', async () => {
    const { server, engine } = await serve([assistantReply('unused')]);
    // The history is fitted to the engine's context before the run: failing there, nothing is stored.
    Object.assign(engine, {
      contextTokens: async () => {
        throw new Error('the engine is not reachable');
      },
    });
    const all = await events(await post(server, { input: 'Hi' }));
    expect(all[0]?.event).toBe('run_start');
    expect(all.at(-1)).toMatchObject({ event: 'error', data: { session_id: null } });
    const sessions = await fetch(`${server.url}/api/sessions`);
    expect(await sessions.json()).toMatchObject({ data: [] });
  });

  it('cancels the run when the client goes away, and frees its slot', async () => {
    const seen = { started: false, aborted: false };
    const { server } = await serve([hangUntilAborted(seen), assistantReply('after')], {
      maxConcurrentRuns: 1,
    });
    const controller = new AbortController();
    const response = await post(server, { input: 'Wait' }, { signal: controller.signal });
    const reader = response.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toMatch(/^event: run_start\n/);
    await until(() => seen.started);
    const busy = await post(server, { input: 'Another' });
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('1');
    controller.abort();
    await reader?.cancel().catch(() => undefined);
    await until(() => seen.aborted);
    let after: Response | undefined;
    for (let i = 0; i < 200; i++) {
      after = await post(server, { input: 'Again' });
      if (after.status !== 429) break;
      await after.body?.cancel();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(after?.status).toBe(200);
    expect((await events(after as Response)).at(-1)?.data.content).toBe('after');
  });

  it('needs the API key when the server has one, a JSON body within the limit, and names what is wrong', async () => {
    const { server } = await serve([assistantReply('ok')], {
      apiKey: 'the-key',
      maxBodyBytes: 200,
    });
    const refused = await post(server, { input: 'Hi' });
    expect(refused.status).toBe(401);
    const bad = await post(
      server,
      { question: 'Hi' },
      { headers: { authorization: 'Bearer the-key' } },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('question');
    const large = await post(
      server,
      { input: 'x'.repeat(300) },
      { headers: { authorization: 'Bearer the-key' } },
    );
    expect(large.status).toBe(413);
    // Another site's page may send text/plain without asking; it never reaches the agent.
    const plain = await post(server, '{"input":"Hi"}', {
      headers: { authorization: 'Bearer the-key', 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    const ok = await post(
      server,
      { input: 'Hi' },
      { headers: { authorization: 'Bearer the-key' } },
    );
    expect((await events(ok)).at(-1)?.data.content).toBe('ok');
  });
});

describe('parsePageChatRequest', () => {
  it('accepts an input and an optional session, and refuses anything else naming the field', () => {
    expect(parsePageChatRequest({ input: 'Hi' })).toEqual({ input: 'Hi' });
    expect(parsePageChatRequest({ input: 'Hi', session: 'work' })).toEqual({
      input: 'Hi',
      session: 'work',
    });
    expect(() => parsePageChatRequest([])).toThrow(/JSON object/);
    expect(() => parsePageChatRequest({ input: '  ' })).toThrow(/'input' must be a non-empty/);
    expect(() => parsePageChatRequest({ input: 'Hi', session: 5 })).toThrow(/'session' must be/);
    expect(() => parsePageChatRequest({ input: 'Hi', model: 'x' })).toThrow(
      /Unknown field 'model'; accepted: input, session/,
    );
  });
});

describe('DeltaRedactor', () => {
  const redact = (text: string) => text.replaceAll('sk-SECRET', '[redacted]');

  it('hides a secret split across deltas by holding a word until it ends', () => {
    const deltas = new DeltaRedactor(redact);
    const sent = [deltas.push(1, 'key sk-SE'), deltas.push(1, 'CRET and'), deltas.push(1, ' more')];
    expect(sent).toEqual([
      [{ turn: 1, text: 'key ' }],
      [{ turn: 1, text: '[redacted] ' }],
      [{ turn: 1, text: 'and ' }],
    ]);
    expect(deltas.flush()).toEqual({ turn: 1, text: 'more' });
    expect(deltas.flush()).toBeUndefined();
  });

  it('sends the held text of a turn before the next turn starts', () => {
    const deltas = new DeltaRedactor(redact);
    expect(deltas.push(1, 'Let me check')).toEqual([{ turn: 1, text: 'Let me ' }]);
    expect(deltas.push(2, 'Done.')).toEqual([{ turn: 1, text: 'check' }]);
    expect(deltas.flush()).toEqual({ turn: 2, text: 'Done.' });
  });
});
