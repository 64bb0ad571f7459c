import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  delayReply,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../testing/index.js';
import { configFromToml, type JarvisConfig } from './config/index.js';
import { listEngineModels, surveyEngines, surveySettings } from './engine-survey.js';

let home: string;
const servers: ScriptedOpenAIServer[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-survey-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(home, { recursive: true, force: true });
});

async function serve(options: Partial<ScriptedServerOptions> = {}): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer({
    script: [],
    ...options,
  } as ScriptedServerOptions);
  servers.push(server);
  return server;
}

/** The address of a server that was started and closed again: connections are refused. */
async function closedAddress(): Promise<string> {
  const server = await startScriptedOpenAIServer({ script: [] });
  await server.close();
  return server.baseUrl;
}

function config(toml = ''): JarvisConfig {
  return configFromToml(toml, join(home, 'config.toml'), { home, cwd: home, homeDir: home }).config;
}

describe('surveySettings', () => {
  it('puts --base-url on --engine, else on the configured default, else on openai', () => {
    expect(surveySettings({ config: config(), baseUrl: 'http://x/v1' }).hosts?.openai).toBe(
      'http://x/v1',
    );
    const configured = config('[engine]\ndefault = "vllm"\n');
    expect(surveySettings({ config: configured, baseUrl: 'http://x/v1' }).hosts?.vllm).toBe(
      'http://x/v1',
    );
    const explicit = surveySettings({
      config: configured,
      baseUrl: 'http://y',
      engineKey: 'ollama',
    });
    expect(explicit.hosts?.ollama).toBe('http://y');
    expect(explicit.hosts?.vllm).toBeUndefined();
  });
});

describe('surveyEngines', () => {
  it('reports a reachable server with its models and a refused one as unreachable', async () => {
    const openai = await serve({ models: ['m1', 'm2'] });
    const ollama = await serve({ mode: 'ollama', models: ['llama3.2:3b'] });
    const down = await closedAddress();
    const engines = await surveyEngines({
      config: config(`[engine.ollama]\nhost = "${ollama.url}"\n[engine.vllm]\nhost = "${down}"\n`),
      baseUrl: openai.baseUrl,
      keys: ['openai', 'ollama', 'vllm'],
      timeoutMs: 5_000,
    });
    expect(engines).toEqual([
      {
        key: 'openai',
        address: openai.baseUrl,
        configured: true,
        reachable: true,
        models: ['m1', 'm2'],
      },
      {
        key: 'ollama',
        address: ollama.url,
        configured: true,
        reachable: true,
        models: ['llama3.2:3b'],
      },
      {
        key: 'vllm',
        address: down,
        configured: true,
        reachable: false,
        models: [],
        problem: 'no answer',
      },
    ]);
  });

  it('says openai is not configured without an address', async () => {
    const [openai] = await surveyEngines({ config: config(), keys: ['openai'] });
    expect(openai).toMatchObject({ configured: false, reachable: false, address: '(not set)' });
    expect(openai?.problem).toMatch(/--base-url or set OPENAI_BASE_URL/);
  });

  it('counts a server that does not answer in time as unreachable', async () => {
    const slow = await serve({
      modelsFault: delayReply(30_000, { content: 'late' }),
    });
    const [engine] = await surveyEngines({
      config: config(),
      baseUrl: slow.baseUrl,
      keys: ['openai'],
      timeoutMs: 50,
    });
    expect(engine).toMatchObject({ reachable: false, problem: 'no answer' });
  });

  it('finds the embedded engine by its GGUF file', async () => {
    const [missing] = await surveyEngines({ config: config(), keys: ['embedded'] });
    expect(missing).toMatchObject({ reachable: false, problem: 'no .gguf file found' });
    await mkdir(join(home, 'models'));
    await writeFile(join(home, 'models', 'tiny.gguf'), 'GGUF');
    const [found] = await surveyEngines({ config: config(), keys: ['embedded'] });
    expect(found).toMatchObject({
      reachable: true,
      address: join(home, 'models', 'tiny.gguf'),
      models: ['tiny.gguf'],
    });
    const named = config(`[engine.embedded]\nmodel_path = "${join(home, 'nope.gguf')}"\n`);
    const [absent] = await surveyEngines({ config: named, keys: ['embedded'] });
    expect(absent).toMatchObject({ reachable: false, problem: 'the model file does not exist' });
  });

  it('returns at once when the caller cancels', async () => {
    const slow = await serve({
      modelsFault: delayReply(30_000, { content: 'late' }),
    });
    const controller = new AbortController();
    controller.abort();
    const [engine] = await surveyEngines({
      config: config(),
      baseUrl: slow.baseUrl,
      keys: ['openai'],
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    expect(engine?.reachable).toBe(false);
  });
});

describe('listEngineModels', () => {
  it('lists the models of the engine a question would use', async () => {
    const server = await serve({ models: ['a', 'b'] });
    expect(
      await listEngineModels({ config: config(), engineKey: 'openai', baseUrl: server.baseUrl }),
    ).toEqual({
      engine: 'openai',
      address: server.baseUrl,
      models: ['a', 'b'],
    });
  });

  it('gives an empty list for an engine without models', async () => {
    const server = await serve({ models: [] });
    const found = await listEngineModels({ config: config(), baseUrl: server.baseUrl });
    expect(found).toMatchObject({ engine: 'openai', models: [] });
  });
});
