import { createRequire } from 'node:module';

let cryptoModule: typeof import('node:crypto') | undefined;

/**
 * `node:crypto`, loaded on its first use: loading it (and the stream modules it needs) costs some 50M
 * instructions, more than the rest of importing `openjarvis/server`, and only a request needs it.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  cryptoModule ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return cryptoModule;
}
