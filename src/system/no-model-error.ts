import { JarvisError } from '../core/index.js';

/** Options of `NoModelError`. */
export interface NoModelErrorOptions {
  readonly message: string;
  /** The folder searched for a `.gguf` file (where `jarvis models pull` puts one). */
  readonly modelsDir: string;
}

/**
 * No engine could be used and the embedded engine has no model (code `engine_not_found`): the case the first
 * run of `jarvis ask` answers by offering to download one into `modelsDir`.
 */
export class NoModelError extends JarvisError {
  /** The folder searched for a `.gguf` file. */
  readonly modelsDir: string;

  constructor(options: NoModelErrorOptions) {
    super({ code: 'engine_not_found', message: options.message });
    this.modelsDir = options.modelsDir;
  }

  /** The `NoModelError` in `error` or its causes (also one from another copy of this package), if any. */
  static find(error: unknown): NoModelError | undefined {
    let current: unknown = error;
    for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
      if (
        JarvisError.isInstance(current) &&
        current.name === 'NoModelError' &&
        typeof (current as { modelsDir?: unknown }).modelsDir === 'string'
      )
        return current as NoModelError;
      current = (current as { readonly cause?: unknown }).cause;
    }
    return undefined;
  }
}
