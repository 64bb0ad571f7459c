import { setMaxListeners } from 'node:events';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { describeError, type InferenceEngine } from '../core/index.js';
import { findDefaultModel } from '../engine/index.js';
import { ENGINE_KEYS } from './builtin-engines.js';
import { engineFor, selectEngine } from './engine-selection.js';
import { type EngineSettings, engineAddress } from './engine-settings.js';
import { type EngineChoice, engineSelectionOf, engineSettingsOf } from './system-engine.js';

/** What `surveyEngines` found out about one engine. */
export interface EngineStatus {
  readonly key: string;
  /** Where it is looked for: a server URL, or a GGUF file (pattern) for `embedded`. */
  readonly address: string;
  /** False for `openai` when no address was given (it has no default server). */
  readonly configured: boolean;
  /** The server answered its health check (for `embedded`: the model file exists). */
  readonly reachable: boolean;
  /** The models it offers, when reachable. */
  readonly models: readonly string[];
  /** Why it is not usable or has no model list, in a few words. */
  readonly problem?: string;
}

/**
 * Options of `surveyEngines`: the config, and `--base-url` as the address of `engineKey` (else of the configured
 * default engine, else of `openai`).
 */
export interface SurveyEnginesOptions
  extends Pick<EngineChoice, 'config' | 'baseUrl' | 'engineKey' | 'signal'> {
  /** The engines to look at (default every built-in key). */
  readonly keys?: readonly string[];
  /** Budget of the health probe, and again of the model listing (default 500 ms each). */
  readonly timeoutMs?: number;
}

const DEFAULT_SURVEY_TIMEOUT_MS = 500;

/** The engine settings of a survey: the config's, with `--base-url` placed on the engine it applies to. */
export function surveySettings(options: SurveyEnginesOptions): EngineSettings {
  const settings = engineSettingsOf({ config: options.config });
  if (options.baseUrl === undefined) return settings;
  const key = options.engineKey ?? options.config.engine.default ?? 'openai';
  return { ...settings, hosts: { ...settings.hosts, [key]: options.baseUrl } };
}

/**
 * Looks at every built-in engine at once: its address, whether it answers (within the timeout), and its models.
 * Never throws for an engine that is down; every client it opens is closed again.
 */
export async function surveyEngines(options: SurveyEnginesOptions): Promise<EngineStatus[]> {
  const settings = surveySettings(options);
  const keys = options.keys ?? ENGINE_KEYS;
  // One listener on the caller's signal; every probe (two per engine) listens on this one instead.
  const cancel = new AbortController();
  setMaxListeners(4 * keys.length + 10, cancel.signal);
  const stop = () => cancel.abort();
  if (options.signal?.aborted === true) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  const shared = { ...options, signal: cancel.signal };
  try {
    return await Promise.all(
      keys.map((key) =>
        key === 'embedded' ? surveyEmbedded(settings) : surveyServer(key, settings, shared),
      ),
    );
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
}

async function surveyEmbedded(settings: EngineSettings): Promise<EngineStatus> {
  const address = engineAddress('embedded', settings);
  const base = { key: 'embedded', address, configured: true };
  if (settings.modelPath !== undefined) {
    const found = await stat(settings.modelPath).then(
      (stats) => stats.isFile(),
      () => false,
    );
    return found
      ? { ...base, reachable: true, models: [basename(settings.modelPath)] }
      : { ...base, reachable: false, models: [], problem: 'the model file does not exist' };
  }
  const found =
    settings.modelsDir === undefined ? undefined : await findDefaultModel(settings.modelsDir);
  if (found === undefined)
    return { ...base, reachable: false, models: [], problem: 'no .gguf file found' };
  return { ...base, address: found, reachable: true, models: [basename(found)] };
}

async function surveyServer(
  key: string,
  settings: EngineSettings,
  options: SurveyEnginesOptions,
): Promise<EngineStatus> {
  const address = engineAddress(key, settings);
  if (key === 'openai' && settings.hosts?.openai === undefined) {
    const problem = 'not configured: pass --base-url or set OPENAI_BASE_URL';
    return { key, address: '(not set)', configured: false, reachable: false, models: [], problem };
  }
  let engine: InferenceEngine;
  try {
    engine = await engineFor(key, settings);
  } catch (error) {
    return {
      key,
      address,
      configured: true,
      reachable: false,
      models: [],
      problem: describeError(error),
    };
  }
  try {
    return { key, address, configured: true, ...(await probe(engine, options)) };
  } finally {
    await engine.close().catch(() => undefined);
  }
}

/** Health within the budget, then the model list within another. */
async function probe(
  engine: InferenceEngine,
  options: SurveyEnginesOptions,
): Promise<Pick<EngineStatus, 'reachable' | 'models' | 'problem'>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SURVEY_TIMEOUT_MS;
  const healthy = await withDeadline(
    (signal) => engine.health({ signal }).catch(() => false),
    timeoutMs,
    options.signal,
  );
  if (healthy !== true) return { reachable: false, models: [], problem: 'no answer' };
  const models = await withDeadline(
    (signal) => engine.listModels({ signal }).catch((error: unknown) => describeError(error)),
    timeoutMs,
    options.signal,
  );
  if (Array.isArray(models)) return { reachable: true, models };
  const why = typeof models === 'string' ? models : `no answer within ${timeoutMs} ms`;
  return { reachable: true, models: [], problem: `could not list models: ${why}` };
}

/** Runs `work` with a signal aborted after `timeoutMs` (or by `outer`); undefined when the time ran out. */
async function withDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<T | undefined> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  const timer = setTimeout(stop, timeoutMs);
  if (outer?.aborted === true) stop();
  outer?.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.race([
      work(controller.signal),
      new Promise<undefined>((resolve) => {
        if (controller.signal.aborted) resolve(undefined);
        controller.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', stop);
  }
}

/**
 * Options of `listEngineModels`: how the system would choose its engine.
 * @deprecated Use `EngineChoice` (the same fields).
 */
export type ListEngineModelsOptions = EngineChoice;

/** The engine the system would choose, where it is, and its models. */
export interface EngineModels {
  readonly engine: string;
  readonly address: string;
  readonly models: readonly string[];
}

/**
 * Chooses the engine as a question would (flag, config, discovery) and lists its models; an engine with no
 * model gives an empty list, not an error. Throws the system's advice when no engine is found.
 */
export async function listEngineModels(options: EngineChoice): Promise<EngineModels> {
  const chosen = await selectEngine(engineSelectionOf(options));
  try {
    const models = await chosen.engine.listModels(
      options.signal === undefined ? {} : { signal: options.signal },
    );
    const address = chosen.address ?? engineAddress(chosen.key, engineSettingsOf(options));
    return { engine: chosen.key, address, models };
  } finally {
    await chosen.engine.close().catch(() => undefined);
  }
}
