import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JarvisError } from '../core/index.js';

/**
 * Imports modules (paths relative to `cwd`, or package names) so they can register tools and agents, in order;
 * one that fails to import is an `invalid_argument` error naming it.
 */
export async function importModules(specifiers: readonly string[], cwd: string): Promise<void> {
  for (const specifier of specifiers) {
    const target =
      specifier.startsWith('.') || isAbsolute(specifier)
        ? pathToFileURL(resolve(cwd, specifier)).href
        : specifier;
    try {
      await import(target);
    } catch (error) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `Could not import '${specifier}': ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  }
}
