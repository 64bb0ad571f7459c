import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { build } from 'esbuild';
import { TEST_BUILD } from './test-build-folder.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bundles = new Map<string, Promise<string[]>>();

/** A file name for `entry` (its path in the repository, `/` as `_`) without the TypeScript extension. */
const bundleName = (entry: string): string =>
  relative(ROOT, entry)
    .replace(/\.[cm]?ts$/, '')
    .replaceAll('/', '_');

/**
 * `entries`, TypeScript programs the tests start as child processes (a worker they kill, a fixture server, an
 * example), bundled with esbuild into ES modules in this run's test build folder (removed by the global
 * teardown), once per thread, in one build whose shared code goes into common chunks: run each with
 * `node <path> ...args`. Packages stay imports, found in the repository's node_modules. A start under
 * `node --import tsx` costs about 0.9 s of CPU for a small program and 2.8 s for one importing the package root
 * (tsx's loader thread, a transform and a load per module), a start of the bundle 0.2-0.5 s; the program is the
 * same code, compiled by the same esbuild.
 */
export function bundledScripts(entries: readonly string[]): Promise<string[]> {
  const key = entries.join('\n');
  let bundle = bundles.get(key);
  if (bundle === undefined) {
    const outdir = join(
      TEST_BUILD,
      'scripts',
      `${bundleName(entries[0] ?? 'none')}-${process.pid}-${threadId}`,
    );
    bundle = build({
      entryPoints: entries.map((entry) => ({ in: entry, out: bundleName(entry) })),
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: entries.length > 1,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'es2022',
      logLevel: 'silent',
    }).then(() => entries.map((entry) => join(outdir, `${bundleName(entry)}.mjs`)));
    bundles.set(key, bundle);
  }
  return bundle;
}

/** `bundledScripts` for one program: the path of its bundle. */
export async function bundledScript(entry: string): Promise<string> {
  const [script] = await bundledScripts([entry]);
  return script ?? '';
}
