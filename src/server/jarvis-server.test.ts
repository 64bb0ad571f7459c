import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
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
import { defineTool } from '../tools/index.js';
import {
  type RunningJarvisServer,
  type StartJarvisServerOptions,
  startJarvisServer,
} from './start-server.js';

let home: string;
let cleanups: (() => Promise<void>)[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-serve-'));
  cleanups = [];
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await rm(home, { recursive: true, force: true });
});

async function serve(
  script: readonly ScriptedEngineReply[],
  options: Partial<StartJarvisServerOptions> = {},
): Promise<{ server: RunningJarvisServer; engine: ScriptedEngine; client: OpenAI }> {
  const engine = new ScriptedEngine(script);
  const jarvis = new Jarvis({
    engine,
    env: { OPENJARVIS_HOME: home },
    cwd: home,
    registries: createRegistries(),
  });
  cleanups.push(() => jarvis.close());
  const system = await jarvis.system();
  const server = await startJarvisServer({ system, port: 0, ...options });
  cleanups.push(() => server.close());
  const client = new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: options.apiKey ?? 'unused',
    maxRetries: 0,
  });
  return { server, engine, client };
}

/** A reply that waits until the request is cancelled, recording that the engine saw the abort. */
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

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(condition()).toBe(true);
}

function post(server: RunningJarvisServer, body: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

describe('POST /v1/chat/completions with the openai client', () => {
  it('answers a question in the OpenAI shape, with usage', async () => {
    const { client } = await serve([
      assistantReply('Paris', { usage: { promptTokens: 7, completionTokens: 1, totalTokens: 8 } }),
    ]);
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('scripted');
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Paris' }, finish_reason: 'stop' },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 });
  });

  it('passes the earlier messages as the conversation and the last user message as the input', async () => {
    const { client, engine } = await serve([assistantReply('Cheaper: walk.')]);
    await client.chat.completions.create({
      model: 'scripted',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Plan a day in Lisbon' },
        { role: 'assistant', content: 'Tram 28, then Belem.' },
        { role: 'user', content: [{ type: 'text', text: 'Cheaper?' }] },
      ],
    });
    const sent = engine.calls[0]?.messages.map((message) => [message.role, message.content]);
    expect(sent?.slice(-4)).toEqual([
      ['system', 'Be brief.'],
      ['user', 'Plan a day in Lisbon'],
      ['assistant', 'Tram 28, then Belem.'],
      ['user', 'Cheaper?'],
    ]);
  });

  it('streams chunks that concatenate to the answer, with usage when asked, then [DONE]', async () => {
    const { client } = await serve([
      assistantReply('The answer is 42.', {
        usage: { promptTokens: 5, completionTokens: 6, totalTokens: 11 },
      }),
    ]);
    const stream = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'Meaning of life?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('The answer is 42.');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason != null);
    expect(finish?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 6,
      total_tokens: 11,
    });
  });

  it('ends the raw SSE stream with data: [DONE]', async () => {
    const { server } = await serve([assistantReply('ok')]);
    const response = await post(
      server,
      JSON.stringify({
        model: 'scripted',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text).not.toContain('"usage"');
  });

  it('runs the calculator on the server and answers with the result', async () => {
    const { client, engine } = await serve(
      [
        toolCallReply({ name: 'calculator', arguments: { expression: '340*0.15' } }),
        assistantReply('15% of 340 is 51.'),
      ],
      { tools: ['calculator'] },
    );
    const stream = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'What is 15% of 340?' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('15% of 340 is 51.');
    const toolMessage = engine.calls[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe('51.0');
  });

  it('refuses tools that need confirmation (nobody approves on a server)', async () => {
    let ran = false;
    const wipe = defineTool({
      name: 'wipe',
      description: 'Deletes everything.',
      parameters: { type: 'object', properties: {} },
      requiresConfirmation: true,
      execute: () => {
        ran = true;
        return 'wiped';
      },
    });
    const { client, engine } = await serve(
      [toolCallReply({ name: 'wipe', arguments: {} }), assistantReply('I was not allowed.')],
      { tools: [wipe] },
    );
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'wipe it' }],
    });
    expect(completion.choices[0]?.message.content).toBe('I was not allowed.');
    expect(ran).toBe(false);
    const toolMessage = engine.calls[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/confirm|denied|refused|not approved/i);
  });
});

describe('errors in the OpenAI shape', () => {
  it('answers an unknown model with 404 model_not_found', async () => {
    const { client } = await serve([]);
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('model_not_found');
  });

  it('answers bad JSON and wrong shapes with 400 naming the field', async () => {
    const { server } = await serve([]);
    const badJson = await post(server, '{"model": ');
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: 'body' },
    });
    const cases: [unknown, string][] = [
      [{ model: 'scripted' }, 'messages'],
      [{ model: 'scripted', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
      [{ model: 'scripted', messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
      [{ model: 'scripted', messages: [{ role: 'assistant', content: 'x' }] }, 'messages[0].role'],
      [
        { model: 'scripted', messages: [{ role: 'user', content: 'x' }], temperature: 9 },
        'temperature',
      ],
      [{ model: 'scripted', messages: [{ role: 'user', content: 'x' }], tools: [{}] }, 'tools'],
      [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ];
    for (const [body, param] of cases) {
      const response = await post(server, JSON.stringify(body));
      expect(response.status).toBe(400);
      expect((await response.json()) as unknown).toMatchObject({ error: { param } });
    }
  });

  it('answers a body over the limit with 413', async () => {
    const { server } = await serve([], { maxBodyBytes: 1024 });
    const content = 'x'.repeat(2048);
    const response = await post(
      server,
      JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content }] }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('answers 429 with Retry-After when the concurrency limit is reached', async () => {
    const seen = { started: false, aborted: false };
    const { server, client } = await serve([hangUntilAborted(seen), assistantReply('later')], {
      maxConcurrentRuns: 1,
      retryAfterSeconds: 3,
    });
    const controller = new AbortController();
    const first = client.chat.completions
      .create(
        { model: 'scripted', messages: [{ role: 'user', content: 'slow' }] },
        { signal: controller.signal },
      )
      .catch(() => undefined);
    await until(() => seen.started);
    const busy = await post(
      server,
      JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('3');
    expect(await busy.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    controller.abort();
    await first;
    await until(() => seen.aborted);
    // The slot comes back once the cancelled run ends.
    let answer: string | null | undefined;
    for (let i = 0; i < 200 && answer === undefined; i++) {
      answer = await client.chat.completions
        .create({ model: 'scripted', messages: [{ role: 'user', content: 'now' }] })
        .then((completion) => completion.choices[0]?.message.content)
        .catch(() => undefined);
    }
    expect(answer).toBe('later');
  });

  it('stops a run over the time limit with 504', async () => {
    const seen = { started: false, aborted: false };
    const { client } = await serve([hangUntilAborted(seen)], { requestTimeoutMs: 50 });
    const error = await client.chat.completions
      .create({ model: 'scripted', messages: [{ role: 'user', content: 'slow' }] })
      .catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(seen.aborted).toBe(true);
  });

  it('reports an engine failure as 502 without the engine details', async () => {
    const { client } = await serve([errorReply('engine_unavailable')]);
    const error = await client.chat.completions
      .create({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).not.toContain('scripted engine at');
  });
});

describe('client disconnects', () => {
  it('cancels the engine request when a non-streaming client goes away', async () => {
    const seen = { started: false, aborted: false };
    const { client } = await serve([hangUntilAborted(seen)]);
    const controller = new AbortController();
    const request = client.chat.completions
      .create(
        { model: 'scripted', messages: [{ role: 'user', content: 'slow' }] },
        { signal: controller.signal },
      )
      .catch((caught: unknown) => caught);
    await until(() => seen.started);
    controller.abort();
    expect(await request).toBeInstanceOf(OpenAI.APIUserAbortError);
    await until(() => seen.aborted);
  });

  it('cancels the engine request when a streaming client goes away', async () => {
    const seen = { started: false, aborted: false };
    const { client } = await serve([hangUntilAborted(seen)]);
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'slow' }], stream: true },
      { signal: controller.signal },
    );
    await until(() => seen.started);
    controller.abort();
    // The client ends its iteration (quietly or with an abort error); the server must cancel the run either way.
    await (async () => {
      for await (const _chunk of stream);
    })().catch(() => undefined);
    await until(() => seen.aborted);
  });
});

describe('auth, models, health, binding', () => {
  it('needs the Bearer key when one is set (401 without it or with a wrong one)', async () => {
    const { server, client } = await serve([assistantReply('ok')], { apiKey: 'sk-right-key' });
    const body = JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] });
    expect((await post(server, body)).status).toBe(401);
    const wrong = await post(server, body, { authorization: 'Bearer sk-wrong-key' });
    expect(wrong.status).toBe(401);
    const text = await wrong.text();
    expect(text).not.toContain('sk-right-key');
    expect(JSON.parse(text)).toMatchObject({ error: { type: 'authentication_error' } });
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['scripted']);
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('ok');
  });

  it('answers /health without a key, with the engine reachability, and sends no CORS headers', async () => {
    const { server } = await serve([], { apiKey: 'sk-right-key' });
    const response = await fetch(`${server.url}/health`, { headers: { origin: 'http://evil' } });
    expect(await response.json()).toEqual({ status: 'ok', engine: 'ok' });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends CORS headers only for the configured origins', async () => {
    const { server } = await serve([], { corsOrigins: ['http://app.test'] });
    const allowed = await fetch(`${server.url}/v1/models`, {
      headers: { origin: 'http://app.test' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.test');
    const other = await fetch(`${server.url}/v1/models`, { headers: { origin: 'http://evil' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses to listen on a non-loopback address without an API key', async () => {
    await expect(serve([], { host: '0.0.0.0' })).rejects.toThrow(/without an API key/);
  });

  it('listens on 127.0.0.1 by default', async () => {
    const { server } = await serve([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
