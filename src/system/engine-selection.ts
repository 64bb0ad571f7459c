import { EngineRegistry, type InferenceEngine, JarvisError, type Registry } from '../core/index.js';
import {
  type ChosenEngine,
  type EngineCandidate,
  findDefaultModel,
  probeEngines,
  RECOMMENDED_MODEL,
} from '../engine/index.js';
import { createEngine, ENGINE_KEYS, unknownEngineError } from './builtin-engines.js';
import {
  defaultModelsDir,
  type EngineSettings,
  engineAddress,
  OPENAI_API_BASE_URL,
} from './engine-settings.js';
import { NoModelError } from './no-model-error.js';

/** How to choose an engine: a ready one, a key, or discovery among the registered engines. */
export interface EngineSelection {
  /** Where engines are and how to reach them (flags, config and environment). */
  readonly settings?: EngineSettings | undefined;
  /** An explicit choice (`--engine`): used as is, never replaced by another engine. */
  readonly key?: string | undefined;
  /**
   * The configured default engine: it must be a known key; it is used directly when discovery cannot probe it
   * (`openai`, `embedded`, a user's engine) or with a `baseUrl`, and is otherwise listed first when healthy.
   */
  readonly preferredKey?: string | undefined;
  /** A ready engine (SDK users, tests): chosen as is. */
  readonly engine?: InferenceEngine | undefined;
  /** Where engines are registered (default the global `EngineRegistry`); the built-in keys work without it. */
  readonly registry?: Registry<unknown> | undefined;
  /** Budget of the discovery probe (default 400 ms). */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The engine servers discovery probes; a configured default of any other key is used directly. */
const PROBED_KEYS: ReadonlySet<string> = new Set(
  ENGINE_KEYS.filter((key) => key !== 'embedded' && key !== 'openai'),
);
const BUILTIN_KEYS: ReadonlySet<string> = new Set(ENGINE_KEYS);

/**
 * Chooses the engine: a ready one as given; an explicit key as given; a configured default that discovery
 * cannot probe (or with `baseUrl`) directly; otherwise the healthy engines are probed, the configured one
 * preferred, then a GGUF file for the embedded engine. Engines are made from the registry (a user's engine
 * under any key), the built-ins without it. Errors name the known keys, or every address tried.
 */
export async function selectEngine(selection: EngineSelection = {}): Promise<ChosenEngine> {
  if (selection.engine !== undefined) return readyEngine(selection.engine);
  const settings = selection.settings ?? {};
  const registry = selection.registry ?? EngineRegistry;
  const preferred = selection.preferredKey;
  if (selection.key === undefined && preferred !== undefined)
    checkConfiguredKey(preferred, registry);
  const direct = selection.key ?? directKey(preferred, settings.baseUrl);
  if (direct !== undefined) {
    const engine = await engineFor(direct, settings, registry);
    return { key: direct, engine, address: addressOf(direct, engine, settings) };
  }
  const [chosen, ...others] = await probeServers(selection);
  await Promise.all(others.map((other) => other.engine.close().catch(() => undefined)));
  if (chosen !== undefined) return chosen;
  const embedded = await findEmbedded(settings, registry);
  if (embedded !== undefined) return embedded;
  throw noEngineError(settings);
}

/** Probes the engine servers in parallel and returns the healthy ones, the preferred one first. */
export function probeServers(selection: EngineSelection): Promise<ChosenEngine[]> {
  const registry = selection.registry ?? EngineRegistry;
  return probeEngines(serverCandidates(selection.settings ?? {}, registry), {
    ...(selection.timeoutMs === undefined ? {} : { timeoutMs: selection.timeoutMs }),
    ...(selection.preferredKey === undefined ? {} : { preferredKey: selection.preferredKey }),
    ...(selection.signal === undefined ? {} : { signal: selection.signal }),
  });
}

/**
 * Makes the engine of `key` with these settings: the registry's entry (a factory or class given the settings)
 * when there is one, else the built-in one; an unknown key is an error naming the known ones.
 */
export async function engineFor(
  key: string,
  settings: EngineSettings,
  registry: Registry<unknown> = EngineRegistry,
): Promise<InferenceEngine> {
  if (!registry.contains(key)) {
    if (BUILTIN_KEYS.has(key)) return createEngine(key, settings);
    throw unknownEngineError(key, knownKeys(registry));
  }
  const engine: unknown = await registry.create(key, settings);
  const candidate = engine as Partial<InferenceEngine> | null;
  if (typeof candidate?.generate !== 'function' || typeof candidate.listModels !== 'function') {
    throw new JarvisError({
      code: 'invalid_engine',
      message: `The engine registered as '${key}' did not produce an engine (generate, stream, listModels, close)`,
    });
  }
  return engine as InferenceEngine;
}

/** The keys an engine can be chosen under: the registry's, then the built-ins it lacks. */
function knownKeys(registry: Registry<unknown>): string[] {
  return [...new Set([...registry.keys(), ...ENGINE_KEYS])];
}

/** Refuses a configured default engine that nothing is registered under, naming the known ones. */
function checkConfiguredKey(key: string, registry: Registry<unknown>): void {
  const known = knownKeys(registry);
  if (known.includes(key)) return;
  throw unknownEngineError(key, known, {
    where: ' in the config (`default` under [engine], or OPENJARVIS_ENGINE)',
    advice: ' Fix the name, or register the engine from a module listed in `imports`.',
  });
}

/** A server address without an engine key means the configured engine there, else any OpenAI-compatible one. */
function directKey(
  configured: string | undefined,
  baseUrl: string | undefined,
): string | undefined {
  if (baseUrl !== undefined) return configured ?? 'openai';
  return configured !== undefined && !PROBED_KEYS.has(configured) ? configured : undefined;
}

/** A ready engine as chosen: under its own id, at its `baseUrl` when it has one. */
function readyEngine(engine: InferenceEngine): ChosenEngine {
  const baseUrl = (engine as { readonly baseUrl?: unknown }).baseUrl;
  return {
    key: engine.engineId,
    engine,
    ...(typeof baseUrl === 'string' ? { address: baseUrl } : {}),
  };
}

/** Where a chosen engine is: the configured address of a built-in key, else the engine's own `baseUrl`. */
function addressOf(
  key: string,
  engine: InferenceEngine,
  settings: EngineSettings,
): string | undefined {
  if (BUILTIN_KEYS.has(key)) return engineAddress(key, settings);
  return readyEngine(engine).address;
}

/** The servers worth probing: the local ones at their configured or default addresses, and `openai` when configured. */
function serverCandidates(
  settings: EngineSettings,
  registry: Registry<unknown>,
): EngineCandidate[] {
  const { baseUrl: _explicit, ...perEngine } = settings;
  const keys = ENGINE_KEYS.filter(
    (key) => key !== 'embedded' && (key !== 'openai' || perEngine.hosts?.openai),
  );
  return keys.map((key) => ({
    key,
    address: engineAddress(key, perEngine),
    create: () => engineFor(key, perEngine, registry),
  }));
}

/** The embedded engine, when a GGUF file is configured or found in the models folder. */
async function findEmbedded(
  settings: EngineSettings,
  registry: Registry<unknown>,
): Promise<ChosenEngine | undefined> {
  const modelPath =
    settings.modelPath ?? (await findDefaultModel(settings.modelsDir ?? defaultModelsDir()));
  if (modelPath === undefined) return undefined;
  const engine = await engineFor('embedded', { ...settings, modelPath }, registry);
  return { key: 'embedded', engine, address: modelPath };
}

function noEngineError(settings: EngineSettings): NoModelError {
  const modelsDir = settings.modelsDir ?? defaultModelsDir();
  const tried = serverCandidates(settings, EngineRegistry).map(
    (candidate) => `  - ${candidate.key}: ${candidate.address}`,
  );
  tried.push(`  - embedded: no .gguf file in ${modelsDir}`);
  return new NoModelError({
    modelsDir,
    message: [
      'No inference engine is running. Tried:',
      ...tried,
      `Download a model to run in-process (nothing else to install): \`jarvis models pull ${RECOMMENDED_MODEL}\`;`,
      'or start a server, for example `ollama serve` (then `ollama pull qwen3:8b`), `vllm serve <model>` or',
      '`llama-server -m model.gguf --port 8080`;',
      'or point to one: --engine openai --base-url <url> (SDK: the engine and baseUrl options;',
      `config: \`host\` under [engine.openai] or OPENAI_BASE_URL; OpenAI itself is ${OPENAI_API_BASE_URL}).`,
    ].join('\n'),
  });
}
