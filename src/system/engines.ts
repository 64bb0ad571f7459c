import { homedir } from 'node:os';
import { join } from 'node:path';
import { type InferenceEngine, JarvisError } from '../core/index.js';
import {
  type DiscoveredEngine,
  EmbeddedLlamaEngine,
  type EngineCandidate,
  findDefaultModel,
  OLLAMA_DEFAULT_HOST,
  OllamaEngine,
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  OpenAICompatibleEngine,
  probeEngines,
} from '../engine/index.js';

/** The built-in engine keys. */
export const ENGINE_KEYS = [
  'ollama',
  'vllm',
  'llamacpp',
  'sglang',
  'lmstudio',
  'openai',
  'embedded',
] as const;

/** One of the built-in engine keys. */
export type EngineKey = (typeof ENGINE_KEYS)[number];

/** Where engines are and how to reach them: from flags, config and environment (flags win). */
export interface EngineSettings {
  /** An explicit server address (`--base-url`), used by the chosen engine. */
  readonly baseUrl?: string;
  /** Per-engine server addresses (config `[engine.<key>] host`, `OLLAMA_HOST`, `OPENAI_BASE_URL`). */
  readonly hosts?: Readonly<Partial<Record<string, string>>>;
  /** API key for OpenAI-compatible servers (`OPENAI_API_KEY`). */
  readonly apiKey?: string;
  /** GGUF file for the embedded engine. */
  readonly modelPath?: string;
  /** Folder searched for a GGUF file when no model path is given (default `~/.openjarvis/models`). */
  readonly modelsDir?: string;
  /** Per-request timeout of HTTP engines. */
  readonly timeoutMs?: number;
  /** Read tool calls that local models write as text (default on, except for `openai`). */
  readonly textToolCalls?: boolean;
}

/** The engine settings the environment gives: `OLLAMA_HOST`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`. */
export function engineSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): EngineSettings {
  const hosts: Record<string, string> = {};
  if (env.OLLAMA_HOST) hosts.ollama = env.OLLAMA_HOST;
  if (env.OPENAI_BASE_URL) hosts.openai = env.OPENAI_BASE_URL;
  return { hosts, ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) };
}

/** The address an engine key will be reached at with these settings (a URL, or a model file). */
export function engineAddress(key: string, settings: EngineSettings = {}): string {
  const explicit = settings.baseUrl ?? settings.hosts?.[key];
  if (explicit !== undefined) return explicit;
  if (key === 'ollama') return OLLAMA_DEFAULT_HOST;
  if (key === 'embedded')
    return settings.modelPath ?? join(settings.modelsDir ?? defaultModelsDir(), '*.gguf');
  return OPENAI_COMPATIBLE_DEFAULT_BASE_URLS[key] ?? '(no address configured)';
}

function defaultModelsDir(): string {
  return join(homedir(), '.openjarvis', 'models');
}

/** Makes the client of one engine; unknown keys are errors naming the known ones. */
export async function createEngine(
  key: string,
  settings: EngineSettings = {},
): Promise<InferenceEngine> {
  if (key === 'embedded')
    return new EmbeddedLlamaEngine({ modelPath: await resolveModelPath(settings) });
  return createServerEngine(key, settings);
}

/** Makes the client of an engine that is a server (every built-in key but `embedded`). */
function createServerEngine(key: string, settings: EngineSettings): InferenceEngine {
  const baseUrl = engineAddress(key, settings);
  const textToolCalls = settings.textToolCalls ?? key !== 'openai';
  const timeout = settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs };
  if (key === 'ollama') return new OllamaEngine({ host: baseUrl, textToolCalls, ...timeout });
  if (key === 'openai' && settings.baseUrl === undefined && settings.hosts?.openai === undefined) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: "The 'openai' engine needs a server address: pass --base-url or set OPENAI_BASE_URL",
    });
  }
  if (key !== 'openai' && !(key in OPENAI_COMPATIBLE_DEFAULT_BASE_URLS)) {
    throw new JarvisError({
      code: 'unknown_engine',
      message: `Unknown engine '${key}'. Available: ${ENGINE_KEYS.join(', ')}`,
    });
  }
  const apiKey = settings.apiKey === undefined ? {} : { apiKey: settings.apiKey };
  return new OpenAICompatibleEngine({
    engineId: key,
    baseUrl,
    textToolCalls,
    ...apiKey,
    ...timeout,
  });
}

async function resolveModelPath(settings: EngineSettings): Promise<string> {
  if (settings.modelPath !== undefined) return settings.modelPath;
  const directory = settings.modelsDir ?? defaultModelsDir();
  const found = await findDefaultModel(directory);
  if (found !== undefined) return found;
  throw new JarvisError({
    code: 'engine_not_found',
    message: `The embedded engine needs a GGUF model: pass a model path, or put a .gguf file in ${directory}`,
  });
}

/** Options of `discoverEngines` and `getEngine`. */
export interface DiscoverOptions {
  readonly settings?: EngineSettings;
  /** Listed first when healthy (the configured default engine). */
  readonly preferredKey?: string;
  /** Budget of the whole probe (default 400 ms). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** The servers worth probing: the local ones at their configured or default addresses, and `openai` when configured. */
function serverCandidates(settings: EngineSettings): EngineCandidate[] {
  const { baseUrl: _explicit, ...perEngine } = settings;
  const keys = ENGINE_KEYS.filter(
    (key) => key !== 'embedded' && (key !== 'openai' || perEngine.hosts?.openai),
  );
  return keys.map((key) => ({
    key,
    address: engineAddress(key, perEngine),
    create: () => createServerEngine(key, perEngine),
  }));
}

/** Probes the local engine servers in parallel and returns the healthy ones, the preferred one first. */
export function discoverEngines(options: DiscoverOptions = {}): Promise<DiscoveredEngine[]> {
  return probeEngines(serverCandidates(options.settings ?? {}), {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.preferredKey === undefined ? {} : { preferredKey: options.preferredKey }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** Options of `getEngine`. */
export interface GetEngineOptions extends DiscoverOptions {
  /** An explicit choice (`--engine`): used as is, never replaced by another engine. */
  readonly key?: string;
}

/** The engine to use and the key it was found under. */
export interface ChosenEngine {
  readonly key: string;
  readonly engine: InferenceEngine;
}

/**
 * Picks the engine: an explicit key as given; otherwise the preferred (configured) engine when it is healthy,
 * else another healthy one. When none answers, the error lists every address tried and how to start one.
 */
export async function getEngine(options: GetEngineOptions = {}): Promise<ChosenEngine> {
  const settings = options.settings ?? {};
  if (options.key !== undefined)
    return { key: options.key, engine: await createEngine(options.key, settings) };
  const found = await discoverEngines(options);
  const [chosen, ...others] = found;
  await Promise.all(others.map((other) => other.engine.close().catch(() => undefined)));
  if (chosen !== undefined) return { key: chosen.key, engine: chosen.engine };
  const embedded = await tryEmbedded(settings);
  if (embedded !== undefined) return embedded;
  throw noEngineError(settings);
}

async function tryEmbedded(settings: EngineSettings): Promise<ChosenEngine | undefined> {
  const modelPath =
    settings.modelPath ?? (await findDefaultModel(settings.modelsDir ?? defaultModelsDir()));
  if (modelPath === undefined) return undefined;
  return { key: 'embedded', engine: new EmbeddedLlamaEngine({ modelPath }) };
}

function noEngineError(settings: EngineSettings): JarvisError {
  const tried = serverCandidates(settings).map(
    (candidate) => `  - ${candidate.key}: ${candidate.address}`,
  );
  tried.push(`  - embedded: no .gguf file in ${settings.modelsDir ?? defaultModelsDir()}`);
  return new JarvisError({
    code: 'engine_not_found',
    message: [
      'No inference engine is running. Tried:',
      ...tried,
      'Start one, for example: `ollama serve` (then `ollama pull qwen3:8b`), `vllm serve <model>`,',
      '`llama-server -m model.gguf --port 8080`, or put a GGUF file in the models folder for the embedded engine;',
      'or point to a server with --engine openai --base-url <url>.',
    ].join('\n'),
  });
}
