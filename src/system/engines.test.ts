import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JarvisError, Registry } from '../core/index.js';
import { EmbeddedLlamaEngine, OllamaEngine, OpenAICompatibleEngine } from '../engine/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../testing/index.js';
import { registerBuiltinEngines } from './builtins.js';
import {
  createEngine,
  discoverEngines,
  ENGINE_KEYS,
  type EngineSettings,
  engineAddress,
  engineSettingsFromEnv,
  getEngine,
} from './engines.js';

/** An address on which nothing listens (the port was free a moment ago). */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function allDown(): Promise<Record<string, string>> {
  const hosts: Record<string, string> = {};
  for (const key of ENGINE_KEYS)
    if (key !== 'embedded' && key !== 'openai') hosts[key] = await closedAddress();
  return hosts;
}

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('engine settings', () => {
  it('reads OLLAMA_HOST, OPENAI_BASE_URL and OPENAI_API_KEY from the environment', () => {
    expect(
      engineSettingsFromEnv({
        OLLAMA_HOST: 'gpu-box:11434',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_API_KEY: 'k',
      }),
    ).toEqual({ hosts: { ollama: 'gpu-box:11434', openai: 'http://127.0.0.1:9/v1' }, apiKey: 'k' });
    expect(engineSettingsFromEnv({})).toEqual({ hosts: {} });
  });

  it('knows the default address of every local server', () => {
    expect(engineAddress('ollama')).toBe('http://127.0.0.1:11434');
    expect(engineAddress('vllm')).toBe('http://127.0.0.1:8000');
    expect(engineAddress('llamacpp')).toBe('http://127.0.0.1:8080');
    expect(engineAddress('sglang')).toBe('http://127.0.0.1:30000');
    expect(engineAddress('lmstudio')).toBe('http://127.0.0.1:1234');
    expect(engineAddress('vllm', { hosts: { vllm: 'http://10.0.0.2:8000' } })).toBe(
      'http://10.0.0.2:8000',
    );
    expect(engineAddress('vllm', { baseUrl: 'http://x:1', hosts: { vllm: 'http://y:2' } })).toBe(
      'http://x:1',
    );
  });
});

describe('createEngine', () => {
  it('makes the right client for each key', async () => {
    const ollama = await createEngine('ollama');
    const vllm = await createEngine('vllm');
    const openai = await createEngine('openai', { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' });
    const embedded = await createEngine('embedded', { modelPath: '/models/tiny.gguf' });
    expect(ollama).toBeInstanceOf(OllamaEngine);
    expect(vllm).toBeInstanceOf(OpenAICompatibleEngine);
    expect(vllm.engineId).toBe('vllm');
    expect(openai.engineId).toBe('openai');
    expect(embedded).toBeInstanceOf(EmbeddedLlamaEngine);
    await Promise.all([ollama, vllm, openai, embedded].map((engine) => engine.close()));
  });

  it('explains what is missing or unknown', async () => {
    await expect(createEngine('openai')).rejects.toThrow(
      'needs a server address: pass --base-url or set OPENAI_BASE_URL',
    );
    await expect(createEngine('gpt5')).rejects.toThrow(
      "Unknown engine 'gpt5'. Available: ollama, vllm, llamacpp, sglang, lmstudio, openai, embedded",
    );
    await expect(createEngine('embedded', { modelsDir: '/nonexistent/models' })).rejects.toThrow(
      'put a .gguf file in /nonexistent/models',
    );
  });

  it('registers a factory per key in an engine registry', async () => {
    const engines = new Registry<unknown>('EngineRegistry');
    registerBuiltinEngines(engines);
    registerBuiltinEngines(engines);
    expect(engines.keys()).toEqual([...ENGINE_KEYS]);
    const engine = await (engines.create('lmstudio') as Promise<OpenAICompatibleEngine>);
    expect(engine.engineId).toBe('lmstudio');
    await engine.close();
  });
});

describe('discoverEngines and getEngine', () => {
  it('finds the healthy servers, preferred one first', async () => {
    const vllm = await startScriptedOpenAIServer({ handler: () => ({ content: 'hi' }) });
    const ollama = await startScriptedOpenAIServer({
      mode: 'ollama',
      handler: () => ({ content: 'hi' }),
    });
    servers.push(vllm, ollama);
    const settings: EngineSettings = {
      hosts: { ...(await allDown()), vllm: vllm.url, ollama: ollama.url },
    };
    const found = await discoverEngines({ settings, preferredKey: 'vllm' });
    expect(found.map((engine) => [engine.key, engine.address])).toEqual([
      ['vllm', vllm.url],
      ['ollama', ollama.url],
    ]);
    await Promise.all(found.map((engine) => engine.engine.close()));
  });

  it('falls back to another healthy engine when the default is down', async () => {
    const lmstudio = await startScriptedOpenAIServer({ script: [{ content: 'from lmstudio' }] });
    servers.push(lmstudio);
    const settings: EngineSettings = {
      hosts: { ...(await allDown()), lmstudio: lmstudio.url },
      modelsDir: '/nonexistent',
    };
    const chosen = await getEngine({ settings, preferredKey: 'ollama' });
    expect(chosen.key).toBe('lmstudio');
    const answer = await chosen.engine.generate([{ role: 'user', content: 'hello' }], {
      model: 'm',
    });
    expect(answer.content).toBe('from lmstudio');
    await chosen.engine.close();
  });

  it('lists every address tried and how to start an engine when none answers', async () => {
    const hosts = await allDown();
    const error = await getEngine({ settings: { hosts, modelsDir: '/nonexistent/models' } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(JarvisError);
    const message = (error as JarvisError).message;
    expect(message).toContain('No inference engine is running. Tried:');
    for (const [key, address] of Object.entries(hosts))
      expect(message).toContain(`${key}: ${address}`);
    expect(message).toContain('embedded: no .gguf file in /nonexistent/models');
    expect(message).toContain('ollama serve');
  });

  it('uses an explicit key as given, without probing', async () => {
    const chosen = await getEngine({ key: 'sglang', settings: { hosts: await allDown() } });
    expect(chosen.key).toBe('sglang');
    expect(await chosen.engine.health()).toBe(false);
    await chosen.engine.close();
  });
});
