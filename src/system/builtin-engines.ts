import {
  didYouMean,
  type InferenceEngine,
  JarvisError,
  NoSuchEngineError,
  safeForTerminal,
} from '../core/index.js';
import {
  EmbeddedLlamaEngine,
  findDefaultModel,
  OllamaEngine,
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  OpenAICompatibleEngine,
  RECOMMENDED_MODEL,
} from '../engine/index.js';
import { ENGINE_KEYS } from './engine-keys.js';
import {
  defaultModelsDir,
  type EmbeddedRunSettings,
  type EngineSettings,
  engineAddress,
  OPENAI_API_BASE_URL,
  sameServer,
} from './engine-settings.js';
import { NoModelError } from './no-model-error.js';

export { ENGINE_KEYS, type EngineKey } from './engine-keys.js';

/** Makes the client of one engine; unknown keys are errors naming the known ones. */
export async function createEngine(
  key: string,
  settings: EngineSettings = {},
): Promise<InferenceEngine> {
  if (key === 'embedded')
    return new EmbeddedLlamaEngine({
      modelPath: await resolveModelPath(settings),
      ...definedOnly(settings.embedded ?? {}),
    });
  return createServerEngine(key, settings);
}

/** Makes the client of an engine that is a server (every built-in key but `embedded`). */
export function createServerEngine(key: string, settings: EngineSettings): InferenceEngine {
  const baseUrl = engineAddress(key, settings);
  const http = {
    ...(settings.textToolCalls === undefined ? {} : { textToolCalls: settings.textToolCalls }),
    ...(settings.toolCallFormat === undefined ? {} : { toolCallFormat: settings.toolCallFormat }),
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    ...(settings.requestLog === undefined ? {} : { onRequest: settings.requestLog }),
  };
  if (key === 'ollama') return new OllamaEngine({ host: baseUrl, ...http });
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
    ...apiKeyFor(baseUrl, settings),
    ...http,
  });
}

/** Where an unknown engine key came from and what to do, around the one message every engine lookup gives. */
export interface UnknownEngineContext {
  /** After the key, e.g. ` in the config (...)`. */
  readonly where?: string;
  /** After the suggestion, e.g. ` Fix the name, or ...`. */
  readonly advice?: string;
}

/**
 * `Unknown engine 'x'. Available: a, b.` (in the order given: registry order) plus a did-you-mean; the key is
 * shown terminal-safe on one line (it may come from a command line or a config file).
 */
export function unknownEngineError(
  key: string,
  available: readonly string[],
  context: UnknownEngineContext = {},
): NoSuchEngineError {
  const shown = safeForTerminal(key, { singleLine: true });
  return new NoSuchEngineError({
    engineKey: key,
    availableEngines: available,
    message:
      `Unknown engine '${shown}'${context.where ?? ''}. Available: ${available.join(', ')}.` +
      `${didYouMean(key, available)}${context.advice ?? ''}`,
  });
}

/** The fields of `settings` that are set (the engine's options take no explicit `undefined`). */
function definedOnly(settings: EmbeddedRunSettings): {
  gpu?: boolean;
  threads?: number;
  contextSize?: number;
  chatWrapper?: string;
} {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** The unknown-key error of `createEngine`, naming the built-in keys and the closest one. */
function unknownEngineKey(key: string): NoSuchEngineError {
  return unknownEngineError(key, ENGINE_KEYS);
}

/** The API key, for the one address it was configured for (see `EngineSettings.apiKey`); else nothing. */
function apiKeyFor(address: string, settings: EngineSettings): { apiKey?: string } {
  if (settings.apiKey === undefined) return {};
  const owner = settings.baseUrl ?? settings.hosts?.openai ?? OPENAI_API_BASE_URL;
  return sameServer(address, owner) ? { apiKey: settings.apiKey } : {};
}

async function resolveModelPath(settings: EngineSettings): Promise<string> {
  if (settings.modelPath !== undefined) return settings.modelPath;
  const directory = settings.modelsDir ?? defaultModelsDir();
  const found = await findDefaultModel(directory);
  if (found !== undefined) return found;
  throw new NoModelError({
    modelsDir: directory,
    message: `The embedded engine needs a GGUF model: download one with \`jarvis models pull ${RECOMMENDED_MODEL}\` (into ${directory}), or set \`model_path\` under [engine.embedded] in the config`,
  });
}
