import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  type Clock,
  type EngineError,
  JarvisError,
  type Message,
  type OpenAIFunctionTool,
} from '../../core/index.js';
import {
  delayReply,
  type ScriptedFault,
  type ScriptedReply,
  type ScriptedServerOptions,
} from '../../testing/scripted-server.js';
import {
  closedPortUrl,
  collectStream,
  engineTestKit,
  failure,
  type ScriptedEngine,
  sendJson,
  streamedText,
  toolCallsOf,
  turns,
} from '../engine-test-support.case.test.js';
import {
  isOpenAIsOwnApi,
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
} from './openai-compatible.js';

const QUESTION: readonly Message[] = [{ role: 'user', content: 'What is 2+2?' }];
const MODEL = 'test-model';
const CALCULATOR: OpenAIFunctionTool = {
  type: 'function',
  function: { name: 'calculator', description: 'Arithmetic.', parameters: { type: 'object' } },
};

const { track, rawServer, scriptedEngine } = engineTestKit();

/** A scripted server and a `vllm` engine on it; waits recorded instead of slept, so retries cost no time. */
function setup(
  options: Omit<ScriptedServerOptions, 'mode'>,
  engineOptions: Partial<OpenAICompatibleEngineOptions> = {},
): Promise<ScriptedEngine<OpenAICompatibleEngine>> {
  return scriptedEngine(
    options as ScriptedServerOptions,
    (server, doubles) =>
      new OpenAICompatibleEngine({
        baseUrl: server.baseUrl,
        engineId: 'vllm',
        timeoutMs: 2_000,
        ...doubles,
        ...engineOptions,
      }),
  );
}

async function streamFailure(engine: OpenAICompatibleEngine): Promise<EngineError> {
  return failure(collectStream(engine.stream(QUESTION, { model: MODEL })));
}

describe('OpenAICompatibleEngine configuration', () => {
  it('has default addresses per server kind and needs one for openai', () => {
    expect(OPENAI_COMPATIBLE_DEFAULT_BASE_URLS).toEqual({
      vllm: 'http://127.0.0.1:8000',
      llamacpp: 'http://127.0.0.1:8080',
      sglang: 'http://127.0.0.1:30000',
      lmstudio: 'http://127.0.0.1:1234',
    });
    expect(new OpenAICompatibleEngine({ engineId: 'sglang' }).baseUrl).toBe(
      'http://127.0.0.1:30000',
    );
    expect(() => new OpenAICompatibleEngine({ engineId: 'openai' })).toThrow(JarvisError);
    expect(() => new OpenAICompatibleEngine({})).toThrow(/needs a baseUrl/);
    expect(() => new OpenAICompatibleEngine({ baseUrl: 'ftp://x' })).toThrow(
      /Invalid engine base URL/,
    );
  });

  it('accepts base URLs with or without /v1 and a trailing slash', async () => {
    for (const suffix of ['', '/', '/v1', '/v1/']) {
      const { server, engine } = await setup({ script: [{ content: 'ok' }] });
      const direct = track(new OpenAICompatibleEngine({ baseUrl: `${server.url}${suffix}` }));
      expect(direct.baseUrl).toBe(server.url);
      expect((await direct.generate(QUESTION, { model: MODEL })).content).toBe('ok');
      expect(server.requests[0]?.path).toBe('/v1/chat/completions');
      await engine.close();
    }
  });

  it('sends Authorization: Bearer with an API key, plus extra headers', async () => {
    const { server, engine } = await setup(
      { script: [{ content: 'ok' }] },
      { apiKey: 'sk-test', headers: { 'x-team': 'jarvis' } },
    );
    await engine.generate(QUESTION, { model: MODEL });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]?.headers['x-team']).toBe('jarvis');
    const { server: open, engine: anonymous } = await setup({ script: [{ content: 'ok' }] });
    await anonymous.generate(QUESTION, { model: MODEL });
    expect(open.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describe('OpenAICompatibleEngine answers', () => {
  it('replaces missing and duplicate tool-call ids with unique call_<n>_<random> ids', async () => {
    const { engine } = await setup({
      script: [
        {
          toolCalls: [
            { id: null, name: 'calculator', arguments: '{}' },
            { id: 'dup', name: 'calculator', arguments: '{}' },
            { id: 'dup', name: 'calculator', arguments: '' },
          ],
        },
      ],
    });
    const result = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] });
    const ids = result.toolCalls.map((call) => call.id);
    expect(ids[0]).toMatch(/^call_0_[0-9a-z]{8}$/);
    expect(ids[1]).toBe('dup');
    expect(ids[2]).toMatch(/^call_2_[0-9a-z]{8}$/);
    expect(new Set(ids).size).toBe(3);
    expect(result.toolCalls[2]?.arguments).toBe('{}');
    expect(result.finishReason).toBe('tool_calls');
  });

  it('stringifies object arguments from servers that send them', async () => {
    const { engine } = await setup({
      script: [
        {
          toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }],
          argumentsAsObject: true,
        },
      ],
    });
    const result = await engine.generate(QUESTION, { model: MODEL });
    expect(result.toolCalls[0]?.arguments).toBe('{"expression":"1+1"}');
  });

  it('moves <think> blocks out of the content into reasoning, with or without streaming', async () => {
    const content = '<think>Add them.</think>\n\nIt is 4.';
    const { engine } = await setup({ script: [{ content }, { content }], streamChunkChars: 3 });
    const result = await engine.generate(QUESTION, { model: MODEL });
    expect(result).toMatchObject({ content: 'It is 4.', reasoning: 'Add them.' });
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(streamedText(chunks, 'text_delta')).toBe('It is 4.');
    expect(streamedText(chunks, 'reasoning_delta')).toBe('Add them.');
  });

  it('reports zero usage when the server sends none, and the served model name', async () => {
    const { engine } = await setup({
      script: [{ content: 'x', usage: null, model: 'served/name' }],
    });
    const result = await engine.generate(QUESTION, { model: MODEL });
    expect(result.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(result.model).toBe('served/name');
  });

  it('measures ttftSeconds with the injected clock', async () => {
    let nowMs = 0;
    const clock: Clock = { nowMs: () => 0, monotonicMs: () => (nowMs += 250) };
    const { engine } = await setup(
      { script: [{ content: 'a b c' }, { content: 'a b c' }] },
      { clock },
    );
    expect((await engine.generate(QUESTION, { model: MODEL })).ttftSeconds).toBe(0.25);
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(chunks.at(-1)).toMatchObject({ type: 'end', ttftSeconds: 0.25 });
  });

  it('asks streams for usage unless told not to', async () => {
    const { server, engine } = await setup({ script: [{ content: 'x' }] }, { streamUsage: false });
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(server.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(chunks.at(-1)).toMatchObject({ usage: { totalTokens: 0 } });
    const { server: usageServer, engine: usageEngine } = await setup({
      script: [{ content: 'x' }],
    });
    await collectStream(usageEngine.stream(QUESTION, { model: MODEL }));
    expect(usageServer.requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reuses keep-alive connections across calls and finished streams', async () => {
    const { server, engine } = await setup({
      script: [
        { content: 'a b' },
        { content: 'c d' },
        { content: 'e' },
        { content: 'f g' },
        { content: 'h' },
      ],
    });
    for (let round = 0; round < 3; round += 1) {
      if (round > 0) await engine.generate(QUESTION, { model: MODEL });
      await collectStream(engine.stream(QUESTION, { model: MODEL }));
      // The rest of a finished stream (its end) is read in the background; let that happen.
      await turns(20);
    }
    // undici opens a second connection when a request follows the previous answer at once; then both are reused.
    expect(server.connectionCount).toBeLessThanOrEqual(2);
  });

  it('sends tool_choice only together with tools', async () => {
    const { server, engine } = await setup({ script: [{ content: 'a' }, { content: 'b' }] });
    await engine.generate(QUESTION, { model: MODEL, toolChoice: 'required' });
    await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR], toolChoice: 'required' });
    expect(server.requests[0]?.body).not.toHaveProperty('tool_choice');
    expect(server.requests[0]?.body).not.toHaveProperty('tools');
    expect(server.requests[1]?.body).toMatchObject({
      tool_choice: 'required',
      tools: [CALCULATOR],
    });
  });

  it('reads tool calls written as text only when textToolCalls is on (default but on OpenAI itself) and the tool was offered', async () => {
    const content =
      '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>';
    const script: ScriptedReply[] = [{ content }, { content }, { content }];
    const { engine } = await setup({ script }, { textToolCalls: true });
    const result = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] });
    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'calculator', arguments: '{"expression":"2+2"}' },
    ]);
    expect(result).toMatchObject({ content: '', finishReason: 'tool_calls' });
    const chunks = await collectStream(
      engine.stream(QUESTION, { model: MODEL, tools: [CALCULATOR] }),
    );
    expect(chunks.map((chunk) => chunk.type)).toEqual(['tool_call', 'end']);
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'tool_calls' });
    const unoffered = await engine.generate(QUESTION, { model: MODEL });
    expect(unoffered).toMatchObject({ content, toolCalls: [] });
    const { engine: switchedOff } = await setup(
      { script: [{ content }] },
      { textToolCalls: false },
    );
    expect(
      (await switchedOff.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] })).toolCalls,
    ).toEqual([]);
    // `openai` with a base URL is any OpenAI-compatible server: a local model there may write its calls as text.
    const { engine: compatible } = await setup({ script: [{ content }] }, { engineId: 'openai' });
    expect(
      (await compatible.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] })).toolCalls,
    ).toHaveLength(1);
    const { engine: local } = await setup({ script: [{ content }] }, { engineId: 'llamacpp' });
    expect(
      (await local.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] })).toolCalls,
    ).toHaveLength(1);
  });

  it("knows OpenAI's own API (whose models never write calls as text) by its address", () => {
    for (const address of [
      'https://api.openai.com/v1',
      'https://API.OpenAI.com.',
      'https://my-team.openai.azure.com/openai/deployments/x',
    ]) {
      expect(isOpenAIsOwnApi(address), address).toBe(true);
    }
    for (const address of [
      'http://127.0.0.1:8000/v1',
      'https://api.openai.com.evil.example/v1',
      'https://openrouter.ai/api/v1',
      'not a url',
    ]) {
      expect(isOpenAIsOwnApi(address), address).toBe(false);
    }
  });

  it('reads the configured tool-call format first (toolCallFormat), and refuses an unknown one', async () => {
    const content = '>>>calculator\n{"expression": "2+2"}';
    const { engine: byDefault } = await setup({ script: [{ content }] }, { textToolCalls: true });
    expect(
      (await byDefault.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] })).toolCalls,
    ).toEqual([]);
    const { engine } = await setup(
      { script: [{ content }] },
      { textToolCalls: true, toolCallFormat: 'functionary-v3.2' },
    );
    const result = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] });
    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'calculator', arguments: '{"expression":"2+2"}' },
    ]);
    expect(() => new OpenAICompatibleEngine({ engineId: 'vllm', toolCallFormat: 'qwen4' })).toThrow(
      "Unknown tool call format 'qwen4'",
    );
  });

  it("reads a model family's own call format (Qwen3-Coder XML) with arguments typed by the schema, whole and streamed", async () => {
    const weather: OpenAIFunctionTool = {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer' } },
        },
      },
    };
    const content =
      'Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>';
    const { engine } = await setup({ script: [{ content }, { content }] }, { textToolCalls: true });
    const result = await engine.generate(QUESTION, { model: 'qwen3-coder', tools: [weather] });
    expect(result).toMatchObject({ content: 'Checking.', finishReason: 'tool_calls' });
    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'get_weather', arguments: '{"city":"Oslo","days":3}' },
    ]);
    const chunks = await collectStream(
      engine.stream(QUESTION, { model: 'qwen3-coder', tools: [weather] }),
    );
    expect(chunks.map((chunk) => chunk.type)).toEqual(['text_delta', 'tool_call', 'end']);
    expect(chunks[1]).toMatchObject({
      toolCall: { name: 'get_weather', arguments: '{"city":"Oslo","days":3}' },
    });
  });

  it('rejects an answer without choices as engine_protocol_error naming the address', async () => {
    const url = await rawServer((_request, res) =>
      sendJson(res, 200, { object: 'chat.completion' }),
    );
    const engine = track(new OpenAICompatibleEngine({ baseUrl: url, engineId: 'llamacpp' }));
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error.code).toBe('engine_protocol_error');
    expect(error.message).toContain(`llamacpp engine at ${url}/v1/chat/completions`);
    expect(error.message).toContain('choices[0].message');
  });
});

describe('OpenAICompatibleEngine with unusual servers', () => {
  it('replays a JSON answer to a stream request as a stream', async () => {
    const url = await rawServer((_request, res) =>
      sendJson(res, 200, {
        model: 'm',
        choices: [{ message: { content: 'whole', tool_calls: [] }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      }),
    );
    const engine = track(new OpenAICompatibleEngine({ baseUrl: url }));
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(chunks).toEqual([
      { type: 'text_delta', text: 'whole' },
      {
        type: 'end',
        finishReason: 'stop',
        model: 'm',
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
        ttftSeconds: expect.any(Number),
      },
    ]);
  });

  it('assembles tool-call deltas without index by id, and object arguments', async () => {
    const events = [
      {
        choices: [
          {
            delta: {
              tool_calls: [{ id: 'a', function: { name: 'calculator', arguments: '{"expr' } }],
            },
          },
        ],
      },
      { choices: [{ delta: { tool_calls: [{ function: { arguments: 'ession":"1"}' } }] } }] },
      {
        choices: [
          {
            delta: { tool_calls: [{ id: 'b', function: { name: 'think', arguments: { t: 1 } } }] },
          },
        ],
      },
      { choices: [{ delta: {}, finish_reason: 'tool_calls' }] },
    ];
    const url = await rawServer((_request, res) =>
      sendSse(
        res,
        events.map((e) => JSON.stringify(e)),
      ),
    );
    const engine = track(new OpenAICompatibleEngine({ baseUrl: url }));
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(toolCallsOf(chunks)).toEqual([
      { id: 'a', name: 'calculator', arguments: '{"expression":"1"}' },
      { id: 'b', name: 'think', arguments: '{"t":1}' },
    ]);
    expect(chunks.at(-1)).toMatchObject({ type: 'end', finishReason: 'tool_calls', model: MODEL });
  });

  it('turns an error event inside a stream into engine_model_error', async () => {
    const url = await rawServer((_request, res) =>
      sendSse(res, [JSON.stringify({ error: { message: 'CUDA out of memory' } })]),
    );
    const engine = track(new OpenAICompatibleEngine({ baseUrl: url }));
    const error = await streamFailure(engine);
    expect(error.code).toBe('engine_model_error');
    expect(error.message).toContain('CUDA out of memory');
  });

  it('treats a stream that ends cleanly without [DONE] or finish_reason as cut', async () => {
    const url = await rawServer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ choices: [{ delta: { content: 'half' } }] })}\n\n`);
    });
    const engine = track(new OpenAICompatibleEngine({ baseUrl: url }));
    expect((await streamFailure(engine)).code).toBe('engine_stream_cut');
  });

  it('lists models and rejects a model list in the wrong shape', async () => {
    const url = await rawServer((_request, res) => sendJson(res, 200, { models: ['x'] }));
    const engine = track(new OpenAICompatibleEngine({ baseUrl: url }));
    expect((await failure(engine.listModels())).code).toBe('engine_protocol_error');
  });
});

interface FaultCase {
  readonly name: string;
  readonly fault: ScriptedFault;
  readonly code: string;
  readonly status?: number;
  /** Attempts before giving up on a persistent fault; default 3. */
  readonly attempts?: number;
}

const FAULTS: readonly FaultCase[] = [
  {
    name: 'HTTP 500',
    fault: { fault: 'status', status: 500 },
    code: 'engine_http_error',
    status: 500,
  },
  {
    name: 'HTTP 502',
    fault: { fault: 'status', status: 502 },
    code: 'engine_http_error',
    status: 502,
  },
  {
    name: 'HTTP 503',
    fault: { fault: 'status', status: 503 },
    code: 'engine_http_error',
    status: 503,
  },
  {
    name: 'HTTP 429 with Retry-After',
    fault: { fault: 'status', status: 429, retryAfter: 1 },
    code: 'engine_http_error',
    status: 429,
  },
  { name: 'connection reset', fault: { fault: 'reset' }, code: 'engine_unavailable' },
  {
    name: 'timeout',
    fault: delayReply(5_000, { content: 'late' }),
    code: 'engine_timeout',
    // A server that took the request and went silent is retried once, never twice.
    attempts: 2,
  },
  { name: 'truncated JSON', fault: { fault: 'truncated_json' }, code: 'engine_protocol_error' },
  {
    name: 'body cut off',
    fault: { fault: 'cut_stream', afterChunks: 0 },
    code: 'engine_unavailable',
  },
];

/** The small per-attempt timeout of the fault matrix, so timeouts cost little. */
const FAST: Partial<OpenAICompatibleEngineOptions> = { timeoutMs: 200 };

describe('OpenAICompatibleEngine fault matrix (timeout 200 ms, no-wait sleep)', () => {
  for (const { name, fault, code, status, attempts = 3 } of FAULTS) {
    it(`${name}: one fault is recovered by a retry`, async () => {
      const { server, engine } = await setup({ script: [fault, { content: 'recovered' }] }, FAST);
      expect((await engine.generate(QUESTION, { model: MODEL })).content).toBe('recovered');
      expect(server.requests).toHaveLength(2);
      server.assertAllRepliesConsumed();
    });

    it(`${name}: a persistent fault ends in an EngineError after ${attempts} attempts`, async () => {
      const script = Array.from({ length: attempts }, () => fault);
      const { server, engine } = await setup({ script }, FAST);
      const startedMs = performance.now();
      const error = await failure(engine.generate(QUESTION, { model: MODEL }));
      expect(performance.now() - startedMs).toBeLessThan(3 * 200 + 2_000);
      expect(error).toMatchObject({ code, engineId: 'vllm', attempts, status });
      expect(error.address).toBe(`${server.url}/v1/chat/completions`);
      expect(error.message).toContain(
        `vllm engine at ${server.url}/v1/chat/completions failed after ${attempts} attempts`,
      );
      if (status !== undefined)
        expect(error.message).toContain(`HTTP ${status}: scripted HTTP ${status}`);
      expect(server.requests).toHaveLength(attempts);
      server.assertAllRepliesConsumed();
    });
  }

  it('refused connection (closed port): engine_unavailable after 3 attempts', async () => {
    const url = await closedPortUrl();
    const sleeps: number[] = [];
    const engine = track(
      new OpenAICompatibleEngine({
        baseUrl: url,
        engineId: 'sglang',
        sleep: async (ms) => void sleeps.push(ms),
      }),
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_unavailable', attempts: 3, engineId: 'sglang' });
    expect(error.message).toContain(
      `sglang engine at ${url}/v1/chat/completions failed after 3 attempts`,
    );
    expect(error.message).toContain('ECONNREFUSED');
    expect(sleeps).toHaveLength(2);
  });

  it('waits as Retry-After says (capped at 30 s), else exponential backoff with jitter', async () => {
    const { sleeps, engine } = await setup({
      script: [
        { fault: 'status', status: 429, retryAfter: 2 },
        { fault: 'status', status: 503, retryAfter: 3600 },
        { content: 'ok' },
        { fault: 'status', status: 500 },
        { fault: 'status', status: 500 },
        { content: 'ok' },
      ],
    });
    await engine.generate(QUESTION, { model: MODEL });
    await engine.generate(QUESTION, { model: MODEL });
    expect(sleeps).toEqual([2_000, 30_000, 375, 750]);
  });

  it('never retries other 4xx answers, and names the server message', async () => {
    for (const status of [400, 401, 422]) {
      const { server, engine } = await setup({
        script: [
          {
            fault: 'status',
            status,
            body: { error: { message: `model 'x' is not served (${status})` } },
          },
        ],
      });
      const error = await failure(engine.generate(QUESTION, { model: MODEL }));
      expect(error).toMatchObject({ code: 'engine_http_error', status, attempts: 1 });
      expect(error.message).toContain(`HTTP ${status}: model 'x' is not served (${status})`);
      expect(server.requests).toHaveLength(1);
    }
  });

  it('streams: faults before the first byte are retried', async () => {
    const { server, engine } = await setup(
      {
        script: [
          { fault: 'status', status: 503 },
          { fault: 'reset' },
          { content: 'streamed fine' },
          delayReply(5_000, { content: 'late' }),
          { fault: 'cut_stream', afterChunks: 0 },
          { content: 'streamed again' },
        ],
      },
      FAST,
    );
    const first = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(streamedText(first, 'text_delta')).toBe('streamed fine');
    const second = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(streamedText(second, 'text_delta')).toBe('streamed again');
    server.assertAllRepliesConsumed();
  });

  it('streams: a fault after the first byte is not retried', async () => {
    const { server, engine } = await setup(
      {
        script: [
          { fault: 'cut_stream', afterChunks: 3 },
          { fault: 'truncated_json' },
          { fault: 'stall', afterChunks: 2 },
        ],
      },
      FAST,
    );
    expect(await streamFailure(engine)).toMatchObject({ code: 'engine_stream_cut', attempts: 1 });
    expect(await streamFailure(engine)).toMatchObject({ code: 'engine_protocol_error' });
    const stalled = await streamFailure(engine);
    expect(stalled).toMatchObject({ code: 'engine_timeout', attempts: 1 });
    expect(server.requests).toHaveLength(3);
  });

  it('streams: a persistent fault before the first byte ends after 3 attempts', async () => {
    const fault: ScriptedFault = { fault: 'status', status: 502 };
    const { server, engine } = await setup({ script: [fault, fault, fault] }, FAST);
    expect(await streamFailure(engine)).toMatchObject({
      code: 'engine_http_error',
      status: 502,
      attempts: 3,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('health answers false for a failing or slow model list, within its own timeout', async () => {
    const failing = await setup({ script: [], modelsFault: { fault: 'status', status: 503 } });
    expect(await failing.engine.health()).toBe(false);
    expect(failing.server.requests).toHaveLength(1);
    const slow = await setup(
      { script: [], modelsFault: delayReply(5_000, {}) },
      { healthTimeoutMs: 50 },
    );
    expect(await slow.engine.health()).toBe(false);
  });
});

describe('OpenAICompatibleEngine: a server that takes no tools', () => {
  it('sends the tools in the prompt when vLLM refuses them, in the syntax the model name says', async () => {
    const call =
      '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>';
    const { engine, server } = await setup({
      script: [
        {
          fault: 'status',
          status: 400,
          body: {
            error: {
              message:
                '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
              type: 'BadRequestError',
            },
          },
        },
        { content: call },
      ],
    });
    const result = await engine.generate(QUESTION, { model: 'hermes-3-8b', tools: [CALCULATOR] });
    expect(result.toolCalls.map((c) => c.name)).toEqual(['calculator']);
    const retried = server.requests[1]?.body as {
      tools?: unknown;
      messages: { content: string }[];
    };
    expect(retried.tools).toBeUndefined();
    expect(retried.messages[0]?.content).toContain('<tool_call>');
  });

  it('tells a model whose format is always read (Qwen3-Coder, GPT-OSS) its own syntax, known from its name', async () => {
    const refusal = {
      fault: 'status' as const,
      status: 400,
      body: { error: { message: 'tools param requires --jinja flag' } },
    };
    const cases = [
      {
        model: 'qwen3-coder-30b-a3b',
        told: '<function=calculator>',
        call: '<tool_call>\n<function=calculator>\n<parameter=expression>\n2+2\n</parameter>\n</function>\n</tool_call>',
      },
      {
        model: 'gpt-oss-20b',
        told: 'to=functions.calculator',
        call: '<|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{"expression": "2+2"}<|call|>',
      },
    ];
    for (const { model, told, call } of cases) {
      const { engine, server } = await setup({ script: [refusal, { content: call }] });
      const result = await engine.generate(QUESTION, { model, tools: [CALCULATOR] });
      expect(result.toolCalls, model).toEqual([
        { id: expect.any(String), name: 'calculator', arguments: '{"expression":"2+2"}' },
      ]);
      const retried = server.requests[1]?.body as { messages: { content: string }[] };
      expect(retried.messages[0]?.content, model).toContain(told);
      expect(retried.messages[0]?.content, model).not.toContain('<tool_call>\n{');
    }
  });

  it('keeps any other 400 an error, without a second request', async () => {
    const { engine, server } = await setup({
      script: [{ fault: 'status', status: 400, body: { error: { message: 'context too long' } } }],
    });
    await expect(
      engine.generate(QUESTION, { model: 'm', tools: [CALCULATOR] }),
    ).rejects.toMatchObject({ status: 400 });
    expect(server.requests).toHaveLength(1);
  });
});

function sendSse(res: ServerResponse, data: readonly string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(data.map((line) => `data: ${line}\n\n`).join(''));
}
