import { homedir } from 'node:os';
import { join } from 'node:path';
import { didYouMean, type InferenceEngine, JarvisError } from '../core/index.js';
import {
  type DiscoveredEngine,
  EmbeddedLlamaEngine,
  type EngineCandidate,
  findDefaultModel,
  OLLAMA_DEFAULT_HOST,
  OllamaEngine,
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
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

/** Receives one redacted entry per engine request attempt and per finished stream (method, URL, status, time). */
export type EngineRequestLogCallback = NonNullable<OpenAICompatibleEngineOptions['onRequest']>;

/** OpenAI's own API: where an API key belongs when no other address was configured with it. */
export const OPENAI_API_BASE_URL = 'https://api.openai.com/v1';

/** Where engines are and how to reach them: from flags, config and environment (flags win). */
export interface EngineSettings {
  /** An explicit server address (`--base-url`), used by the chosen engine. */
  readonly baseUrl?: string;
  /** Per-engine server addresses (config `[engine.<key>] host`, `OLLAMA_HOST`, `OPENAI_BASE_URL`). */
  readonly hosts?: Readonly<Partial<Record<string, string>>>;
  /**
   * API key for OpenAI-compatible servers (`[engine.openai] api_key`, `OPENAI_API_KEY`). It is sent only to the
   * address it was configured for: `baseUrl` when given, else the `openai` host, else OpenAI's own API; never to
   * a local server found by discovery at another address.
   */
  readonly apiKey?: string;
  /** GGUF file for the embedded engine. */
  readonly modelPath?: string;
  /** Folder searched for a GGUF file when no model path is given (default `~/.openjarvis/models`). */
  readonly modelsDir?: string;
  /** First-byte timeout of HTTP engines (see `HttpEngineOptions.timeoutMs`). */
  readonly timeoutMs?: number;
  /** Receives every HTTP engine request as it finishes (for `--verbose`); entries hold no secrets. */
  readonly requestLog?: EngineRequestLogCallback;
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
  const http = {
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    ...(settings.requestLog === undefined ? {} : { onRequest: settings.requestLog }),
  };
  if (key === 'ollama') return new OllamaEngine({ host: baseUrl, textToolCalls, ...http });
  if (key === 'openai' && settings.baseUrl === undefined && settings.hosts?.openai === undefined) {
    throw new JarvisError({
      code: 'invalid_argument',
      message:
        "The 'openai' engine needs a server address: pass --base-url (SDK: the baseUrl option), or set `host` " +
        `under [engine.openai] in the config or OPENAI_BASE_URL (for OpenAI itself: ${OPENAI_API_BASE_URL})`,
    });
  }
  if (key !== 'openai' && !(key in OPENAI_COMPATIBLE_DEFAULT_BASE_URLS))
    throw unknownEngineKey(key);
  return new OpenAICompatibleEngine({
    engineId: key,
    baseUrl,
    textToolCalls,
    ...apiKeyFor(baseUrl, settings),
    ...http,
  });
}

/** The unknown-key error of `createEngine`, naming the built-in keys and the closest one. */
function unknownEngineKey(key: string): JarvisError {
  return new JarvisError({
    code: 'unknown_engine',
    message: `Unknown engine '${key}'. Available: ${ENGINE_KEYS.join(', ')}.${didYouMean(key, ENGINE_KEYS)}`,
  });
}

/** The API key, for the one address it was configured for (see `EngineSettings.apiKey`); else nothing. */
function apiKeyFor(address: string, settings: EngineSettings): { apiKey?: string } {
  if (settings.apiKey === undefined) return {};
  const owner = settings.baseUrl ?? settings.hosts?.openai ?? OPENAI_API_BASE_URL;
  return sameServer(address, owner) ? { apiKey: settings.apiKey } : {};
}

/** Whether two server addresses name the same OpenAI-compatible server (`/v1` and trailing slashes aside). */
export function sameServer(left: string, right: string): boolean {
  return serverIdentity(left) === serverIdentity(right);
}

function serverIdentity(address: string): string {
  const trimmed = address.trim();
  let normal = trimmed;
  try {
    const url = new URL(trimmed);
    normal = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    normal = trimmed.toLowerCase();
  }
  return normal.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function resolveModelPath(settings: EngineSettings): Promise<string> {
  if (settings.modelPath !== undefined) return settings.modelPath;
  const directory = settings.modelsDir ?? defaultModelsDir();
  const found = await findDefaultModel(directory);
  if (found !== undefined) return found;
  throw new JarvisError({
    code: 'engine_not_found',
    message: `The embedded engine needs a GGUF model: set \`model_path\` under [engine.embedded] in the config, or put a .gguf file in ${directory}`,
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
      'or point to a server: --engine openai --base-url <url> (SDK: the engine and baseUrl options;',
      `config: \`host\` under [engine.openai] or OPENAI_BASE_URL; OpenAI itself is ${OPENAI_API_BASE_URL}).`,
    ].join('\n'),
  });
}
