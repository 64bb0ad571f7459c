import {
  didYouMean,
  EngineRegistry,
  type InferenceEngine,
  JarvisError,
  type Registry,
} from '../core/index.js';
import type { JarvisConfig } from './config-types.js';
import {
  ENGINE_KEYS,
  type EngineRequestLogCallback,
  type EngineSettings,
  getEngine,
} from './engines.js';

/** The engine a system talks to, the key it was chosen under, and the model it uses. */
export interface ResolvedEngine {
  readonly key: string;
  readonly engine: InferenceEngine;
  readonly model: string;
  /** Where the model is served (`http://127.0.0.1:11434`), for messages; undefined for in-process engines. */
  readonly address?: string | undefined;
}

/** How the engine is chosen: flags first, then the config (which already holds the environment's values). */
export interface EngineChoice {
  readonly config: JarvisConfig;
  /** A ready engine (SDK users, tests): used as is. */
  readonly engine?: InferenceEngine | undefined;
  /** `--engine`: used as given, never replaced by another engine. */
  readonly engineKey?: string | undefined;
  readonly model?: string | undefined;
  readonly baseUrl?: string | undefined;
  /** Budget of the discovery probe (default 400 ms). */
  readonly discoveryTimeoutMs?: number | undefined;
  /** Receives every HTTP engine request as it finishes (`--verbose`); entries are redacted. */
  readonly requestLog?: EngineRequestLogCallback | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The engines discovery probes; a configured default of any other key (`openai`, `embedded`, one a module registers) is used directly. */
const PROBED_KEYS: ReadonlySet<string> = new Set(
  ENGINE_KEYS.filter((key) => key !== 'embedded' && key !== 'openai'),
);
const BUILTIN_KEYS: ReadonlySet<string> = new Set(ENGINE_KEYS);

/** The engine settings the config and flags give. */
export function engineSettingsOf(choice: EngineChoice): EngineSettings {
  const engine = choice.config.engine;
  return {
    hosts: engine.hosts,
    modelsDir: engine.modelsDir,
    ...(choice.baseUrl === undefined ? {} : { baseUrl: choice.baseUrl }),
    ...(engine.apiKey === undefined ? {} : { apiKey: engine.apiKey }),
    ...(engine.modelPath === undefined ? {} : { modelPath: engine.modelPath }),
    ...(engine.timeoutMs === undefined ? {} : { timeoutMs: engine.timeoutMs }),
    ...(choice.requestLog === undefined ? {} : { requestLog: choice.requestLog }),
  };
}

/**
 * Picks the engine: a ready one as given; an explicit key as given; otherwise discovery with the configured
 * default preferred (used directly for engines discovery cannot probe, or with --base-url), falling back to
 * any healthy engine. A configured default that no engine is registered under is an error, never a silent
 * fallback to discovery.
 */
export async function chooseEngine(
  choice: EngineChoice,
  engines?: Registry<unknown>,
): Promise<{ key: string; engine: InferenceEngine }> {
  if (choice.engine !== undefined) return { key: choice.engine.engineId, engine: choice.engine };
  const settings = engineSettingsOf(choice);
  const configured = choice.config.engine.default;
  if (choice.engineKey === undefined && configured !== undefined)
    checkConfiguredKey(configured, engines);
  const explicit = choice.engineKey ?? directKey(configured, choice.baseUrl);
  const registry = explicit === undefined ? undefined : registryFor(explicit, engines);
  if (explicit !== undefined && registry !== undefined)
    return { key: explicit, engine: await registeredEngine(explicit, registry, settings) };
  return getEngine({
    settings,
    ...(explicit === undefined ? {} : { key: explicit }),
    ...(configured === undefined ? {} : { preferredKey: configured }),
    ...(choice.discoveryTimeoutMs === undefined ? {} : { timeoutMs: choice.discoveryTimeoutMs }),
    ...(choice.signal === undefined ? {} : { signal: choice.signal }),
  });
}

/** The engine keys that can be used: the registry's, or without one the built-ins and the global registry's. */
function knownKeys(engines: Registry<unknown> | undefined): string[] {
  if (engines !== undefined) return [...engines.keys()];
  return [...new Set([...ENGINE_KEYS, ...EngineRegistry.keys()])];
}

/** The registry to make `key` from: the one given; without one, the global registry for a key a module registered. */
function registryFor(
  key: string,
  engines: Registry<unknown> | undefined,
): Registry<unknown> | undefined {
  if (engines !== undefined) return engines;
  return !BUILTIN_KEYS.has(key) && EngineRegistry.contains(key) ? EngineRegistry : undefined;
}

/** Refuses a configured default engine that nothing is registered under, naming the known ones. */
function checkConfiguredKey(key: string, engines: Registry<unknown> | undefined): void {
  const known = knownKeys(engines);
  if (known.includes(key)) return;
  throw new JarvisError({
    code: 'unknown_engine',
    message:
      `Unknown engine '${key}' in the config (\`default\` under [engine], or OPENJARVIS_ENGINE). ` +
      `Available: ${known.join(', ')}.${didYouMean(key, known)} Fix the name, or register the engine ` +
      'from a module listed in `imports`.',
  });
}

/** Makes the engine registered under `key` (a built-in or a user's): a factory or class given the settings. */
async function registeredEngine(
  key: string,
  engines: Registry<unknown>,
  settings: EngineSettings,
): Promise<InferenceEngine> {
  if (!engines.contains(key)) {
    const known = [...engines.keys()];
    throw new JarvisError({
      code: 'unknown_engine',
      message: `Unknown engine '${key}'. Available: ${known.join(', ')}.${didYouMean(key, known)}`,
    });
  }
  const engine: unknown = await engines.create(key, settings);
  const candidate = engine as Partial<InferenceEngine> | null;
  if (typeof candidate?.generate !== 'function' || typeof candidate.listModels !== 'function') {
    throw new JarvisError({
      code: 'invalid_engine',
      message: `The engine registered as '${key}' did not produce an engine (generate, stream, listModels, close)`,
    });
  }
  return engine as InferenceEngine;
}

/** A server address without an engine key means the configured engine there, else any OpenAI-compatible one. */
function directKey(
  configured: string | undefined,
  baseUrl: string | undefined,
): string | undefined {
  if (baseUrl !== undefined) return configured ?? 'openai';
  return configured !== undefined && !PROBED_KEYS.has(configured) ? configured : undefined;
}

/** The model: the flag, else the config's, else the engine's first model; none is an error saying what to do. */
export async function chooseModel(
  choice: EngineChoice,
  key: string,
  engine: InferenceEngine,
): Promise<string> {
  const named = choice.model ?? choice.config.engine.model;
  if (named !== undefined && named !== '') return named;
  const models = await engine.listModels(
    choice.signal === undefined ? {} : { signal: choice.signal },
  );
  const first = models[0];
  if (first !== undefined) return first;
  throw new JarvisError({
    code: 'model_not_found',
    message:
      `The '${key}' engine has no model. Pull or load one (for Ollama: \`ollama pull qwen3:8b\`), ` +
      'or name one with --model (SDK: the model option), OPENJARVIS_MODEL, or `model` under [engine] in the config.',
  });
}
