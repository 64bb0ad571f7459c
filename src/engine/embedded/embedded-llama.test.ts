import { getEventListeners } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it, type TestContext, vi } from 'vitest';
import {
  EngineError,
  type GenerateOptions,
  type Message,
  type OpenAIFunctionTool,
  type StreamChunk,
} from '../../core/index.js';
import { type TinyGgufOptions, writeTinyGguf } from '../../testing/tiny-gguf.js';
import {
  EmbeddedLlamaEngine,
  type EmbeddedLlamaEngineOptions,
  findDefaultModel,
} from './embedded-llama.js';
import { resetNodeLlamaCppLoader } from './node-llama-cpp-loader.js';

/** A Llama 3 style chat template (header tokens, `<|eot_id|>`), as Llama 3.x GGUF files carry it. */
const LLAMA3_TEMPLATE =
  "{% for message in messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

const WEATHER: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city.',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', enum: ['Paris', 'Rome', 'Oslo'] },
        metric: { type: 'boolean' },
        note: { type: 'string', maxLength: 6 },
      },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

const LOOKUP: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Look a word up.',
    parameters: {
      type: 'object',
      properties: { word: { type: 'string', minLength: 1, maxLength: 8 } },
      required: ['word'],
    },
  },
};

const TOOLS = [WEATHER, LOOKUP] as const;
const QUESTION: readonly Message[] = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'What is the weather in Paris?' },
];
const SHORT: GenerateOptions = { model: 'tiny', maxTokens: 8 };

async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function expectValidCall(call: { readonly name: string; readonly arguments: string }): void {
  const tool = TOOLS.find((candidate) => candidate.function.name === call.name);
  expect(tool, `the model called '${call.name}', which was not offered`).toBeDefined();
  const validate = new Ajv({ strict: false }).compile(tool?.function.parameters ?? {});
  const args: unknown = JSON.parse(call.arguments);
  expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
}

describe('EmbeddedLlamaEngine on a tiny random GGUF model', () => {
  let dir = '';
  let engine: EmbeddedLlamaEngine;
  /** Why the real-model tests cannot run here, when llama.cpp cannot start. */
  let unavailable: string | undefined;
  let ids = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embedded-llama-'));
    const modelPath = join(dir, 'tiny.gguf');
    await writeTinyGguf(modelPath);
    // One thread: the model is tiny, and more threads than free cores make llama.cpp spin-wait.
    engine = new EmbeddedLlamaEngine({
      modelPath,
      threads: 1,
      contextSize: 4096,
      generateId: () => `call_${++ids}`,
    });
    try {
      await engine.generate(QUESTION, { ...SHORT, maxTokens: 1 });
    } catch (error) {
      if (!(error instanceof EngineError) || error.code === 'engine_model_error') throw error;
      unavailable = `skipped: llama.cpp cannot run here (${error.message})`;
    }
  }, 60_000);

  afterAll(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  function requireLlama(context: TestContext): void {
    if (unavailable !== undefined) context.skip(unavailable);
  }

  it('generates printable text until maxTokens, with usage, model name and ttft', async (context) => {
    requireLlama(context);
    const result = await engine.generate(QUESTION, SHORT);
    expect(result.content.length).toBeGreaterThan(0);
    expect(result.content).toMatch(/^[\x20-\x7e]+$/);
    expect(result.finishReason).toBe('length');
    expect(result.toolCalls).toEqual([]);
    expect(result.model).toBe('tiny');
    expect(result.ttftSeconds).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe(
      result.usage.promptTokens + result.usage.completionTokens,
    );
  });

  it('is deterministic without a temperature (greedy decoding)', async (context) => {
    requireLlama(context);
    const first = await engine.generate(QUESTION, SHORT);
    const second = await engine.generate(QUESTION, SHORT);
    expect(second.content).toBe(first.content);
  });

  it('streams text deltas that add up to the generated text, then an end chunk', async (context) => {
    requireLlama(context);
    const expected = await engine.generate(QUESTION, SHORT);
    const chunks = await collect(engine.stream(QUESTION, SHORT));
    const last = chunks.at(-1);
    const deltas = chunks.slice(0, -1);
    expect(deltas.every((chunk) => chunk.type === 'text_delta')).toBe(true);
    expect(deltas.map((chunk) => (chunk.type === 'text_delta' ? chunk.text : '')).join('')).toBe(
      expected.content,
    );
    expect(last).toMatchObject({ type: 'end', finishReason: 'length', model: 'tiny' });
    if (last?.type === 'end') {
      expect(last.usage.completionTokens).toBeGreaterThan(0);
      expect(last.ttftSeconds).toBeGreaterThan(0);
    }
  });

  it('forces a schema-valid call of an offered tool with toolChoice required', async (context) => {
    requireLlama(context);
    const result = await engine.generate(QUESTION, {
      ...SHORT,
      maxTokens: 64,
      tools: TOOLS,
      toolChoice: 'required',
    });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content).toBe('');
    expect(result.toolCalls.length).toBeGreaterThan(0);
    for (const call of result.toolCalls) expectValidCall(call);
    expect(result.toolCalls[0]?.id).toMatch(/^call_\d+$/);
  });

  it('calls the named function when toolChoice names one', async (context) => {
    requireLlama(context);
    const result = await engine.generate(QUESTION, {
      ...SHORT,
      maxTokens: 64,
      tools: TOOLS,
      toolChoice: { type: 'function', function: { name: 'lookup' } },
    });
    expect(result.toolCalls.map((call) => call.name)).toEqual(['lookup']);
    for (const call of result.toolCalls) expectValidCall(call);
  });

  it('streams a forced call as whole tool_call chunks, then end', async (context) => {
    requireLlama(context);
    const chunks = await collect(
      engine.stream(QUESTION, { ...SHORT, maxTokens: 64, tools: TOOLS, toolChoice: 'required' }),
    );
    expect(chunks.map((chunk) => chunk.type)).toEqual(['tool_call', 'end']);
    const [call, end] = chunks;
    if (call?.type === 'tool_call') expectValidCall(call.toolCall);
    expect(end).toMatchObject({ type: 'end', finishReason: 'tool_calls' });
  });

  it('offers tools with toolChoice auto: the random model answers in text and the tools enlarge the prompt', async (context) => {
    requireLlama(context);
    await engine.generate([{ role: 'user', content: 'reset' }], { ...SHORT, maxTokens: 1 });
    const plain = await engine.generate(QUESTION, SHORT);
    await engine.generate([{ role: 'user', content: 'reset' }], { ...SHORT, maxTokens: 1 });
    const withTools = await engine.generate(QUESTION, { ...SHORT, tools: TOOLS });
    expect(withTools.usage.promptTokens).toBeGreaterThan(plain.usage.promptTokens + 100);
    for (const call of withTools.toolCalls) expectValidCall(call);
  });

  it('continues a conversation that holds tool calls and their results', async (context) => {
    requireLlama(context);
    const messages: Message[] = [
      ...QUESTION,
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      { role: 'tool', content: '{"celsius": 21}', toolCallId: 'call_a' },
    ];
    const result = await engine.generate(messages, { ...SHORT, tools: TOOLS });
    expect(result.finishReason).toMatch(/^(length|stop|tool_calls)$/);
    expect(result.content.length + result.toolCalls.length).toBeGreaterThan(0);
  });

  it('cancels a stream when its signal aborts, with engine_cancelled, and keeps working', async (context) => {
    requireLlama(context);
    const controller = new AbortController();
    const seen: StreamChunk[] = [];
    const run = async (): Promise<void> => {
      for await (const chunk of engine.stream(QUESTION, {
        ...SHORT,
        maxTokens: 200,
        signal: controller.signal,
      })) {
        seen.push(chunk);
        controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'engine_cancelled' });
    expect(seen.every((chunk) => chunk.type === 'text_delta')).toBe(true);
    expect((await engine.generate(QUESTION, SHORT)).content.length).toBeGreaterThan(0);
  });

  it('rejects at once when the signal is already aborted', async (context) => {
    requireLlama(context);
    const signal = AbortSignal.abort();
    await expect(engine.generate(QUESTION, { ...SHORT, signal })).rejects.toMatchObject({
      code: 'engine_cancelled',
    });
  });

  it('stops generating when a stream consumer leaves early', async (context) => {
    requireLlama(context);
    for await (const chunk of engine.stream(QUESTION, { ...SHORT, maxTokens: 500 })) {
      expect(chunk.type).toBe('text_delta');
      break;
    }
    expect((await engine.generate(QUESTION, SHORT)).finishReason).toBe('length');
  });

  it('runs concurrent calls one after another on the shared model', async (context) => {
    requireLlama(context);
    const results = await Promise.all([
      engine.generate(QUESTION, SHORT),
      engine.generate(QUESTION, SHORT),
      engine.generate(QUESTION, { ...SHORT, tools: TOOLS, toolChoice: 'required', maxTokens: 64 }),
    ]);
    expect(results[0]?.content).toBe(results[1]?.content);
    expect(results[2]?.finishReason).toBe('tool_calls');
  });

  it('serves unrelated conversations on one chat: same answers, prompt prefix reused, no listener left on the signal', async (context) => {
    requireLlama(context);
    const { signal } = new AbortController();
    const other: readonly Message[] = [
      { role: 'system', content: 'You are a terse assistant.' },
      { role: 'user', content: 'Name a colour.' },
    ];
    const first = await engine.generate(QUESTION, { ...SHORT, signal });
    await engine.generate(other, { ...SHORT, signal });
    await engine.generate(other, { ...SHORT, tools: TOOLS, toolChoice: 'required', signal });
    const again = await engine.generate(QUESTION, { ...SHORT, signal });
    const repeated = await engine.generate(QUESTION, { ...SHORT, signal });
    expect(again.content).toBe(first.content);
    expect(repeated.content).toBe(first.content);
    // After another conversation only the differing tail is evaluated; repeating it reuses (nearly) all of it.
    expect(repeated.usage.promptTokens).toBeLessThan(again.usage.promptTokens);
    expect(repeated.usage.promptTokens).toBeLessThanOrEqual(1);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('reports what it runs with: the GGUF chat template, the configured context size and threads', async (context) => {
    requireLlama(context);
    expect(engine.runtimeInfo()).toMatchObject({
      chatWrapper: 'chatML',
      chatTemplateSource: 'gguf',
      contextSize: 4096,
      trainContextSize: 4096,
      threads: 1,
    });
    expect(await engine.load()).toBe(engine.runtimeInfo());
  });

  it("reports its context size and counts prompt tokens with the model's tokenizer and chat format", async (context) => {
    requireLlama(context);
    expect(await engine.contextTokens('tiny')).toBe(4096);
    const one = await engine.countTokens([{ role: 'user', content: 'Hello there' }], {
      model: 'tiny',
    });
    const two = await engine.countTokens(
      [
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: 'General Kenobi, what a long answer this is.' },
      ],
      { model: 'tiny' },
    );
    const withTools = await engine.countTokens([{ role: 'user', content: 'Hello there' }], {
      model: 'tiny',
      tools: [WEATHER],
    });
    expect(one).toBeGreaterThan(3);
    expect(two).toBeGreaterThan(one ?? 0);
    expect(withTools).toBeGreaterThan(one ?? 0);
  });

  it('lists its model and reports healthy', async (context) => {
    requireLlama(context);
    expect(await engine.listModels()).toEqual(['tiny']);
    expect(await engine.health()).toBe(true);
    expect(engine.engineId).toBe('embedded');
  });

  it('rejects a toolChoice that names a tool that was not offered', async () => {
    await expect(
      engine.generate(QUESTION, {
        ...SHORT,
        tools: TOOLS,
        toolChoice: { type: 'function', function: { name: 'nope' } },
      }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('close cancels a running call, is idempotent, and later calls fail with engine_unavailable', async (context) => {
    requireLlama(context);
    // A second engine on the same file, with an explicit chat wrapper instead of the template lookup.
    const second = new EmbeddedLlamaEngine({
      modelPath: engine.modelPath,
      threads: 1,
      contextSize: 512,
      chatWrapper: 'chatML',
    });
    const consume = async (): Promise<void> => {
      for await (const chunk of second.stream(QUESTION, { ...SHORT, maxTokens: 400 })) {
        if (chunk.type === 'text_delta') void second.close();
      }
    };
    await expect(consume()).rejects.toMatchObject({ code: 'engine_unavailable' });
    await Promise.all([second.close(), second.close()]);
    await expect(second.generate(QUESTION, SHORT)).rejects.toMatchObject({
      code: 'engine_unavailable',
    });
    expect(await second.health()).toBe(false);
  });
});

describe('EmbeddedLlamaEngine with default settings and other chat formats', () => {
  let dir = '';
  const engines: EmbeddedLlamaEngine[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embedded-defaults-'));
  });

  afterAll(async () => {
    for (const engine of engines) await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function engineFor(
    name: string,
    model: TinyGgufOptions,
    options: Partial<EmbeddedLlamaEngineOptions> = {},
  ): Promise<EmbeddedLlamaEngine> {
    const modelPath = join(dir, `${name}.gguf`);
    await writeTinyGguf(modelPath, model);
    const engine = new EmbeddedLlamaEngine({ modelPath, ...options });
    engines.push(engine);
    return engine;
  }

  /** Loads the engine, or skips the test when llama.cpp cannot start here. */
  async function loadOrSkip(engine: EmbeddedLlamaEngine, context: TestContext): Promise<void> {
    try {
      await engine.load();
    } catch (error) {
      if (!(error instanceof EngineError) || error.code === 'engine_model_error') throw error;
      context.skip(`skipped: llama.cpp cannot run here (${error.message})`);
    }
  }

  it('loads on demand with all cores, GPU offload offered and the trained context at most, then forgets it on close', async (context) => {
    const engine = await engineFor('defaults', { contextLength: 2048 });
    expect(engine.runtimeInfo()).toBeUndefined();
    await loadOrSkip(engine, context);
    const info = engine.runtimeInfo();
    expect(info).toMatchObject({
      chatWrapper: 'chatML',
      chatTemplateSource: 'gguf',
      trainContextSize: 2048,
      threads: availableParallelism(),
    });
    expect(info?.contextSize).toBeGreaterThan(0);
    expect(info?.contextSize).toBeLessThanOrEqual(2048);
    if (info?.gpu === false) expect(info.gpuLayers).toBe(0);
    await engine.close();
    expect(engine.runtimeInfo()).toBeUndefined();
    await expect(engine.load()).rejects.toMatchObject({ code: 'engine_unavailable' });
  });

  // Llama 3 allows parallel calls, ended by `<|eot_id|>`, a token the tiny vocabulary lacks: the random model
  // writes whole calls until maxTokens.
  const formats: readonly (readonly [string, TinyGgufOptions, string, string])[] = [
    [
      'no chat template (the general fallback format)',
      { chatTemplate: null },
      'general',
      'tool_calls',
    ],
    ['a Llama 3 chat template', { chatTemplate: LLAMA3_TEMPLATE }, 'llama3', 'length'],
  ];

  it.for(formats)(
    'keeps forced tool calls grammar-constrained with %s',
    async ([, model, wrapper, finishReason], context) => {
      const engine = await engineFor(wrapper, model, { threads: 1 });
      await loadOrSkip(engine, context);
      expect(engine.runtimeInfo()?.chatWrapper).toBe(wrapper);
      const result = await engine.generate(QUESTION, {
        ...SHORT,
        maxTokens: 64,
        tools: TOOLS,
        toolChoice: 'required',
      });
      expect(result.finishReason).toBe(finishReason);
      expect(result.content).toBe('');
      expect(result.toolCalls.length).toBeGreaterThan(0);
      for (const call of result.toolCalls) expectValidCall(call);
    },
  );
});

describe('EmbeddedLlamaEngine without a usable model or package', () => {
  it('reports a missing model file as engine_model_error, unhealthy and with no models', async () => {
    const engine = new EmbeddedLlamaEngine({ modelPath: join(tmpdir(), 'no-such-model.gguf') });
    await expect(engine.generate(QUESTION, SHORT)).rejects.toMatchObject({
      code: 'engine_model_error',
      message: expect.stringContaining('no-such-model.gguf'),
    });
    expect(await engine.health()).toBe(false);
    expect(await engine.listModels()).toEqual([]);
    await engine.close();
  });

  it('says how to install node-llama-cpp when the package cannot be imported', async () => {
    vi.doMock('node-llama-cpp', () => {
      throw new Error("Cannot find package 'node-llama-cpp'");
    });
    resetNodeLlamaCppLoader(); // forget the module the tests above loaded
    try {
      const engine = new EmbeddedLlamaEngine({ modelPath: join(tmpdir(), 'any.gguf') });
      const failure = await engine.generate(QUESTION, SHORT).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EngineError);
      expect(failure).toMatchObject({ code: 'engine_not_found', engineId: 'embedded' });
      expect((failure as Error).message).toContain('npm install node-llama-cpp@3.21.1');
      expect((failure as Error).message).toContain('`jarvis engines install embedded`');
      expect(await engine.health()).toBe(false);
    } finally {
      vi.doUnmock('node-llama-cpp');
      resetNodeLlamaCppLoader();
    }
  });
});

describe('findDefaultModel', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'models-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the first .gguf file by sorted name, ignoring other files and folders', async () => {
    await writeFile(join(dir, 'b-model.gguf'), '');
    await writeFile(join(dir, 'a-notes.txt'), '');
    await writeFile(join(dir, 'c-model.GGUF'), '');
    await mkdir(join(dir, 'a-folder.gguf'));
    expect(await findDefaultModel(dir)).toBe(join(dir, 'b-model.gguf'));
  });

  it('returns undefined for a folder without models and for a missing folder', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty);
    expect(await findDefaultModel(empty)).toBeUndefined();
    expect(await findDefaultModel(join(dir, 'missing'))).toBeUndefined();
  });
});
