import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  delayReply,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
  writeTinyGguf,
} from '../testing/index.js';
import { configFromToml, type JarvisConfig } from './config/index.js';
import {
  type EmbeddedRuntimeProbe,
  type EmbeddedRuntimeProbeOptions,
  listEngineModels,
  missingEmbeddedRuntimeProblem,
  noModelProblem,
  type ProbeEmbeddedRuntime,
  probeEmbeddedRuntime,
  type SurveyEnginesOptions,
  surveyEngines,
  surveySettings,
} from './engine-survey.js';

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

function embeddedOnly(
  configured: JarvisConfig,
): SurveyEnginesOptions & { keys: readonly string[] } {
  return { config: configured, keys: ['embedded'] };
}

/** A runtime probe that answers `result` (without its GPU when not asked to start) and records what it was asked. */
function runtime(
  result: EmbeddedRuntimeProbe,
): ProbeEmbeddedRuntime & { calls: EmbeddedRuntimeProbeOptions[] } {
  const calls: EmbeddedRuntimeProbeOptions[] = [];
  const probe = async (options: EmbeddedRuntimeProbeOptions): Promise<EmbeddedRuntimeProbe> => {
    calls.push(options);
    return result.ok && !options.start ? { ok: true } : result;
  };
  return Object.assign(probe, { calls });
}

async function writeTinyModel(): Promise<void> {
  await mkdir(join(home, 'models'), { recursive: true });
  await writeTinyGguf(join(home, 'models', 'tiny.gguf'));
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

  it('finds the embedded engine by its GGUF file, and says how to get one when there is none', async () => {
    const probe = runtime({ ok: true, gpu: false });
    const [missing] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: probe,
    });
    expect(missing).toMatchObject({
      reachable: false,
      address: join(home, 'models', '*.gguf'),
      models: [],
      runtimeWorks: true,
      problem: `no .gguf model in ${join(home, 'models')}: \`jarvis models pull qwen3-1.7b\``,
    });
    expect(missing?.problem).toBe(noModelProblem(join(home, 'models')));
    // Without a model llama.cpp is not started, so no GPU is reported.
    expect(missing?.gpu).toBeUndefined();
    await mkdir(join(home, 'models'));
    await writeFile(join(home, 'models', 'tiny.gguf'), 'GGUF');
    const [found] = await surveyEngines({ ...embeddedOnly(config()), probeEmbeddedRuntime: probe });
    expect(found).toEqual({
      key: 'embedded',
      address: join(home, 'models', 'tiny.gguf'),
      configured: true,
      reachable: true,
      models: ['tiny.gguf'],
      gpu: 'cpu',
      runtimeWorks: true,
    });
    const named = config(`[engine.embedded]\nmodel_path = "${join(home, 'nope.gguf')}"\n`);
    const [absent] = await surveyEngines({ ...embeddedOnly(named), probeEmbeddedRuntime: probe });
    expect(absent).toMatchObject({ reachable: false, address: join(home, 'nope.gguf') });
    expect(absent?.problem).toMatch(
      /^the model file does not exist: set model_path .*jarvis models pull/,
    );
    // llama.cpp is started only for a model, with the GPU setting the system builds the engine with: CPU only.
    expect(probe.calls).toEqual([
      { gpu: false, start: false },
      { gpu: false, start: true },
      { gpu: false, start: false },
    ]);
  });

  it('is not reachable with a model file when node-llama-cpp is not installed, and says how to install it', async () => {
    await writeTinyModel();
    const [engine] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: runtime({ ok: false, reason: missingEmbeddedRuntimeProblem() }),
    });
    expect(engine).toMatchObject({
      reachable: false,
      models: [],
      address: join(home, 'models', 'tiny.gguf'),
      runtimeWorks: false,
    });
    expect(engine?.gpu).toBeUndefined();
    expect(engine?.problem).toBe(
      'the embedded runtime (node-llama-cpp) is not installed: run `jarvis engines install embedded` (about 80 MB, into the OpenJarvis home), or `npm install node-llama-cpp@3.21.1` next to openjarvis',
    );
    // A probe that throws the import's own error is read the same way.
    const notFound = Object.assign(
      new Error("Cannot find package 'node-llama-cpp' imported from /app/dist/x.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const [thrown] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: () => Promise.reject(notFound),
    });
    expect(thrown?.problem).toBe(missingEmbeddedRuntimeProblem());
    const [broken] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: () => Promise.reject(new Error('bad ELF header')),
    });
    expect(broken?.problem).toMatch(
      /could not be loaded \(bad ELF header\): reinstall it: run `jarvis engines install embedded`/,
    );
  });

  it('names both problems when neither the runtime nor a model is there', async () => {
    const reason = missingEmbeddedRuntimeProblem();
    const [engine] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: runtime({ ok: false, reason }),
    });
    expect(engine?.problem).toBe(`${reason}; ${noModelProblem(join(home, 'models'))}`);
  });

  it('reports the GPU llama.cpp found, and gives up on a runtime that does not start in time', async () => {
    await writeTinyModel();
    const [cuda] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: runtime({ ok: true, gpu: 'cuda' }),
    });
    expect(cuda).toMatchObject({ reachable: true, gpu: 'cuda' });
    const [hung] = await surveyEngines({
      ...embeddedOnly(config()),
      probeEmbeddedRuntime: () => new Promise(() => undefined),
      runtimeTimeoutMs: 20,
    });
    expect(hung).toMatchObject({
      reachable: false,
      problem: 'llama.cpp did not start within 20 ms',
    });
  });

  it('loads the real runtime once per process (node-llama-cpp is installed here) and uses the tiny GGUF', async () => {
    const [none] = await surveyEngines(embeddedOnly(config()));
    expect(none).toMatchObject({ reachable: false, problem: noModelProblem(join(home, 'models')) });
    expect(none?.gpu).toBeUndefined();
    await writeTinyModel();
    const [engine] = await surveyEngines(embeddedOnly(config()));
    expect(engine).toMatchObject({ reachable: true, models: ['tiny.gguf'], gpu: 'cpu' });
    const first = probeEmbeddedRuntime({ gpu: false, start: true });
    expect(probeEmbeddedRuntime({ gpu: false, start: true })).toBe(first);
    expect(await first).toEqual({ ok: true, gpu: false });
    expect(await probeEmbeddedRuntime({ gpu: false, start: false })).toEqual({ ok: true });
  }, 30_000);

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
