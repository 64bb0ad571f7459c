import { setMaxListeners } from 'node:events';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type * as NodeLlamaCpp from 'node-llama-cpp';
import { describeError, type InferenceEngine } from '../core/index.js';
import {
  findDefaultModel,
  findNodeLlamaCpp,
  loadNodeLlamaCpp,
  RECOMMENDED_MODEL,
  RUNTIME_INSTALL_ADVICE,
} from '../engine/index.js';
import { ENGINE_KEYS } from './builtin-engines.js';
import { engineFor, selectEngine } from './engine-selection.js';
import { defaultModelsDir, type EngineSettings, engineAddress } from './engine-settings.js';
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
  /** For `embedded`, when its runtime loads: the GPU llama.cpp runs on (`cpu` when none; `cuda`, `vulkan`, `metal`). */
  readonly gpu?: string;
  /** For `embedded`: whether its runtime works (node-llama-cpp is installed; with a model, llama.cpp starts too). */
  readonly runtimeWorks?: boolean;
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
  /** Checks that the embedded engine's runtime loads (default `probeEmbeddedRuntime`: the real one, cached). */
  readonly probeEmbeddedRuntime?: ProbeEmbeddedRuntime | undefined;
  /** Budget of the embedded runtime check (default 30 s; loading llama.cpp takes about a second). */
  readonly runtimeTimeoutMs?: number | undefined;
}

const DEFAULT_SURVEY_TIMEOUT_MS = 500;
const DEFAULT_RUNTIME_TIMEOUT_MS = 30_000;

/** The command that downloads the model suggested when none is there (from the built-in catalog). */
export const PULL_COMMAND = `jarvis models pull ${RECOMMENDED_MODEL}`;

/** The command that gives an Ollama server a model of the same family. */
export const OLLAMA_PULL_COMMAND = 'ollama pull qwen3:1.7b';

/** Which GPUs llama.cpp may use: `auto` (the best one found) or `false` (CPU only). */
export type EmbeddedGpuSetting = 'auto' | false;

/**
 * What the embedded runtime check found: it works (llama.cpp started on `gpu`, `false` meaning the CPU; no `gpu`
 * when it was only looked up, not started), or why not, saying what to do.
 */
export type EmbeddedRuntimeProbe =
  | { readonly ok: true; readonly gpu?: string | false }
  | { readonly ok: false; readonly reason: string };

/** What the embedded runtime check is asked to do. */
export interface EmbeddedRuntimeProbeOptions {
  /** The GPU setting llama.cpp is started with. */
  readonly gpu: EmbeddedGpuSetting;
  /** Start llama.cpp (about a second of CPU); false only checks that node-llama-cpp is installed. */
  readonly start: boolean;
}

/** Checks the embedded runtime as `options` say; resolves, never rejects. */
export type ProbeEmbeddedRuntime = (
  options: EmbeddedRuntimeProbeOptions,
) => Promise<EmbeddedRuntimeProbe>;

/** Why the embedded engine cannot run when node-llama-cpp is not installed, and the command that installs it. */
export function missingEmbeddedRuntimeProblem(): string {
  return `the embedded runtime (node-llama-cpp) is not installed: ${RUNTIME_INSTALL_ADVICE}`;
}

/** Why the embedded engine cannot run when `directory` has no model, and the command that downloads one. */
export function noModelProblem(directory: string): string {
  return `no .gguf model in ${directory}: \`${PULL_COMMAND}\``;
}

const runtimeProbes = new Map<string, Promise<EmbeddedRuntimeProbe>>();

/**
 * Imports node-llama-cpp and starts llama.cpp from its prebuilt binary (never building from source), notes the GPU
 * it found, and frees it again; with `start: false` only looks node-llama-cpp up. Runs once per process and
 * options; later calls get the same answer.
 */
export function probeEmbeddedRuntime(
  options: EmbeddedRuntimeProbeOptions = { gpu: false, start: true },
): Promise<EmbeddedRuntimeProbe> {
  const key = `${options.gpu}:${options.start}`;
  let probe = runtimeProbes.get(key);
  if (probe === undefined) {
    probe = options.start ? loadEmbeddedRuntime(options.gpu) : findEmbeddedRuntime();
    runtimeProbes.set(key, probe);
  }
  return probe;
}

/** Looks node-llama-cpp up as an import would, without loading it. */
async function findEmbeddedRuntime(): Promise<EmbeddedRuntimeProbe> {
  const missing = findNodeLlamaCpp();
  return missing === undefined ? { ok: true } : brokenRuntime(missing);
}

async function loadEmbeddedRuntime(gpu: EmbeddedGpuSetting): Promise<EmbeddedRuntimeProbe> {
  let module: typeof NodeLlamaCpp;
  try {
    module = await loadNodeLlamaCpp();
  } catch (error) {
    return brokenRuntime(error);
  }
  try {
    const llama = await module.getLlama({
      gpu,
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: module.LlamaLogLevel.error,
      logger: () => undefined,
    });
    const found = llama.gpu;
    await llama.dispose();
    return { ok: true, gpu: found };
  } catch (error) {
    return {
      ok: false,
      reason:
        `llama.cpp could not start on this machine (${describeError(error)}): reinstall node-llama-cpp for ` +
        'this platform (`npm install node-llama-cpp@3.21.1`) or build it (`npx --no node-llama-cpp source build`)',
    };
  }
}

/** The probe's answer for an import (or probe) that failed: not installed, or installed but broken. */
function brokenRuntime(error: unknown): EmbeddedRuntimeProbe {
  if (isMissingModule(error, 'node-llama-cpp'))
    return { ok: false, reason: missingEmbeddedRuntimeProblem() };
  return {
    ok: false,
    reason:
      `the embedded runtime (node-llama-cpp) could not be loaded (${describeError(error)}): ` +
      `reinstall it: ${RUNTIME_INSTALL_ADVICE}`,
  };
}

/** True for the error `import(name)` throws when `name` itself (not one of its own imports) is not installed. */
function isMissingModule(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { readonly code?: unknown }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return error.message.includes(`'${name}'`);
}

/**
 * The GPU setting the system builds the embedded engine with: CPU only unless the settings ask for a GPU (a `gpu`
 * setting, read loosely so it works before and after `EngineSettings` declares one).
 */
function embeddedGpuSetting(settings: EngineSettings): EmbeddedGpuSetting {
  const { gpu } = settings as { readonly gpu?: unknown };
  return gpu === true || gpu === 'auto' ? 'auto' : false;
}

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
        key === 'embedded' ? surveyEmbedded(settings, shared) : surveyServer(key, settings, shared),
      ),
    );
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
}

/** The model the embedded engine would load, or why there is none (saying what to do). */
async function findEmbeddedModel(
  settings: EngineSettings,
): Promise<{ readonly path: string } | { readonly problem: string }> {
  if (settings.modelPath !== undefined) {
    const found = await stat(settings.modelPath).then(
      (stats) => stats.isFile(),
      () => false,
    );
    if (found) return { path: settings.modelPath };
    return {
      problem:
        'the model file does not exist: set model_path under [engine.embedded] to a .gguf file, ' +
        `or remove it and run \`${PULL_COMMAND}\``,
    };
  }
  const directory = settings.modelsDir ?? defaultModelsDir();
  const found = await findDefaultModel(directory);
  return found === undefined ? { problem: noModelProblem(directory) } : { path: found };
}

/**
 * The embedded engine is reachable only when it has a model file and its runtime loads (node-llama-cpp imports and
 * llama.cpp starts), and then reports the GPU llama.cpp runs on. Without a model llama.cpp is not started (it
 * costs about a second); node-llama-cpp is only looked up, so both problems are named at once.
 */
async function surveyEmbedded(
  settings: EngineSettings,
  options: SurveyEnginesOptions,
): Promise<EngineStatus> {
  const model = await findEmbeddedModel(settings);
  const runtime = await checkEmbeddedRuntime(
    { gpu: embeddedGpuSetting(settings), start: 'path' in model },
    options,
  );
  const address = 'path' in model ? model.path : engineAddress('embedded', settings);
  const gpu =
    runtime.ok && runtime.gpu !== undefined
      ? { gpu: runtime.gpu === false ? 'cpu' : runtime.gpu }
      : {};
  const base = { key: 'embedded', address, configured: true, ...gpu, runtimeWorks: runtime.ok };
  const problems = [
    ...(runtime.ok ? [] : [runtime.reason]),
    ...('problem' in model ? [model.problem] : []),
  ];
  if ('path' in model && problems.length === 0)
    return { ...base, reachable: true, models: [basename(model.path)] };
  return { ...base, reachable: false, models: [], problem: problems.join('; ') };
}

/** The runtime probe (the injected one, else the cached real one), given up after its budget or on cancel. */
async function checkEmbeddedRuntime(
  asked: EmbeddedRuntimeProbeOptions,
  options: SurveyEnginesOptions,
): Promise<EmbeddedRuntimeProbe> {
  const probe = options.probeEmbeddedRuntime ?? probeEmbeddedRuntime;
  const timeoutMs = options.runtimeTimeoutMs ?? DEFAULT_RUNTIME_TIMEOUT_MS;
  const result = await withDeadline(
    () => probe(asked).catch((error: unknown) => brokenRuntime(error)),
    timeoutMs,
    options.signal,
  );
  if (result !== undefined) return result;
  const reason =
    options.signal?.aborted === true
      ? 'the embedded runtime was not checked (cancelled)'
      : `llama.cpp did not start within ${timeoutMs} ms`;
  return { ok: false, reason };
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
