import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_VARIABLE, TEST_BUILD } from './test-build-folder.js';

export { TEST_BUILD };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WEB_SOURCE = join(ROOT, 'src', 'web');

/** The built `jarvis` entry the end-to-end tests spawn. */
export const BUILT_CLI = join(TEST_BUILD, 'dist', 'bin', 'jarvis.js');

/** Written into the run's folder when its build is complete, last; `BUILD_FAILED` holds the error instead. */
const BUILD_DONE = '.build-done';
const BUILD_FAILED = '.build-failed';
/** How long a test file waits for the run's build (it takes seconds; this only ends a hung build's wait). */
const BUILD_WAIT_MS = 600_000;

async function sourceFiles(folder: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    // The web page is bundled for the browser (below), not compiled file by file for Node.
    if (entry.isDirectory() && path !== WEB_SOURCE) files.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path);
  }
  return files;
}

/**
 * Builds src/ into `<target>/dist` file by file (same module layout as `tsc`'s dist), with esbuild: about a
 * second instead of tsc's fifteen; package.json is copied beside it, the CLI is bundled into dist/bin, the
 * library's entries into dist/lib and the web page into dist/web as `npm run build` does. Only dist/ and
 * package.json are replaced: tests keep other run-scoped files in `target` (bundled scripts, a Pyodide snapshot).
 */
export async function buildCliForTests(target: string = TEST_BUILD): Promise<void> {
  const dist = join(target, 'dist');
  await rm(dist, { recursive: true, force: true });
  const src = join(ROOT, 'src');
  // One build of every module (no bundling) writes what a transform per file would, in one request to esbuild.
  const { build } = await import('esbuild');
  await build({
    entryPoints: await sourceFiles(src),
    outdir: dist,
    outbase: src,
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  await copyFile(join(ROOT, 'package.json'), join(target, 'package.json'));
  // The same bundling step as `npm run build`, so the tests run the CLI as it ships.
  const { bundleCli } = (await import(
    pathToFileURL(join(ROOT, 'scripts', 'bundle-cli.mjs')).href
  )) as {
    bundleCli: (dist: string) => Promise<void>;
  };
  await bundleCli(dist);
  // Then the library's entries into dist/lib, as the package exports them (after the CLI: it reads dist's modules).
  const { bundleLibrary } = (await import(
    pathToFileURL(join(ROOT, 'scripts', 'bundle-lib.mjs')).href
  )) as {
    bundleLibrary: (dist: string) => Promise<void>;
  };
  await bundleLibrary(dist);
  // And the web page `jarvis serve` serves, as `npm run build` bundles it.
  const { bundleWeb } = (await import(
    pathToFileURL(join(ROOT, 'scripts', 'bundle-web.mjs')).href
  )) as {
    bundleWeb: (dist: string) => Promise<unknown>;
  };
  await bundleWeb(dist);
}

/** Marks the run's build as done, or as failed with the error's text (written whole before it appears). */
async function markBuild(target: string, error: unknown): Promise<void> {
  if (error === undefined) {
    await writeFile(join(target, BUILD_DONE), '');
    return;
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await writeFile(join(target, `${BUILD_FAILED}.tmp`), text);
  await rename(join(target, `${BUILD_FAILED}.tmp`), join(target, BUILD_FAILED));
}

/**
 * vitest global setup: starts the build of this run's folder and returns at once, so the files that do not need
 * the build (most of them, and the slow first ones) run meanwhile; a file that imports this module waits for the
 * build first (below). The teardown waits for the build, fails the run if the build failed, and removes the folder.
 */
export async function setup(): Promise<() => Promise<void>> {
  const target = join(ROOT, '.test-build', `run-${process.pid}`);
  process.env[BUILD_VARIABLE] = target;
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  const built = buildCliForTests(target).then(
    () => markBuild(target, undefined),
    async (error: unknown) => {
      await markBuild(target, error);
      throw error;
    },
  );
  // Reported by the teardown (and by every file waiting for the build); not an unhandled rejection meanwhile.
  built.catch(() => undefined);
  return async () => {
    try {
      await built;
    } catch (error) {
      // A run whose files did not need the build still fails, as it did when the setup awaited the build.
      process.exitCode = 1;
      throw error;
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  };
}

/** Resolves when the global setup's build of `target` is done; throws its error when it failed. */
async function waitForBuild(target: string): Promise<void> {
  const deadline = Date.now() + BUILD_WAIT_MS;
  while (!existsSync(join(target, BUILD_DONE))) {
    if (existsSync(join(target, BUILD_FAILED)))
      throw new Error(
        `The test build in ${target} failed:\n${readFileSync(join(target, BUILD_FAILED), 'utf8')}`,
      );
    if (Date.now() > deadline)
      throw new Error(`The test build in ${target} was not done after ${BUILD_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// In a test worker of a run (both variables set), the files that import this module use the build: they wait
// until it is complete. vitest's own process, which runs the build, never waits here.
if (process.env.VITEST_WORKER_ID !== undefined && process.env[BUILD_VARIABLE] !== undefined)
  await waitForBuild(TEST_BUILD);
