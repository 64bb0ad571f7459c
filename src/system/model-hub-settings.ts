import type { JarvisConfig } from './config/index.js';
import { useEmbeddedRuntimeIn } from './embedded-runtime-location.js';
import { defaultModelsDir } from './engine-settings.js';

/** Where `jarvis models pull` downloads from and to: the hub (`HF_ENDPOINT`, `HF_TOKEN`) and the models folder. */
export interface ModelHubSettings {
  /** The folder pulled GGUF files land in (config `[engine.embedded] models_dir`, default `<home>/models`). */
  readonly modelsDir: string;
  /** The Hugging Face endpoint or mirror (`HF_ENDPOINT`); undefined means the hub itself. */
  readonly endpoint?: string;
  /** The Hugging Face token for gated models (`HF_TOKEN`). */
  readonly token?: string;
  /** The OpenJarvis home, whose `runtime` folder holds node-llama-cpp when it is not beside openjarvis. */
  readonly home?: string;
}

/**
 * The model hub settings of this config and environment (only the `env` given is read, never the process's); the
 * config's runtime folder is where node-llama-cpp (the downloader) is looked for.
 */
export function modelHubSettings(
  config: Pick<JarvisConfig, 'engine' | 'home'> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ModelHubSettings {
  if (config !== undefined) useEmbeddedRuntimeIn(config.home);
  const endpoint = env.HF_ENDPOINT?.trim();
  const token = env.HF_TOKEN?.trim();
  return {
    modelsDir: config?.engine.modelsDir ?? defaultModelsDir(),
    ...(config === undefined ? {} : { home: config.home }),
    ...(endpoint ? { endpoint } : {}),
    ...(token ? { token } : {}),
  };
}
