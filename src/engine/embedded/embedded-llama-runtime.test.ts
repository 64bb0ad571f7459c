import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Llama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it, type TestContext, vi } from 'vitest';
import { type TinyGgufOptions, writeTinyGguf } from '../../testing/tiny-gguf.js';
import {
  contextSizeOption,
  disposeRuntime,
  EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
  type EmbeddedRuntime,
  importNodeLlamaCpp,
  loadRuntime,
  type RuntimeOptions,
} from './embedded-llama-runtime.js';

/** A Llama 3 style chat template (header tokens, `<|eot_id|>`), as Llama 3.x GGUF files carry it. */
const LLAMA3_TEMPLATE =
  "{% for message in messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

/** A template that parses but drops the messages, so node-llama-cpp's sanity check rejects it. */
const BROKEN_TEMPLATE = '{{ bos_token }}hello';

describe('contextSizeOption', () => {
  it('asks for what fits up to the trained context and the default cap when nothing is configured', () => {
    expect(contextSizeOption(undefined, { trainContextSize: 2048 })).toEqual({ max: 2048 });
    expect(contextSizeOption(undefined, { trainContextSize: 131_072 })).toEqual({
      max: EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
    });
    expect(contextSizeOption(undefined, { trainContextSize: 0 })).toEqual({
      max: EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
    });
  });

  it('lowers a configured size to the trained context and keeps a smaller one', () => {
    expect(contextSizeOption(4096, { trainContextSize: 2048 })).toBe(2048);
    expect(contextSizeOption(1024, { trainContextSize: 2048 })).toBe(1024);
    expect(contextSizeOption(1024, { trainContextSize: 0 })).toBe(1024);
  });
});

describe('loadRuntime on tiny GGUF models', () => {
  let dir = '';
  /** Why the tests that load a model cannot run here, when llama.cpp cannot start. */
  let unavailable: string | undefined;
  /** One llama.cpp for most tests (starting one takes about a second), with GPU backends offered. */
  let shared: Llama | undefined;
  const loaded: EmbeddedRuntime[] = [];

  async function writeModel(name: string, options: TinyGgufOptions): Promise<string> {
    const path = join(dir, `${name}.gguf`);
    await writeTinyGguf(path, options);
    return path;
  }

  /** Loads a model on the shared llama.cpp, or on its own one with `ownLlama`. */
  async function load(
    modelPath: string,
    {
      ownLlama = false,
      ...options
    }: Partial<RuntimeOptions> & { readonly ownLlama?: boolean } = {},
  ): Promise<EmbeddedRuntime> {
    const runtime = await loadRuntime({
      engineId: 'embedded',
      modelPath,
      gpu: true,
      threads: 1,
      contextSize: undefined,
      chatWrapper: 'auto',
      onLog: undefined,
      ...(shared === undefined || ownLlama ? {} : { llama: shared }),
      ...options,
    });
    loaded.push(runtime);
    return runtime;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embedded-runtime-'));
    await writeModel('probe', {});
    const module = await importNodeLlamaCpp('embedded', dir);
    try {
      shared = await module.getLlama({
        gpu: 'auto',
        build: 'never',
        progressLogs: false,
        maxThreads: 0,
      });
    } catch (error) {
      unavailable = `skipped: llama.cpp cannot run here (${String(error)})`;
    }
  }, 60_000);

  afterAll(async () => {
    for (const runtime of loaded) await disposeRuntime(runtime);
    await shared?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  function requireLlama(context: TestContext): void {
    if (unavailable !== undefined) context.skip(unavailable);
  }

  it('uses the ChatML template of the GGUF and never more context than the model was trained for', async (context) => {
    requireLlama(context);
    const path = await writeModel('chatml-2048', { contextLength: 2048 });
    const { info } = await load(path);
    expect(info).toMatchObject({
      chatWrapper: 'chatML',
      chatTemplateSource: 'gguf',
      trainContextSize: 2048,
      threads: 1,
    });
    expect(info.contextSize).toBeGreaterThan(0);
    expect(info.contextSize).toBeLessThanOrEqual(2048);
    expect(info.chatTemplateError).toBeUndefined();
  });

  it('lowers a configured context size above the trained one to the trained one', async (context) => {
    requireLlama(context);
    const path = await writeModel('configured-2048', { contextLength: 2048 });
    const { info, context: llamaContext } = await load(path, { contextSize: 4096 });
    expect(info.contextSize).toBe(2048);
    expect(llamaContext.contextSize).toBe(2048);
  });

  it('keeps a configured context size within the trained one', async (context) => {
    requireLlama(context);
    const path = await writeModel('configured-1024', { contextLength: 4096 });
    expect((await load(path, { contextSize: 1024 })).info.contextSize).toBe(1024);
  });

  it('caps the default context size for a model trained on a long context', async (context) => {
    requireLlama(context);
    const path = await writeModel('long-context', { contextLength: 32_768 });
    const { info } = await load(path);
    expect(info.trainContextSize).toBe(32_768);
    expect(info.contextSize).toBeLessThanOrEqual(EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE);
  });

  it('resolves a Llama 3 style template to the Llama 3 chat format', async (context) => {
    requireLlama(context);
    const path = await writeModel('llama3', { chatTemplate: LLAMA3_TEMPLATE });
    const { info } = await load(path);
    expect(info.chatWrapper).toMatch(/^llama3/);
    expect(info.chatTemplateSource).toBe('gguf');
  });

  it('names the fallback chat format when the GGUF has no template', async (context) => {
    requireLlama(context);
    const path = await writeModel('no-template', { chatTemplate: null });
    const { info } = await load(path);
    expect(info).toMatchObject({ chatWrapper: 'general', chatTemplateSource: 'fallback' });
    expect(info.chatTemplateError).toBeUndefined();
  });

  it('falls back from a broken template, saying why through onLog instead of the console', async (context) => {
    requireLlama(context);
    const path = await writeModel('broken-template', { chatTemplate: BROKEN_TEMPLATE });
    const logs: string[] = [];
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { info } = await load(path, {
        onLog: (level, message) => logs.push(`${level}: ${message}`),
      });
      expect(info).toMatchObject({ chatWrapper: 'general', chatTemplateSource: 'fallback' });
      expect(info.chatTemplateError).toMatch(/template/i);
      expect(logs).toEqual([
        expect.stringMatching(/^warn: the model's chat template cannot be used .*'general'/),
      ]);
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });

  it('uses a configured chat wrapper over the template and says so', async (context) => {
    requireLlama(context);
    const path = await writeModel('configured-wrapper', {});
    const { info } = await load(path, { chatWrapper: 'llama3.1' });
    expect(info).toMatchObject({ chatWrapper: 'llama3.1', chatTemplateSource: 'config' });
  });

  it('reports the GPU backend found and the layers offloaded to it (none on the CPU)', async (context) => {
    requireLlama(context);
    const path = await writeModel('gpu', {});
    const auto = await load(path);
    expect(auto.info.gpu).toBe(shared?.gpu);
    expect(auto.info.totalLayers).toBeGreaterThan(0);
    expect(auto.info.gpuLayers).toBe(auto.model.gpuLayers);
    expect(auto.info.gpuLayers).toBeLessThanOrEqual(auto.info.totalLayers);
    if (auto.info.gpu === false) expect(auto.info.gpuLayers).toBe(0);
  });

  it('starts its own CPU-only llama.cpp with gpu false, limited to the configured threads', async (context) => {
    requireLlama(context);
    const threads = Math.min(2, availableParallelism());
    const cpu = await load(join(dir, 'probe.gguf'), { gpu: false, threads, ownLlama: true });
    expect(cpu.ownsLlama).toBe(true);
    expect(cpu.llama).not.toBe(shared);
    expect(cpu.llama.maxThreads).toBe(threads);
    expect(cpu.info).toMatchObject({ gpu: false, gpuLayers: 0, threads });
  });

  it('rejects thread counts and context sizes that are not whole numbers above 0', async () => {
    const path = join(dir, 'probe.gguf');
    for (const bad of [{ threads: 0 }, { threads: 1.5 }, { contextSize: -1 }, { contextSize: 0 }]) {
      await expect(load(path, bad)).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringMatching(/must be a whole number above 0/),
      });
    }
  });

  it('rejects an unknown chat wrapper name, listing the known ones', async () => {
    await expect(load(join(dir, 'probe.gguf'), { chatWrapper: 'chatml' })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('chatML'),
    });
  });
});
