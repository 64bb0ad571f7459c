import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  delayReply,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from './scripted-server.js';

interface CallResult {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** One request on a fresh connection; rejects when the connection dies before the response ends. */
function call(url: string, method = 'GET', body?: unknown): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(url, {
      method,
      agent: false,
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => {
        text += piece;
      });
      res.on('aborted', () => reject(Object.assign(new Error('aborted'), { partial: text })));
      res.on('error', (error) => reject(Object.assign(error, { partial: text })));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.end(payload);
  });
}

/** Parses the `data:` lines of an SSE body. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

const servers: ScriptedOpenAIServer[] = [];

async function start(options: ScriptedServerOptions): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const chat = (server: ScriptedOpenAIServer, body: Record<string, unknown>) =>
  call(`${server.baseUrl}/chat/completions`, 'POST', { model: 'm1', messages: [], ...body });

describe('scripted server, OpenAI mode', () => {
  it('answers with JSON, records the request and exposes url and baseUrl', async () => {
    const server = await start({
      script: [{ content: 'Hello!', usage: { promptTokens: 7, completionTokens: 2 } }],
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.baseUrl).toBe(`${server.url}/v1`);
    const result = await chat(server, { messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text)).toMatchObject({
      object: 'chat.completion',
      model: 'm1',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.connectionCount).toBe(1);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'm1', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    server.assertAllRepliesConsumed();
  });

  it('sends tool calls with string arguments, optional ids, objects only when asked', async () => {
    const server = await start({
      script: [
        {
          toolCalls: [
            { id: 'call_a', name: 'calculator', arguments: { expression: '2+2' } },
            { id: null, name: 'think', arguments: '{"thought":"x"}' },
          ],
          usage: null,
          model: 'served-model',
        },
        {
          toolCalls: [{ name: 'calculator', arguments: { expression: '1' } }],
          argumentsAsObject: true,
        },
      ],
    });
    const first = JSON.parse((await chat(server, {})).text);
    expect(first.model).toBe('served-model');
    expect(first.usage).toBeUndefined();
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_a',
          type: 'function',
          function: { name: 'calculator', arguments: '{"expression":"2+2"}' },
        },
        { type: 'function', function: { name: 'think', arguments: '{"thought":"x"}' } },
      ],
    });
    const second = JSON.parse((await chat(server, {})).text);
    expect(second.choices[0].message.tool_calls[0]).toMatchObject({
      id: 'call_scripted_2_0',
      function: { arguments: { expression: '1' } },
    });
  });

  it('streams content, reasoning and tool calls as SSE deltas ending with [DONE]', async () => {
    const server = await start({
      script: [
        {
          reasoning: 'Let me see.',
          content: 'Two and two make four.',
          toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '2+2' } }],
          usage: { promptTokens: 3, completionTokens: 4 },
        },
      ],
    });
    const result = await chat(server, { stream: true, stream_options: { include_usage: true } });
    expect(result.headers['content-type']).toBe('text/event-stream');
    const data = sseData(result.text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line));
    const deltas = chunks.flatMap((chunk) =>
      chunk.choices.map((choice: { delta: unknown }) => choice.delta),
    );
    const text = (key: string) =>
      deltas.map((delta: Record<string, string>) => delta[key] ?? '').join('');
    expect(text('content')).toBe('Two and two make four.');
    expect(text('reasoning_content')).toBe('Let me see.');
    expect(
      deltas.filter((delta: Record<string, unknown>) => 'content' in delta).length,
    ).toBeGreaterThan(3);
    const toolDeltas = deltas.flatMap(
      (delta: { tool_calls?: { function: { arguments: string } }[] }) => delta.tool_calls ?? [],
    );
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'calculator', arguments: '' },
    });
    expect(toolDeltas.length).toBeGreaterThan(2);
    expect(toolDeltas.map((delta) => delta.function.arguments).join('')).toBe(
      '{"expression":"2+2"}',
    );
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, total_tokens: 7 },
    });
  });

  it('sends no usage chunk unless stream_options.include_usage asks, and honours streamChunkChars', async () => {
    const server = await start({ script: [{ content: 'abcdefg' }], streamChunkChars: 3 });
    const data = sseData((await chat(server, { stream: true })).text);
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line));
    expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
    const pieces = chunks.map((chunk) => chunk.choices[0]?.delta.content).filter(Boolean);
    expect(pieces).toEqual(['abc', 'def', 'g']);
  });

  it('lists models, answers 404 JSON elsewhere, and 400 for a body that is not JSON', async () => {
    const server = await start({ script: [], models: ['a', 'b'] });
    const models = await call(`${server.baseUrl}/models`);
    expect(JSON.parse(models.text)).toMatchObject({
      object: 'list',
      data: [{ id: 'a' }, { id: 'b' }],
    });
    const missing = await call(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error.message).toContain('GET /nope');
    const bad = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        agent: false,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.end('{not json');
    });
    expect(bad).toBe(400);
    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/models',
      '/nope',
      '/v1/chat/completions',
    ]);
    server.assertAllRepliesConsumed();
  });

  it('answers 500 when the script is exhausted and reports it, and reports leftover replies', async () => {
    const server = await start({ script: [{ content: 'one' }] });
    await chat(server, {});
    const extra = await chat(server, {});
    expect(extra.status).toBe(500);
    expect(JSON.parse(extra.text).error.message).toContain('script is exhausted');
    expect(server.unexpectedRequests).toHaveLength(1);
    expect(() => server.assertAllRepliesConsumed()).toThrow(/1 unexpected request/);
    const leftover = await start({ script: [{ content: 'never asked' }] });
    expect(() => leftover.assertAllRepliesConsumed()).toThrow(
      /1 scripted reply\(ies\) were never used/,
    );
  });

  it('asks a handler for each reply and reports a handler that throws', async () => {
    let calls = 0;
    const server = await start({
      handler: (request) => {
        calls += 1;
        if (calls === 2) throw new Error('handler broke');
        return { content: `echo ${JSON.stringify(request.body)}` };
      },
    });
    const first = JSON.parse(
      (await chat(server, { messages: [{ role: 'user', content: 'x' }] })).text,
    );
    expect(first.choices[0].message.content).toContain('"content":"x"');
    const second = await chat(server, {});
    expect(second.status).toBe(500);
    expect(second.text).toContain('handler broke');
    expect(() => server.assertAllRepliesConsumed()).toThrow(/unexpected/);
  });
});

describe('scripted server faults', () => {
  it('status: answers the status with Retry-After and a JSON or custom body', async () => {
    const server = await start({
      script: [
        { fault: 'status', status: 429, retryAfter: 2 },
        { fault: 'status', status: 503, body: 'overloaded' },
      ],
    });
    const limited = await chat(server, {});
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    expect(JSON.parse(limited.text).error.message).toBe('scripted HTTP 429');
    const overloaded = await chat(server, {});
    expect(overloaded).toMatchObject({ status: 503, text: 'overloaded' });
  });

  it('delay: answers the next reply after a real timer', async () => {
    const server = await start({ script: [delayReply(20, { content: 'late' })] });
    const started = performance.now();
    const result = await chat(server, {});
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
    expect(JSON.parse(result.text).choices[0].message.content).toBe('late');
  });

  it('reset: destroys the connection without answering', async () => {
    const server = await start({ script: [{ fault: 'reset' }] });
    await expect(chat(server, {})).rejects.toThrow(/socket hang up|ECONNRESET/);
    server.assertAllRepliesConsumed();
  });

  it('truncated_json: answers 200 with half a JSON body, or one broken stream event', async () => {
    const server = await start({
      script: [{ fault: 'truncated_json' }, { fault: 'truncated_json' }],
    });
    const plain = await chat(server, {});
    expect(plain.status).toBe(200);
    expect(plain.text.length).toBeGreaterThan(10);
    expect(() => JSON.parse(plain.text)).toThrow();
    const streamed = await chat(server, { stream: true });
    const data = sseData(streamed.text);
    expect(data).toHaveLength(1);
    expect(() => JSON.parse(data[0] ?? '')).toThrow();
  });

  it('cut_stream: sends some chunks, no terminator, and kills the connection', async () => {
    const server = await start({
      script: [
        { fault: 'cut_stream', afterChunks: 2, reply: { content: 'one two three four' } },
        { fault: 'cut_stream', afterChunks: 1 },
      ],
    });
    const error = await chat(server, { stream: true }).then(
      () => undefined,
      (reason: { partial?: string }) => reason,
    );
    expect(error?.partial).toBeDefined();
    const data = sseData(error?.partial ?? '');
    expect(data).toHaveLength(2);
    expect(data).not.toContain('[DONE]');
    await expect(chat(server, {})).rejects.toThrow(/aborted/);
  });

  it('stall: sends some chunks, then stays silent until close() ends the connection', async () => {
    const server = await start({ script: [{ fault: 'stall', afterChunks: 2 }] });
    const received: string[] = [];
    const pending = new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        agent: false,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (piece: string) => received.push(piece));
        res.on('aborted', () => resolve());
        res.on('error', () => resolve());
        res.on('end', () => reject(new Error('a stalled stream must not end')));
      });
      req.end(JSON.stringify({ model: 'm', messages: [], stream: true }));
    });
    await waitFor(() => sseData(received.join('')).length === 2);
    await server.close();
    await pending;
    expect(sseData(received.join(''))).toHaveLength(2);
  });

  it('trickle: sends a text piece every intervalMs and never ends, until close()', async () => {
    const server = await start({ script: [{ fault: 'trickle', intervalMs: 5, text: 'tick ' }] });
    const received: string[] = [];
    let enough: () => void = () => {};
    const sixEvents = new Promise<void>((resolve) => {
      enough = resolve;
    });
    const pending = new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        agent: false,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (piece: string) => {
          received.push(piece);
          if (sseData(received.join('')).length >= 6) enough();
        });
        res.on('aborted', () => resolve());
        res.on('error', () => resolve());
        res.on('end', () => reject(new Error('a trickling stream must not end')));
      });
      req.end(JSON.stringify({ model: 'm', messages: [], stream: true }));
    });
    await sixEvents;
    await server.close();
    await pending;
    const events = sseData(received.join('')).map((data) => JSON.parse(data));
    expect(events[0]?.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    for (const event of events.slice(1))
      expect(event.choices[0].delta).toEqual({ content: 'tick ' });
    expect(received.join('')).not.toContain('[DONE]');
  });

  it('modelsFault: the model list misbehaves as asked', async () => {
    const server = await start({ script: [], modelsFault: { fault: 'status', status: 503 } });
    expect((await call(`${server.baseUrl}/models`)).status).toBe(503);
  });

  it('close() ends open connections and pending delays, and is idempotent', async () => {
    const server = await start({
      script: [delayReply(60_000, { content: 'never' })],
    });
    const pending = chat(server, {});
    await waitFor(() => server.requests.length === 1);
    const closing = server.close();
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
    await closing;
    await server.close();
    await expect(call(`${server.baseUrl}/models`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('scripted server, Ollama mode', () => {
  const ollamaChat = (server: ScriptedOpenAIServer, body: Record<string, unknown>) =>
    call(`${server.url}/api/chat`, 'POST', { model: 'qwen3:8b', messages: [], ...body });

  it('answers /api/chat with stream:false as one JSON object with object arguments', async () => {
    const server = await start({
      mode: 'ollama',
      script: [
        {
          content: 'Calling.',
          reasoning: 'Need math.',
          toolCalls: [{ name: 'calculator', arguments: '{"expression":"2+2"}' }],
          usage: { promptTokens: 11, completionTokens: 5 },
        },
      ],
    });
    const body = JSON.parse((await ollamaChat(server, { stream: false })).text);
    expect(body).toMatchObject({
      model: 'qwen3:8b',
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 11,
      eval_count: 5,
      prompt_eval_duration: 2_000_000,
      message: {
        role: 'assistant',
        content: 'Calling.',
        thinking: 'Need math.',
        tool_calls: [{ function: { name: 'calculator', arguments: { expression: '2+2' } } }],
      },
    });
    expect(body.message.tool_calls[0].id).toBeUndefined();
  });

  it('streams newline-delimited JSON by default, the last object done with counts', async () => {
    const server = await start({
      mode: 'ollama',
      script: [{ content: 'Hello there friend', reasoning: 'hm' }],
    });
    const result = await ollamaChat(server, {});
    expect(result.headers['content-type']).toBe('application/x-ndjson');
    const lines = result.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({
      done: true,
      done_reason: 'stop',
      eval_count: expect.any(Number),
    });
    expect(lines.slice(0, -1).every((line) => line.done === false)).toBe(true);
    expect(lines.map((line) => line.message.content).join('')).toBe('Hello there friend');
    expect(lines.map((line) => line.message.thinking ?? '').join('')).toBe('hm');
  });

  it('serves /api/tags, /api/version and Ollama-style errors', async () => {
    const server = await start({
      mode: 'ollama',
      models: ['llama3.2:3b'],
      script: [
        { fault: 'status', status: 404 },
        { fault: 'cut_stream', afterChunks: 1 },
      ],
    });
    expect(JSON.parse((await call(`${server.url}/api/tags`)).text)).toMatchObject({
      models: [{ name: 'llama3.2:3b', model: 'llama3.2:3b' }],
    });
    expect(JSON.parse((await call(`${server.url}/api/version`)).text)).toEqual({
      version: '0.12.0',
    });
    const missing = await ollamaChat(server, {});
    expect(JSON.parse(missing.text)).toEqual({ error: 'scripted HTTP 404' });
    const error = await ollamaChat(server, {}).then(
      () => undefined,
      (reason: { partial?: string }) => reason,
    );
    const lines = (error?.partial ?? '').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ done: false });
    expect((await call(`${server.baseUrl}/models`)).status).toBe(404);
  });

  it('answers POST /api/show with the scripted details per model, and 404 for any other', async () => {
    const template = '{{ range .ToolCalls }}<tool_call>{{ end }}';
    const server = await start({
      mode: 'ollama',
      script: [],
      modelDetails: {
        'my-coder:latest': { template, family: 'qwen3moe', parser: 'qwen3-coder' },
        'plain:1b': {},
        'broken:1b': { fault: 'status', status: 500 },
      },
    });
    const show = (body: unknown) => call(`${server.url}/api/show`, 'POST', body);
    const coder = await show({ model: 'my-coder:latest' });
    expect(coder.status).toBe(200);
    expect(JSON.parse(coder.text)).toMatchObject({
      template,
      parser: 'qwen3-coder',
      details: { family: 'qwen3moe', families: ['qwen3moe'], format: 'gguf' },
      model_info: { 'general.architecture': 'qwen3moe' },
      capabilities: ['completion', 'tools'],
    });
    const plain = JSON.parse((await show({ name: 'plain:1b' })).text);
    expect(plain).toMatchObject({ details: { family: 'llama' } });
    expect(plain.template).toBeUndefined();
    const unknown = await show({ model: 'nope:7b' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({ error: "model 'nope:7b' not found" });
    expect((await show({ model: 'broken:1b' })).status).toBe(500);
    expect(JSON.parse((await show('not an object')).text)).toEqual({ error: "model '' not found" });
    // Only Ollama mode has the route, and only for POST.
    expect((await call(`${server.url}/api/show`)).status).toBe(404);
    expect(server.unexpectedRequests).toEqual([]);
  });
});

/** Waits (on the event loop, not a timer) until the condition holds. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let round = 0; round < 10_000 && !condition(); round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  expect(condition()).toBe(true);
}
