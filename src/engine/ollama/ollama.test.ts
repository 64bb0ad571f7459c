import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  JarvisError,
  type Message,
  type OpenAIFunctionTool,
  type StreamChunk,
} from '../../core/index.js';
import type { ScriptedOpenAIServer, ScriptedServerOptions } from '../../testing/scripted-server.js';
import {
  closedPortUrl,
  collectStream,
  engineTestKit,
  failure,
  readStream,
  type ScriptedEngine,
  sendJson,
  streamedText,
  toolCallsOf,
} from '../engine-test-support.case.test.js';
import { OllamaEngine, type OllamaEngineOptions } from './ollama.js';

const QUESTION: readonly Message[] = [{ role: 'user', content: 'What is 2+2?' }];
const MODEL = 'qwen3:8b';
const CALCULATOR: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } } },
  },
};
const WEATHER: OpenAIFunctionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather.', parameters: { type: 'object' } },
};

const { track, rawServer, scriptedEngine } = engineTestKit();

function setup(
  options: Omit<ScriptedServerOptions, 'mode'>,
  engineOptions: Partial<OllamaEngineOptions> = {},
): Promise<ScriptedEngine<OllamaEngine>> {
  return scriptedEngine(
    { ...options, mode: 'ollama' } as ScriptedServerOptions,
    (server, doubles) =>
      new OllamaEngine({ host: server.url, timeoutMs: 500, ...doubles, ...engineOptions }),
  );
}

function bodyOf(server: ScriptedOpenAIServer, index = 0): Record<string, unknown> {
  return server.requests.filter((request) => request.path === '/api/chat')[index]?.body as Record<
    string,
    unknown
  >;
}

describe('OllamaEngine configuration', () => {
  it('defaults to 127.0.0.1:11434 and engine id ollama', () => {
    const engine = track(new OllamaEngine());
    expect(engine.baseUrl).toBe('http://127.0.0.1:11434');
    expect(engine.engineId).toBe('ollama');
  });

  it('accepts OLLAMA_HOST-style host:port without a scheme', async () => {
    const { server } = await setup({ script: [{ content: 'ok' }] });
    const hostPort = server.url.replace('http://', '');
    const engine = track(new OllamaEngine({ host: hostPort, engineId: 'local-ollama' }));
    expect(engine.baseUrl).toBe(server.url);
    expect((await engine.generate(QUESTION, { model: MODEL })).content).toBe('ok');
    expect(server.requests[0]?.path).toBe('/api/chat');
  });

  it('rejects a host or context limits it cannot use, saying what is accepted', () => {
    expect(() => new OllamaEngine({ host: 'ftp://box' })).toThrow(JarvisError);
    expect(() => new OllamaEngine({ host: 'box:port' })).toThrow(/host:port/);
    expect(() => new OllamaEngine({ maxContextTokens: 0 })).toThrow(/maxContextTokens 0/);
    expect(() => new OllamaEngine({ minContextTokens: 1.5 })).toThrow(/positive whole number/);
  });
});

describe('OllamaEngine requests', () => {
  it('sends assistant tool-call arguments back as objects and tool results with tool_name', async () => {
    const { server, engine } = await setup({ script: [{ content: 'Sunny, and 4.' }] });
    const conversation: Message[] = [
      ...QUESTION,
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'calculator', arguments: '{"expression":"2+2"}' },
          { id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris","days":[1,2]}' },
          { id: 'call_3', name: 'calculator', arguments: '{"expression": 2+' },
        ],
      },
      { role: 'tool', content: '4', toolCallId: 'call_1' },
      { role: 'tool', content: 'Sunny', toolCallId: 'call_2', name: 'get_weather' },
      { role: 'tool', content: 'Invalid arguments JSON', toolCallId: 'call_3' },
    ];
    await engine.generate(conversation, { model: MODEL, tools: [CALCULATOR, WEATHER] });
    const messages = bodyOf(server).messages as Record<string, unknown>[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'calculator', arguments: { expression: '2+2' } } },
        { function: { name: 'get_weather', arguments: { city: 'Paris', days: [1, 2] } } },
        { function: { name: 'calculator', arguments: {} } },
      ],
    });
    expect(messages.slice(2)).toEqual([
      { role: 'tool', content: '4', tool_name: 'calculator' },
      { role: 'tool', content: 'Sunny', tool_name: 'get_weather' },
      { role: 'tool', content: 'Invalid arguments JSON', tool_name: 'calculator' },
    ]);
    const chat = server.requests.find((request) => request.path === '/api/chat');
    expect(chat?.rawBody).not.toContain('"arguments":"');
  });

  it('sends options with num_ctx sized to the request, temperature and num_predict only when set', async () => {
    const { server, engine } = await setup({
      script: [{ content: 'a' }, { content: 'b' }, { content: 'c' }],
    });
    await engine.generate(QUESTION, { model: MODEL });
    expect(bodyOf(server, 0)).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'What is 2+2?' }],
      stream: false,
      options: { num_ctx: 4096 },
    });
    const long: Message[] = [{ role: 'user', content: 'x'.repeat(30_000) }];
    await engine.generate(long, { model: 'llama3.1:8b', temperature: 0.2, maxTokens: 2000 });
    // 10_000 + 4 prompt tokens + 2000 answer tokens, rounded up to a multiple of 2048.
    expect(bodyOf(server, 1).options).toEqual({
      num_ctx: 12_288,
      temperature: 0.2,
      num_predict: 2000,
    });
    await collectStream(engine.stream(long, { model: 'other', maxTokens: 100_000 }));
    expect(bodyOf(server, 2)).toMatchObject({ stream: true, options: { num_ctx: 32_768 } });
  });

  it('never shrinks the context window of a model, so Ollama need not reload it', async () => {
    const { server, engine } = await setup({
      script: [{ content: 'a' }, { content: 'b' }, { content: 'c' }],
    });
    await engine.generate([{ role: 'user', content: 'y'.repeat(20_000) }], { model: MODEL });
    await engine.generate(QUESTION, { model: MODEL });
    await engine.generate(QUESTION, { model: 'small:1b' });
    expect([0, 1, 2].map((index) => bodyOf(server, index).options)).toEqual([
      { num_ctx: 8192 },
      { num_ctx: 8192 },
      { num_ctx: 4096 },
    ]);
  });

  it('honours configured context bounds', async () => {
    const { server, engine } = await setup(
      { script: [{ content: 'a' }, { content: 'b' }] },
      { minContextTokens: 16_384, maxContextTokens: 8192 },
    );
    await engine.generate(QUESTION, { model: MODEL });
    const { server: capped, engine: small } = await setup(
      { script: [{ content: 'a' }] },
      { maxContextTokens: 2048 },
    );
    await small.generate([{ role: 'user', content: 'z'.repeat(50_000) }], { model: MODEL });
    expect(bodyOf(server).options).toEqual({ num_ctx: 16_384 });
    expect(bodyOf(capped).options).toEqual({ num_ctx: 2048 });
  });

  it('sends think when configured, and maps tool_choice onto the tools offered', async () => {
    const script = [{ content: 'a' }, { content: 'b' }, { content: 'c' }];
    const { server, engine } = await setup({ script }, { think: 'high' });
    await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR, WEATHER] });
    await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR], toolChoice: 'none' });
    await engine.generate(QUESTION, {
      model: MODEL,
      tools: [CALCULATOR, WEATHER],
      toolChoice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(bodyOf(server, 0)).toMatchObject({ think: 'high', tools: [CALCULATOR, WEATHER] });
    expect(bodyOf(server, 1)).not.toHaveProperty('tools');
    expect(bodyOf(server, 2).tools).toEqual([WEATHER]);
    expect(bodyOf(server, 2)).not.toHaveProperty('tool_choice');
  });
});

describe('OllamaEngine answers', () => {
  it('turns object and string arguments into JSON strings with unique generated ids', async () => {
    const { engine } = await setup({
      script: [
        {
          toolCalls: [
            { id: null, name: 'calculator', arguments: { expression: '2+2' } },
            { id: null, name: 'calculator', arguments: 'not json at all' },
            { id: null, name: 'get_weather', arguments: { city: 'Zürich', when: null } },
          ],
          usage: { promptTokens: 40, completionTokens: 9 },
        },
      ],
    });
    const result = await engine.generate(QUESTION, {
      model: MODEL,
      tools: [CALCULATOR, WEATHER],
    });
    expect(result.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['calculator', '{"expression":"2+2"}'],
      ['calculator', 'not json at all'],
      ['get_weather', '{"city":"Zürich","when":null}'],
    ]);
    const ids = result.toolCalls.map((call) => call.id);
    expect(ids[0]).toMatch(/^call_0_[0-9a-z]{8}$/);
    expect(new Set(ids).size).toBe(3);
    expect(result).toMatchObject({
      finishReason: 'tool_calls',
      content: '',
      usage: { promptTokens: 40, completionTokens: 9, totalTokens: 49 },
    });
  });

  it('keeps ids that newer Ollama versions send', async () => {
    const { engine } = await setup({
      script: [{ toolCalls: [{ id: 'call_abc', name: 'calculator', arguments: {} }] }],
    });
    const result = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] });
    expect(result.toolCalls).toEqual([{ id: 'call_abc', name: 'calculator', arguments: '{}' }]);
  });

  it('passes done_reason through as the finish reason', async () => {
    const { engine } = await setup({
      script: [
        { content: 'cut', finishReason: 'length' },
        { content: 'cut', finishReason: 'length' },
      ],
    });
    expect((await engine.generate(QUESTION, { model: MODEL })).finishReason).toBe('length');
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(chunks.at(-1)).toMatchObject({ type: 'end', finishReason: 'length' });
  });

  it('moves the thinking field and <think> blocks into reasoning, whole or streamed', async () => {
    const content = '<think>Add them:\n2 + 2.</think>\n\nIt is 4.';
    const script = [
      { reasoning: 'Field thoughts.', content },
      { content },
      { reasoning: 'Field thoughts.', content: 'It is 4.' },
    ];
    const { engine } = await setup({ script, streamChunkChars: 3 });
    const result = await engine.generate(QUESTION, { model: MODEL });
    expect(result).toMatchObject({
      content: 'It is 4.',
      reasoning: 'Field thoughts.\n\nAdd them:\n2 + 2.',
    });
    for (const reasoning of ['Add them:\n2 + 2.', 'Field thoughts.']) {
      const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
      expect(streamedText(chunks, 'text_delta')).toBe('It is 4.');
      expect(streamedText(chunks, 'reasoning_delta')).toBe(reasoning);
      const texts = chunks.flatMap((chunk) => (chunk.type === 'text_delta' ? [chunk.text] : []));
      expect(texts.length).toBeGreaterThan(1);
      expect(texts.join('')).not.toContain('<');
    }
  });
});

/** What Ollama models really write when its template parser misses the call. */
const TEXT_CALLS: readonly {
  readonly model: string;
  readonly content: string;
  readonly rest: string;
}[] = [
  {
    model: 'qwen2.5:7b',
    content:
      'I\'ll work that out.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>',
    rest: "I'll work that out.",
  },
  {
    model: 'qwen3:8b',
    content:
      '<think>\nThe user wants a sum. I should use the calculator.\n</think>\n\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>',
    rest: '',
  },
  {
    model: 'llama3.1:8b',
    content: '{"name": "calculator", "parameters": {"expression": "2+2"}}',
    rest: '',
  },
  {
    model: 'llama3.1:8b',
    content: '<|python_tag|>{"name": "calculator", "parameters": {"expression": "2+2"}}',
    rest: '',
  },
  { model: 'llama3.2:3b', content: '[calculator(expression="2+2")]', rest: '' },
];

describe('OllamaEngine tool calls written as text', () => {
  for (const { model, content, rest } of TEXT_CALLS) {
    it(`recovers a ${model} call from the text, whole and streamed`, async () => {
      const { engine } = await setup({ script: [{ content }, { content }], streamChunkChars: 7 });
      const result = await engine.generate(QUESTION, { model, tools: [CALCULATOR] });
      expect(result.toolCalls).toEqual([
        { id: expect.any(String), name: 'calculator', arguments: '{"expression":"2+2"}' },
      ]);
      expect(result).toMatchObject({ content: rest, finishReason: 'tool_calls' });
      const chunks = await collectStream(engine.stream(QUESTION, { model, tools: [CALCULATOR] }));
      expect(toolCallsOf(chunks).map((call) => call.arguments)).toEqual(['{"expression":"2+2"}']);
      // Text before the call streams as it comes, so the line break before the call may already be out.
      expect(streamedText(chunks, 'text_delta').trimEnd()).toBe(rest);
      expect(chunks.at(-1)).toMatchObject({ type: 'end', finishReason: 'tool_calls' });
    });
  }

  it('leaves the text alone when textToolCalls is off or the tool was not offered', async () => {
    const content = TEXT_CALLS[0]?.content ?? '';
    const { engine } = await setup({ script: [{ content }] }, { textToolCalls: false });
    const off = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] });
    expect(off).toMatchObject({ content, toolCalls: [], finishReason: 'stop' });
    const { engine: on } = await setup({ script: [{ content }, { content }] });
    const unoffered = await on.generate(QUESTION, { model: MODEL, tools: [WEATHER] });
    expect(unoffered).toMatchObject({ content, toolCalls: [] });
    const chunks = await collectStream(on.stream(QUESTION, { model: MODEL }));
    expect(streamedText(chunks, 'text_delta')).toBe(content);
    expect(chunks.filter((chunk) => chunk.type === 'text_delta').length).toBeGreaterThan(1);
  });

  it('prefers structured calls over anything in the text', async () => {
    const { engine } = await setup({
      script: [
        {
          content: '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>',
          toolCalls: [{ name: 'calculator', arguments: { expression: '1' } }],
        },
      ],
    });
    const result = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR, WEATHER] });
    expect(result.toolCalls.map((call) => call.name)).toEqual(['calculator']);
  });
});

describe('OllamaEngine NDJSON streams', () => {
  it('reads lines split anywhere across chunks, several per chunk, and a last line without newline', async () => {
    const lines = [
      { model: 'm', message: { role: 'assistant', content: 'Héllo ' }, done: false },
      { model: 'm', message: { role: 'assistant', content: 'wörld' }, done: false },
      {
        model: 'm',
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'calculator', arguments: { expression: '1+1' } } }],
        },
        done: false,
      },
      {
        model: 'm',
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 7,
        eval_count: 3,
      },
    ];
    const bytes = Buffer.from(lines.map((line) => JSON.stringify(line)).join('\r\n'));
    // Cut inside the two bytes of 'é', inside a JSON line, and right after a newline.
    const cuts = [0, 5, bytes.indexOf(Buffer.from('é')) + 1, 120, bytes.indexOf('\n') + 1];
    const ordered = [...cuts.sort((left, right) => left - right), bytes.length];
    const pieces = ordered
      .slice(0, -1)
      .map((start, index) => bytes.subarray(start, ordered[index + 1]));
    const url = await rawServer((_request, res) => writeSlowly(res, pieces));
    const engine = track(new OllamaEngine({ host: url }));
    const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
    expect(streamedText(chunks, 'text_delta')).toBe('Héllo wörld');
    expect(toolCallsOf(chunks)).toEqual([
      { id: expect.any(String), name: 'calculator', arguments: '{"expression":"1+1"}' },
    ]);
    expect(chunks.at(-1)).toEqual({
      type: 'end',
      finishReason: 'tool_calls',
      model: 'm',
      usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
      ttftSeconds: expect.any(Number),
    });
  });

  it('turns an error line into engine_model_error with the server words', async () => {
    const url = await rawServer((_request, res) =>
      writeSlowly(res, [
        `${JSON.stringify({ message: { content: 'Hi' }, done: false })}\n`,
        `${JSON.stringify({ error: 'llama runner process has terminated: signal: killed' })}\n`,
      ]),
    );
    const engine = track(new OllamaEngine({ host: url }));
    const error = await failure(collectStream(engine.stream(QUESTION, { model: MODEL })));
    expect(error.code).toBe('engine_model_error');
    expect(error.message).toContain('llama runner process has terminated');
    expect(error.message).toContain(`ollama engine at ${url}/api/chat`);
  });

  it('treats a stream that ends cleanly without a done line as cut', async () => {
    const url = await rawServer((_request, res) =>
      writeSlowly(res, [`${JSON.stringify({ message: { content: 'half' }, done: false })}\n`]),
    );
    const engine = track(new OllamaEngine({ host: url }));
    const error = await failure(collectStream(engine.stream(QUESTION, { model: MODEL })));
    expect(error.code).toBe('engine_stream_cut');
  });

  it('rejects a line that is not JSON as engine_protocol_error', async () => {
    const url = await rawServer((_request, res) => writeSlowly(res, ['<html>oops</html>\n']));
    const engine = track(new OllamaEngine({ host: url }));
    const error = await failure(collectStream(engine.stream(QUESTION, { model: MODEL })));
    expect(error.code).toBe('engine_protocol_error');
    expect(error.message).toContain('<html>oops</html>');
  });

  it('reports an error inside a 200 JSON answer as engine_model_error', async () => {
    const url = await rawServer((_request, res) =>
      sendJson(res, 200, { error: 'an unknown error was encountered while running the model' }),
    );
    const engine = track(new OllamaEngine({ host: url }));
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error.code).toBe('engine_model_error');
    expect(error.message).toContain('an unknown error was encountered');
  });
});

describe('OllamaEngine faults', () => {
  it('recovers from an HTTP 500 with a retry (no real wait)', async () => {
    const { server, engine, sleeps } = await setup({
      script: [{ fault: 'status', status: 500 }, { content: 'recovered' }],
    });
    expect((await engine.generate(QUESTION, { model: MODEL })).content).toBe('recovered');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([375]);
    server.assertAllRepliesConsumed();
  });

  it('says `ollama pull <model>` for a model that is not pulled, without retrying', async () => {
    const body = { error: "model 'llama3.3:70b' not found" };
    const { server, engine } = await setup({
      script: [
        { fault: 'status', status: 404, body },
        { fault: 'status', status: 404, body },
      ],
    });
    const error = await failure(engine.generate(QUESTION, { model: 'llama3.3:70b' }));
    expect(error).toMatchObject({ code: 'engine_model_error', status: 404, attempts: 1 });
    expect(error.message).toContain('`ollama pull llama3.3:70b`');
    expect(error.message).toContain("HTTP 404: model 'llama3.3:70b' not found");
    const streamed = await failure(
      collectStream(engine.stream(QUESTION, { model: 'llama3.3:70b' })),
    );
    expect(streamed.message).toContain('`ollama pull llama3.3:70b`');
    expect(server.requests).toHaveLength(2);
  });

  it('names the way out when the model cannot call tools (text calls off) or think', async () => {
    const { engine } = await setup(
      {
        script: [
          {
            fault: 'status',
            status: 400,
            body: { error: 'registry.ollama.ai/library/gemma2:2b does not support tools' },
          },
        ],
      },
      { textToolCalls: false },
    );
    const error = await failure(
      engine.generate(QUESTION, { model: 'gemma2:2b', tools: [CALCULATOR] }),
    );
    expect(error).toMatchObject({ code: 'engine_model_error', status: 400 });
    expect(error.message).toContain('does not support tools');
    expect(error.message).toContain('native_react');
    const { engine: thinking } = await setup(
      {
        script: [
          { fault: 'status', status: 400, body: { error: '"llama3.2" does not support thinking' } },
        ],
      },
      { think: true },
    );
    const noThinking = await failure(thinking.generate(QUESTION, { model: 'llama3.2' }));
    expect(noThinking).toMatchObject({ code: 'engine_model_error', status: 400 });
    expect(noThinking.message).toContain('leave the engine');
  });

  it('describes the tools in the prompt for a model whose server refuses them, from then on', async () => {
    const call =
      '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>';
    const { engine, server } = await setup({
      script: [
        {
          fault: 'status',
          status: 400,
          body: { error: 'registry.ollama.ai/library/gemma2:2b does not support tools' },
        },
        { content: call },
        { content: 'It is 4.' },
        { content: call },
      ],
    });
    const options = { model: 'gemma2:2b', tools: [CALCULATOR] };
    const first = await engine.generate(QUESTION, options);
    expect(first.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['calculator', '{"expression":"2+2"}'],
    ]);
    expect(first.content).toBe('');
    const retried = bodyOf(server, 1);
    expect(retried.tools).toBeUndefined();
    const messages = retried.messages as { role: string; content: string }[];
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toContain('calculator');
    expect(messages[0]?.content).toContain('<tool_call>');
    // The next call of the model goes as text at once; its tool call and result are written back as text.
    const history = [
      ...QUESTION,
      { role: 'assistant' as const, content: '', toolCalls: first.toolCalls },
      { role: 'tool' as const, content: '4', toolCallId: first.toolCalls[0]?.id ?? '' },
    ];
    expect((await engine.generate(history, options)).content).toBe('It is 4.');
    const third = bodyOf(server, 2);
    expect(third.tools).toBeUndefined();
    const sent = JSON.stringify(third.messages);
    expect(sent).toContain('<tool_response>');
    expect(sent).not.toContain('"role":"tool"');
    // Streaming reads the calls from the text too.
    const chunks: StreamChunk[] = [];
    for await (const chunk of engine.stream(QUESTION, options)) chunks.push(chunk);
    expect(chunks.filter((c) => c.type === 'tool_call')).toHaveLength(1);
    expect(bodyOf(server, 3).tools).toBeUndefined();
    expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(4);
  });

  it('says the host may not be Ollama when the chat endpoint itself is missing', async () => {
    const { engine } = await setup({
      script: [{ fault: 'status', status: 404, body: '404 page not found' }],
    });
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_http_error', status: 404 });
    expect(error.message).toContain('HTTP 404: 404 page not found');
    expect(error.message).toContain('check that the host points at Ollama');
  });

  it('keeps other HTTP errors as they are', async () => {
    const { engine } = await setup({ script: [{ fault: 'status', status: 400 }] });
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_http_error', status: 400 });
  });

  it('throws engine_stream_cut when the connection drops mid-stream, without retrying', async () => {
    const { server, engine } = await setup({
      script: [{ fault: 'cut_stream', afterChunks: 3, reply: { content: 'a b c d e f' } }],
    });
    const seen: StreamChunk[] = [];
    const outcome = readStream(engine.stream(QUESTION, { model: MODEL }), seen);
    await expect(outcome).rejects.toMatchObject({ code: 'engine_stream_cut', attempts: 1 });
    expect(streamedText(seen, 'text_delta')).toBe('a b c ');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused port as engine_unavailable after 3 attempts, naming the address', async () => {
    const url = await closedPortUrl();
    const sleeps: number[] = [];
    const engine = track(
      new OllamaEngine({ host: url, sleep: async (ms) => void sleeps.push(ms) }),
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_unavailable', attempts: 3, engineId: 'ollama' });
    expect(error.message).toContain(`ollama engine at ${url}/api/chat failed after 3 attempts`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(sleeps).toHaveLength(2);
    expect(await engine.health()).toBe(false);
  });
});

describe('OllamaEngine models and health', () => {
  it('lists model names from /api/tags and checks health with /api/version', async () => {
    const { server, engine } = await setup({ script: [], models: ['qwen3:8b', 'llama3.2:3b'] });
    expect(await engine.listModels()).toEqual(['qwen3:8b', 'llama3.2:3b']);
    expect(await engine.health()).toBe(true);
    expect(server.requests.map((request) => request.path)).toEqual(['/api/tags', '/api/version']);
  });

  it('rejects a model list in the wrong shape', async () => {
    const url = await rawServer((_request, res) => sendJson(res, 200, { data: [{ id: 'x' }] }));
    const engine = track(new OllamaEngine({ host: url }));
    const error = await failure(engine.listModels());
    expect(error.code).toBe('engine_protocol_error');
    expect(error.message).toContain('/api/tags');
  });

  it('health is false for a failing or silent server, within its own timeout and without retries', async () => {
    let requests = 0;
    const failing = await rawServer((_request, res) => {
      requests += 1;
      res.writeHead(500);
      res.end();
    });
    expect(await track(new OllamaEngine({ host: failing })).health()).toBe(false);
    expect(requests).toBe(1);
    const silent = await rawServer(() => {});
    const startedMs = performance.now();
    expect(await track(new OllamaEngine({ host: silent, healthTimeoutMs: 50 })).health()).toBe(
      false,
    );
    expect(performance.now() - startedMs).toBeLessThan(2_000);
  });
});

/** Writes NDJSON pieces one after another (each flushed on its own), then ends the body. */
async function writeSlowly(
  res: ServerResponse,
  pieces: readonly (string | Buffer)[],
): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  res.flushHeaders();
  for (const piece of pieces) {
    await new Promise<void>((resolve) => res.write(piece, () => resolve()));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  res.end();
}
