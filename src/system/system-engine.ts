import { type InferenceEngine, JarvisError, type Registry } from '../core/index.js';
import type { ChosenEngine } from '../engine/index.js';
import type { JarvisConfig } from './config/index.js';
import { type EngineSelection, selectEngine } from './engine-selection.js';
import type { EngineRequestLogCallback, EngineSettings } from './engine-settings.js';

/** The engine a system talks to, the key it was chosen under, where it is, and the model it uses. */
export type ResolvedEngine = ChosenEngine & { readonly model: string };

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

/** The engine settings the config and flags give. */
export function engineSettingsOf(choice: EngineChoice): EngineSettings {
  const engine = choice.config.engine;
  return {
    hosts: engine.hosts,
    modelsDir: engine.modelsDir,
    embedded: engine.embedded,
    ...(engine.toolCallFormat === undefined ? {} : { toolCallFormat: engine.toolCallFormat }),
    ...(choice.baseUrl === undefined ? {} : { baseUrl: choice.baseUrl }),
    ...(engine.apiKey === undefined ? {} : { apiKey: engine.apiKey }),
    ...(engine.modelPath === undefined ? {} : { modelPath: engine.modelPath }),
    ...(engine.timeoutMs === undefined ? {} : { timeoutMs: engine.timeoutMs }),
    ...(choice.requestLog === undefined ? {} : { requestLog: choice.requestLog }),
  };
}

/** The selection the flags and config make (`selectEngine` takes it), with the registry engines come from. */
export function engineSelectionOf(
  choice: EngineChoice,
  registry?: Registry<unknown>,
): EngineSelection {
  return {
    settings: engineSettingsOf(choice),
    engine: choice.engine,
    key: choice.engineKey,
    preferredKey: choice.config.engine.default,
    registry,
    timeoutMs: choice.discoveryTimeoutMs,
    signal: choice.signal,
  };
}

/**
 * Picks the engine the flags and config ask for.
 * @deprecated Use `selectEngine(engineSelectionOf(choice, registry))`.
 */
export function chooseEngine(
  choice: EngineChoice,
  engines?: Registry<unknown>,
): Promise<ChosenEngine> {
  return selectEngine(engineSelectionOf(choice, engines));
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
