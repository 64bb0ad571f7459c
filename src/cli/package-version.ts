import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** What the CLI reads from its own package.json. */
export interface PackageManifest {
  readonly version: string;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
}

/** The package.json two folders up (beside dist/ as beside src/). */
const MANIFEST = '../../package.json';

/** The package's manifest, read from the package.json two folders up. */
export function packageManifest(): PackageManifest {
  return createRequire(import.meta.url)(MANIFEST) as PackageManifest;
}

/** The package's folder (where its package.json is). */
export function packageRoot(): string {
  return dirname(createRequire(import.meta.url).resolve(MANIFEST));
}

/**
 * The version scripts/bundle-cli.mjs writes into the bundled CLI (an esbuild `define` of this name), so that
 * starting `jarvis` does not load package.json through the CommonJS loader; not defined in tsc's output.
 */
declare const __JARVIS_PACKAGE_VERSION__: string | undefined;

/** The package version, from the package.json two folders up (beside dist/ as beside src/). */
export function packageVersion(): string {
  return typeof __JARVIS_PACKAGE_VERSION__ === 'string'
    ? __JARVIS_PACKAGE_VERSION__
    : packageManifest().version;
}
