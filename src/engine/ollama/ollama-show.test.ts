import { describe, expect, it, vi } from 'vitest';
import {
  type Clock,
  EngineError,
  type Message,
  type OpenAIFunctionTool,
} from '../../core/index.js';
import {
  delayReply,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
} from '../../testing/scripted-server.js';
import {
  collectStream,
  engineTestKit,
  failure,
  type ScriptedEngine,
  streamedText,
  toolCallsOf,
} from '../engine-test-support.case.test.js';
import type { DialectJsonRequest } from '../http/chat-dialect.js';
import { toolCallFormatsFor } from '../wire/formats/family-formats.js';
import { OllamaEngine, type OllamaEngineOptions } from './ollama.js';
import { OllamaFormatChooser, readOllamaShow } from './ollama-show.js';

const QUESTION: readonly Message[] = [{ role: 'user', content: 'Weather in Oslo?' }];
const WEATHER: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather.',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};
const QWEN_CODER_TEMPLATE =
  '{{ range .ToolCalls }}<tool_call>\n<function={{ .Function.Name }}>\n{{ range $k, $v := .Function.Arguments }}<parameter={{ $k }}>\n{{ $v }}\n</parameter>\n{{ end }}</function>\n</tool_call>{{ end }}';
const QWEN_CODER_CALL =
  'Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>';
/** Functionary v3.2's `>>>` segments, which ordinary text also holds: read only on evidence. */
const FUNCTIONARY_TEMPLATE =
  "{{ '>>>all\\n' + message['content'] }}{% for tc in message['tool_calls'] %}{{ '>>>' + tc['function']['name'] + '\\n' + tc['function']['arguments'] }}{% endfor %}";
const FUNCTIONARY_CALL = '>>>get_weather\n{"city": "Oslo"}';
const OSLO = '{"city":"Oslo"}';

const { scriptedEngine } = engineTestKit();

function setup(
  options: Omit<ScriptedServerOptions, 'mode'>,
  engineOptions: Partial<OllamaEngineOptions> = {},
): Promise<ScriptedEngine<OllamaEngine>> {
  return scriptedEngine(
    { ...options, mode: 'ollama' } as ScriptedServerOptions,
    (server, doubles) =>
      new OllamaEngine({ host: server.url, timeoutMs: 2_000, ...doubles, ...engineOptions }),
  );
}

function showRequests(server: ScriptedOpenAIServer) {
  return server.requests.filter((request) => request.path === '/api/show');
}

describe('readOllamaShow', () => {
  it('reads the template, parser and families, skipping malformed fields', () => {
    const body = {
      template: '<tool_call>',
      parser: 'qwen3-coder',
      details: { family: 'qwen3moe', families: ['qwen3moe', 7] },
      model_info: { 'general.architecture': 'qwen3moe' },
    };
    expect(readOllamaShow(body, 'm')).toEqual({
      model: 'm',
      template: '<tool_call>',
      parser: 'qwen3-coder',
      families: ['qwen3moe', 'qwen3moe', 'qwen3moe'],
    });
    const odd = { template: 5, parser: null, details: 'x', model_info: [] };
    expect(readOllamaShow(odd, 'm')).toEqual({
      model: 'm',
      template: undefined,
      parser: undefined,
      families: [],
    });
    for (const junk of [null, 'text', [], 3])
      expect(readOllamaShow(junk, 'm')).toEqual({ model: 'm' });
  });
});

describe('OllamaFormatChooser', () => {
  let nowMs = 0;
  const clock: Clock = { nowMs: () => nowMs, monotonicMs: () => nowMs };
  const refused = new EngineError({
    code: 'engine_http_error',
    engineId: 'ollama',
    address: 'x',
    status: 404,
    detail: "model 'm' not found",
  });

  it('asks once per model, also for calls made at the same time', async () => {
    const request = vi.fn<DialectJsonRequest>(async () => ({ template: '<arg_key>' }));
    const chooser = new OllamaFormatChooser({ clock });
    const [a, b] = await Promise.all([chooser.choose('m', request), chooser.choose('m', request)]);
    expect(a).toBe(b);
    expect(a.formats[0]?.name).toBe('glm-4.5');
    expect(a.source).toBe('template');
    expect((await chooser.choose('m', request)).source).toBe('template');
    await chooser.choose('other', request);
    expect(request.mock.calls.map(([call]) => [call.path, call.body, call.timeoutMs])).toEqual([
      ['/api/show', { model: 'm' }, 2_000],
      ['/api/show', { model: 'other' }, 2_000],
    ]);
  });

  it('falls back to the name on failure: asks again next call, or after a refusal once its wait is over', async () => {
    let failure: unknown = new Error('socket hang up');
    const request = vi.fn<DialectJsonRequest>(async () => {
      throw failure;
    });
    const chooser = new OllamaFormatChooser({ clock, timeoutMs: 50, retryAfterMs: 1_000 });
    const fallback = { formats: toolCallFormatsFor('hermes-3'), source: 'name' };
    expect(await chooser.choose('hermes-3', request)).toEqual(fallback);
    expect(await chooser.choose('hermes-3', request)).toEqual(fallback);
    expect(request).toHaveBeenCalledTimes(2);
    failure = refused;
    await chooser.choose('hermes-3', request);
    await chooser.choose('hermes-3', request);
    expect(request).toHaveBeenCalledTimes(3);
    nowMs += 1_000;
    request.mockImplementation(async () => ({ details: { family: 'gptoss' } }));
    expect((await chooser.choose('hermes-3', request)).source).toBe('family');
    expect(request).toHaveBeenCalledTimes(4);
  });
});

describe('OllamaEngine chooses the tool-call format from /api/show', () => {
  it('reads a call in the format the template says, whole and streamed, asking /api/show once', async () => {
    const log: string[] = [];
    const { engine, server } = await setup(
      {
        script: [{ content: FUNCTIONARY_CALL }, { content: FUNCTIONARY_CALL }],
        modelDetails: { 'my-assistant:latest': { template: FUNCTIONARY_TEMPLATE } },
      },
      { onToolCallFormat: (message) => log.push(message) },
    );
    const options = { model: 'my-assistant:latest', tools: [WEATHER] };
    const result = await engine.generate(QUESTION, options);
    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'get_weather', arguments: OSLO },
    ]);
    expect(result.finishReason).toBe('tool_calls');
    const chunks = await collectStream(engine.stream(QUESTION, options));
    expect(toolCallsOf(chunks).map((call) => call.arguments)).toEqual([OSLO]);
    expect(showRequests(server).map((request) => request.body)).toEqual([
      { model: 'my-assistant:latest' },
    ]);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(
      /^tool-call format for my-assistant:latest: functionary-v3\.2, qwen3-coder, .* \(from template\)$/,
    );
  });

  it('reads a qwen3-coder call of a model whose name says nothing, whole and streamed', async () => {
    const { engine, server } = await setup({
      script: [{ content: QWEN_CODER_CALL }, { content: QWEN_CODER_CALL }],
      modelDetails: { 'my-coder:latest': { template: QWEN_CODER_TEMPLATE, family: 'qwen3moe' } },
      streamChunkChars: 5,
    });
    const options = { model: 'my-coder:latest', tools: [WEATHER] };
    const result = await engine.generate(QUESTION, options);
    expect(result).toMatchObject({ content: 'Checking.', finishReason: 'tool_calls' });
    expect(result.toolCalls.map((call) => call.arguments)).toEqual([OSLO]);
    const chunks = await collectStream(engine.stream(QUESTION, options));
    expect(toolCallsOf(chunks).map((call) => call.arguments)).toEqual([OSLO]);
    expect(streamedText(chunks, 'text_delta').trim()).toBe('Checking.');
    expect(showRequests(server)).toHaveLength(1);
  });

  it('still answers when /api/show says 404, and does not ask again right away', async () => {
    const { engine, server } = await setup({
      script: [{ content: FUNCTIONARY_CALL }, { content: 'Sunny.' }],
    });
    const options = { model: 'my-assistant:latest', tools: [WEATHER] };
    // Nothing known: `>>>` is not read as a call.
    expect(await engine.generate(QUESTION, options)).toMatchObject({
      content: FUNCTIONARY_CALL,
      toolCalls: [],
    });
    expect((await engine.generate(QUESTION, options)).content).toBe('Sunny.');
    expect(showRequests(server)).toHaveLength(1);
  });

  it('answers by the name when /api/show hangs past its timeout or drops the connection, and asks again', async () => {
    const hang = delayReply(30_000, {});
    const { engine, server } = await setup(
      {
        script: [{ content: 'a' }, { content: 'b' }, { content: 'c' }],
        modelDetails: { 'slow:1b': hang, 'reset:1b': { fault: 'reset' } },
      },
      { showTimeoutMs: 100 },
    );
    const startedMs = performance.now();
    expect((await engine.generate(QUESTION, { model: 'slow:1b', tools: [WEATHER] })).content).toBe(
      'a',
    );
    const chunks = await collectStream(
      engine.stream(QUESTION, { model: 'slow:1b', tools: [WEATHER] }),
    );
    expect(streamedText(chunks, 'text_delta')).toBe('b');
    // Far below the 30 s the server hangs for: each wait ended at the 100 ms timeout (loose for a loaded machine).
    expect(performance.now() - startedMs).toBeLessThan(8_000);
    expect((await engine.generate(QUESTION, { model: 'reset:1b', tools: [WEATHER] })).content).toBe(
      'c',
    );
    expect(
      showRequests(server).map((request) => (request.body as { model: string }).model),
    ).toEqual(['slow:1b', 'slow:1b', 'reset:1b']);
  });

  it('stops waiting for /api/show when the call is cancelled, and asks again next time', async () => {
    const hang = delayReply(30_000, {});
    const { engine, server } = await setup(
      { script: [{ content: 'a' }, { content: 'b' }], modelDetails: { 'slow:1b': hang } },
      { showTimeoutMs: 10_000 },
    );
    /** A call cancelled once its `/api/show` request arrived (after the answer), while that hangs for 10 s. */
    const cancelledCall = async (requestsBefore: number) => {
      const controller = new AbortController();
      const options = { model: 'slow:1b', tools: [WEATHER], signal: controller.signal };
      const startedMs = performance.now();
      const outcome = failure(engine.generate(QUESTION, options));
      await vi.waitFor(() => expect(server.requests).toHaveLength(requestsBefore + 2), {
        interval: 5,
      });
      controller.abort();
      const error = await outcome;
      return { code: error.code, elapsedMs: performance.now() - startedMs };
    };
    const first = await cancelledCall(0);
    expect(first.code).toBe('engine_cancelled');
    expect(first.elapsedMs).toBeLessThan(5_000);
    expect((await cancelledCall(2)).code).toBe('engine_cancelled');
    expect(server.requests.map((request) => request.path)).toEqual([
      '/api/chat',
      '/api/show',
      '/api/chat',
      '/api/show',
    ]);
    expect(showRequests(server)).toHaveLength(2);
  });

  it('asks nothing when a format is configured or no tool is offered', async () => {
    const log: string[] = [];
    const { engine, server } = await setup(
      { script: [{ content: FUNCTIONARY_CALL }, { content: 'plain' }] },
      { toolCallFormat: 'functionary-v3.2', onToolCallFormat: (message) => log.push(message) },
    );
    const result = await engine.generate(QUESTION, { model: 'x:1b', tools: [WEATHER] });
    expect(result.toolCalls.map((call) => call.arguments)).toEqual([OSLO]);
    expect((await engine.generate(QUESTION, { model: 'x:1b' })).content).toBe('plain');
    expect(showRequests(server)).toEqual([]);
    expect(log[0]).toMatch(/^tool-call format for x:1b: functionary-v3\.2, .* \(from config\)$/);
  });
});
