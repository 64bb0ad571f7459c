import type { PulledModel, PullModelOptions } from './pull-model.js';

/**
 * Downloads a GGUF model into `modelsDir` with node-llama-cpp's downloader (resumable), verifies its size and
 * SHA-256, and only then renames it into place; concurrent pulls of one model in this process share one download.
 */
export async function pullModel(options: PullModelOptions): Promise<PulledModel> {
  // The downloader, its hashing and locking (some 40 KB) load on the first pull: importing the package, which
  // exports this function, should not compile them.
  const { pullModel: pull } = await import('./pull-model.js');
  return pull(options);
}
