import { createRequire } from 'node:module';

/** The package version, from the package.json two folders up (beside dist/ as beside src/). */
export function packageVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}
