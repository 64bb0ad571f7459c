import * as z from 'zod/mini';
import { databaseUrl, engineKey, isBuiltinEngine } from './file-schema.js';
import type { ConfigWarning } from './problems.js';
import type { EngineConfig, StorageConfig } from './schema.js';
import { ollamaHost, once, text, url } from './values.js';
import { notBuiltinMessage } from './warnings.js';

/** Environment variables as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The variables that override the engine settings of the file; blank ones count as unset (built on first use). */
export const environmentSchema = once(() =>
  z.object({
    OPENJARVIS_ENGINE: z.optional(engineKey()),
    OPENJARVIS_MODEL: z.optional(text()),
    OLLAMA_HOST: z.optional(ollamaHost()),
    OPENAI_BASE_URL: z.optional(url()),
    OPENAI_API_KEY: z.optional(text()),
    OPENJARVIS_DATABASE_URL: z.optional(databaseUrl()),
  }),
);

/** The checked overrides of `environmentSchema`. */
export type EngineEnvironment = z.output<ReturnType<typeof environmentSchema>>;

/**
 * Applies `OPENJARVIS_ENGINE`, `OPENJARVIS_MODEL`, `OLLAMA_HOST`, `OPENAI_BASE_URL` and `OPENAI_API_KEY` over the
 * engine settings of the file.
 */
export function applyEngineEnvironment(engine: EngineConfig, env: EngineEnvironment): EngineConfig {
  const { OLLAMA_HOST: ollama, OPENAI_BASE_URL: openai } = env;
  return {
    ...engine,
    default: env.OPENJARVIS_ENGINE ?? engine.default,
    model: env.OPENJARVIS_MODEL ?? engine.model,
    hosts: {
      ...engine.hosts,
      ...(ollama === undefined ? {} : { ollama }),
      ...(openai === undefined ? {} : { openai }),
    },
    apiKey: env.OPENAI_API_KEY ?? engine.apiKey,
  };
}

/** Applies `OPENJARVIS_DATABASE_URL` over `[storage] url` (the backend stays as the file chose it). */
export function applyStorageEnvironment(
  storage: StorageConfig,
  env: EngineEnvironment,
): StorageConfig {
  return { ...storage, url: env.OPENJARVIS_DATABASE_URL ?? storage.url };
}

/** The warning of an `OPENJARVIS_ENGINE` that names an engine that is not built in. */
export function environmentWarnings(env: EngineEnvironment): ConfigWarning[] {
  const key = env.OPENJARVIS_ENGINE;
  if (key === undefined || isBuiltinEngine(key)) return [];
  return [
    {
      file: '(environment)',
      line: undefined,
      key: 'OPENJARVIS_ENGINE',
      message: notBuiltinMessage(key),
    },
  ];
}
