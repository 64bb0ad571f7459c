import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type InferenceEngine, JarvisError, NoSuchEngineError, Registry } from '../core/index.js';
import { EmbeddedLlamaEngine, OllamaEngine, OpenAICompatibleEngine } from '../engine/index.js';
import {
  ScriptedEngine,
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../testing/index.js';
import { registerBuiltinEngines } from './builtins.js';
import { configFromToml, type JarvisConfig } from './config/index.js';
import { selectEngine } from './engine-selection.js';
import {
  createEngine,
  discoverEngines,
  ENGINE_KEYS,
  type EngineRequestLogCallback,
  type EngineSettings,
  engineAddress,
  engineSettingsFromEnv,
  getEngine,
  sameServer,
} from './engines.js';
import { chooseEngine, engineSelectionOf } from './system-engine.js';

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
      "The 'openai' engine needs a server address: pass --base-url (SDK: the baseUrl option), or set `host` under [engine.openai] in the config or OPENAI_BASE_URL",
    );
    await expect(createEngine('gpt5')).rejects.toThrow(
      "Unknown engine 'gpt5'. Available: ollama, vllm, llamacpp, sglang, lmstudio, openai, embedded",
    );
    await expect(createEngine('embedded', { modelsDir: '/nonexistent/models' })).rejects.toThrow(
      '`jarvis models pull qwen3-1.7b` (into /nonexistent/models)',
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

const API_KEY = 'sk-configured-for-one-address-0123456789';

/** A config from TOML text, with paths under a folder that is never touched. */
function configOf(toml = ''): JarvisConfig {
  const home = '/nonexistent/jarvis-home';
  return configFromToml(toml, `${home}/config.toml`, { home, cwd: home, homeDir: home }).config;
}

/** Everything but `--engine`/`--base-url` points nowhere, so only the servers a test starts answer. */
async function downConfig(extra = ''): Promise<string> {
  const hosts = await allDown();
  const tables = Object.entries(hosts).map(([key, url]) => `[engine.${key}]\nhost = "${url}"\n`);
  return `${extra}\n${tables.join('')}[engine.embedded]\nmodels_dir = "/nonexistent/models"\n`;
}

describe('the API key goes only to the address it was configured for', () => {
  it('a local server found by discovery never gets it, neither in the probe nor in the chat', async () => {
    const local = await startScriptedOpenAIServer({ script: [{ content: 'local answer' }] });
    servers.push(local);
    const settings: EngineSettings = {
      hosts: { ...(await allDown()), vllm: local.url },
      modelsDir: '/nonexistent',
      apiKey: API_KEY,
    };
    const chosen = await getEngine({ settings });
    expect(chosen.key).toBe('vllm');
    await chosen.engine.generate([{ role: 'user', content: 'hi' }], { model: 'm' });
    await chosen.engine.close();
    expect(local.requests.map((request) => request.path)).toEqual([
      '/v1/models',
      '/v1/chat/completions',
    ]);
    for (const request of local.requests) expect(request.headers.authorization).toBeUndefined();
  });

  it('the configured OpenAI-compatible address gets it, under any key that points there', async () => {
    const remote = await startScriptedOpenAIServer({ handler: () => ({ content: 'ok' }) });
    servers.push(remote);
    const settings: EngineSettings = {
      hosts: { ...(await allDown()), openai: remote.baseUrl, vllm: `${remote.url}/` },
      apiKey: API_KEY,
    };
    const found = await discoverEngines({ settings });
    expect(found.map((engine) => engine.key).sort()).toEqual(['openai', 'vllm']);
    await Promise.all(found.map((engine) => engine.engine.close()));
    expect(remote.requests).toHaveLength(2);
    for (const request of remote.requests)
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('--base-url (the baseUrl option) is where the key was configured, whatever the engine key', async () => {
    const server = await startScriptedOpenAIServer({ handler: () => ({ content: 'ok' }) });
    servers.push(server);
    const engine = await createEngine('lmstudio', { baseUrl: server.baseUrl, apiKey: API_KEY });
    await engine.listModels();
    await engine.close();
    const elsewhere = await createEngine('lmstudio', {
      hosts: { lmstudio: server.url, openai: 'http://127.0.0.1:9/v1' },
      apiKey: API_KEY,
    });
    await elsewhere.listModels();
    await elsewhere.close();
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${API_KEY}`,
      undefined,
    ]);
  });

  it('compares addresses without /v1, trailing slashes, default ports or host case', () => {
    expect(sameServer('http://Box:8000/v1/', 'http://box:8000')).toBe(true);
    expect(sameServer('https://api.openai.com/v1', 'https://api.openai.com:443')).toBe(true);
    expect(sameServer('http://127.0.0.1:8000/v1', 'http://127.0.0.1:8001/v1')).toBe(false);
    expect(sameServer('http://127.0.0.1:8000/v1', 'https://127.0.0.1:8000/v1')).toBe(false);
  });
});

describe('engine choice: unknown keys, the request log', () => {
  it('a misspelled default engine in the config is an error naming the registered ones', async () => {
    const engines = new Registry<unknown>('EngineRegistry');
    registerBuiltinEngines(engines);
    const config = configOf(await downConfig('[engine]\ndefault = "olama"'));
    const error = await chooseEngine({ config }, engines).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JarvisError);
    expect((error as JarvisError).code).toBe('unknown_engine');
    const message = (error as JarvisError).message;
    expect(message).toContain("Unknown engine 'olama' in the config");
    expect(message).toContain(`Available: ${ENGINE_KEYS.join(', ')}.`);
    expect(message).toContain("Did you mean 'ollama'?");
    expect(error).toBeInstanceOf(NoSuchEngineError);
    expect((error as NoSuchEngineError).engineKey).toBe('olama');
    expect((error as NoSuchEngineError).availableEngines).toEqual(ENGINE_KEYS);
    const unregistered = await chooseEngine({ config }).catch((caught: unknown) => caught);
    expect((unregistered as JarvisError).code).toBe('unknown_engine');
  });

  it('a misspelled --engine key suggests the closest one', async () => {
    await expect(createEngine('vlm')).rejects.toThrow(/Available: .*\. Did you mean 'vllm'\?/);
    const engines = new Registry<unknown>('EngineRegistry');
    registerBuiltinEngines(engines);
    const error = await chooseEngine({ config: configOf(), engineKey: 'lmstuido' }, engines).catch(
      (caught: unknown) => caught,
    );
    expect((error as JarvisError).code).toBe('unknown_engine');
    expect((error as JarvisError).message).toContain("Did you mean 'lmstudio'?");
    expect((error as NoSuchEngineError).engineKey).toBe('lmstuido');
    expect((error as NoSuchEngineError).availableEngines).toEqual(
      expect.arrayContaining([...ENGINE_KEYS]),
    );
    const direct = await createEngine('vlm').catch((caught: unknown) => caught);
    expect(direct).toBeInstanceOf(NoSuchEngineError);
    expect((direct as NoSuchEngineError).availableEngines).toEqual(ENGINE_KEYS);
  });

  it('shows an unknown engine key terminal-safe on one line, like unknown tools and agents', async () => {
    const hostile = 'x\u001b]0;pwned\u0007\n';
    const engines = new Registry<unknown>('EngineRegistry');
    registerBuiltinEngines(engines);
    const errors = [
      await createEngine(hostile).catch((caught: unknown) => caught),
      await chooseEngine({ config: configOf(), engineKey: hostile }, engines).catch(
        (c: unknown) => c,
      ),
    ];
    for (const error of errors) {
      expect((error as JarvisError).code).toBe('unknown_engine');
      expect([...(error as JarvisError).message].some((char) => char < ' ')).toBe(false);
    }
    expect((errors[0] as JarvisError).message).toMatch(
      /^Unknown engine 'x\^\[\]0;pwned\\u\{7\}\\n'\./,
    );
    expect((errors[1] as NoSuchEngineError).engineKey).toBe(hostile);
  });

  it('a default engine a module registered is used directly, not replaced by discovery', async () => {
    const engines = new Registry<unknown>('EngineRegistry');
    registerBuiltinEngines(engines);
    const mine = { engineId: 'mine', generate: async () => undefined, listModels: async () => [] };
    engines.registerValue('mine', () => mine);
    const config = configOf(await downConfig('[engine]\ndefault = "mine"'));
    const chosen = await chooseEngine({ config }, engines);
    expect(chosen).toEqual({ key: 'mine', engine: mine as unknown as InferenceEngine });
  });

  it('the request log reaches the engine it chooses', async () => {
    const server = await startScriptedOpenAIServer({ script: [{ content: 'logged' }] });
    servers.push(server);
    const entries: Parameters<EngineRequestLogCallback>[0][] = [];
    const config = configOf(await downConfig());
    const chosen = await chooseEngine({
      config,
      engineKey: 'vllm',
      baseUrl: server.baseUrl,
      requestLog: (entry) => entries.push(entry),
    });
    await chosen.engine.generate([{ role: 'user', content: 'hi' }], { model: 'm' });
    await chosen.engine.close();
    expect(entries).toMatchObject([
      { engineId: 'vllm', method: 'POST', url: `${server.url}/v1/chat/completions`, status: 200 },
    ]);
  });

  it('advice for the engine address names the SDK option next to the flag', async () => {
    const error = await getEngine({
      settings: { hosts: await allDown(), modelsDir: '/nonexistent/models' },
    }).catch((caught: unknown) => caught);
    const message = (error as JarvisError).message;
    expect(message).toContain(
      '--engine openai --base-url <url> (SDK: the engine and baseUrl options;',
    );
    expect(message).toContain('[engine.openai]');
  });
});

describe('one selection: engines come from the registry', () => {
  function registryWith(entries: Record<string, InferenceEngine>): Registry<unknown> {
    const engines = new Registry<unknown>('EngineRegistry');
    for (const [key, engine] of Object.entries(entries)) engines.registerValue(key, () => engine);
    return engines;
  }

  it("getEngine makes an explicit key from the registry: a user's engine, or one under a built-in key", async () => {
    const mine = new ScriptedEngine([], { engineId: 'mine' });
    const registry = registryWith({ mine, vllm: mine });
    expect(await getEngine({ key: 'mine', registry })).toEqual({ key: 'mine', engine: mine });
    const vllm = await getEngine({ key: 'vllm', registry });
    expect(vllm).toMatchObject({ key: 'vllm', address: 'http://127.0.0.1:8000' });
    expect(vllm.engine).toBe(mine);
  });

  it('discovery probes the engine registered under a built-in key, and selection chooses it', async () => {
    const mine = new ScriptedEngine([], { engineId: 'lmstudio' });
    const settings: EngineSettings = { hosts: await allDown(), modelsDir: '/nonexistent/models' };
    const chosen = await getEngine({ settings, registry: registryWith({ lmstudio: mine }) });
    expect(chosen).toMatchObject({ key: 'lmstudio', address: settings.hosts?.lmstudio });
    expect(chosen.engine).toBe(mine);
  });

  it('a server address without a key means the configured engine there, as in the SDK and CLI', async () => {
    const server = await startScriptedOpenAIServer({ script: [{ content: 'there' }] });
    servers.push(server);
    const settings: EngineSettings = { hosts: await allDown(), baseUrl: server.baseUrl };
    const chosen = await getEngine({ settings, preferredKey: 'vllm' });
    expect(chosen).toMatchObject({ key: 'vllm', address: server.baseUrl });
    const answer = await chosen.engine.generate([{ role: 'user', content: 'hi' }], { model: 'm' });
    expect(answer.content).toBe('there');
    await chosen.engine.close();
  });
});

describe('the embedded engine from the config', () => {
  it('runs with [engine.embedded] gpu, threads, context_size and chat_wrapper', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { writeTinyGguf } = await import('../testing/index.js');
    const dir = await mkdtemp(join(tmpdir(), 'jarvis-embedded-settings-'));
    const modelPath = join(dir, 'tiny.gguf');
    await writeTinyGguf(modelPath);
    const config = configFromToml(
      `[engine.embedded]\nmodel_path = ${JSON.stringify(modelPath)}\ngpu = false\nthreads = 1\ncontext_size = 512\nchat_wrapper = "chatML"\n`,
      join(dir, 'config.toml'),
      { home: dir, cwd: dir, homeDir: dir },
    ).config;
    const { engine } = await selectEngine(engineSelectionOf({ config, engineKey: 'embedded' }));
    try {
      expect(engine).toBeInstanceOf(EmbeddedLlamaEngine);
      const info = await (engine as EmbeddedLlamaEngine).load();
      expect(info).toMatchObject({
        gpu: false,
        threads: 1,
        contextSize: 512,
        chatWrapper: 'chatML',
        chatTemplateSource: 'config',
      });
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
