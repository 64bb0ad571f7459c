import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WEB_SOURCE = join(ROOT, 'src', 'web');

/** The variable through which the global setup tells test workers where this run's build is. */
const BUILD_VARIABLE = 'OPENJARVIS_TEST_BUILD';

/**
 * Where the CLI end-to-end tests find the built program (`<TEST_BUILD>/dist/bin/jarvis.js`): a folder of this
 * vitest run (`.test-build/run-<pid>`), so test runs going on at the same time never rebuild each other's.
 */
export const TEST_BUILD = process.env[BUILD_VARIABLE] ?? join(ROOT, '.test-build', 'manual');

/** The built `jarvis` entry the end-to-end tests spawn. */
export const BUILT_CLI = join(TEST_BUILD, 'dist', 'bin', 'jarvis.js');

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
 * Builds src/ into .test-build/dist file by file (same module layout as `tsc`'s dist), with esbuild: about a
 * second instead of tsc's fifteen; package.json is copied beside it, the CLI is bundled into dist/bin, the
 * library's entries into dist/lib and the web page into dist/web as `npm run build` does.
 */
export async function buildCliForTests(target: string = TEST_BUILD): Promise<void> {
  await rm(target, { recursive: true, force: true });
  const src = join(ROOT, 'src');
  const files = await sourceFiles(src);
  await Promise.all(
    files.map(async (file) => {
      const output = join(target, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
      const result = await transform(await readFile(file, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'es2022',
        sourcefile: file,
      });
      await mkdir(dirname(output), { recursive: true });
      await writeFile(output, result.code);
    }),
  );
  await copyFile(join(ROOT, 'package.json'), join(target, 'package.json'));
  // The same bundling step as `npm run build`, so the tests run the CLI as it ships.
  const { bundleCli } = (await import(
    pathToFileURL(join(ROOT, 'scripts', 'bundle-cli.mjs')).href
  )) as {
    bundleCli: (dist: string) => Promise<void>;
  };
  await bundleCli(join(target, 'dist'));
  // Then the library's entries into dist/lib, as the package exports them (after the CLI: it reads dist's modules).
  const { bundleLibrary } = (await import(
    pathToFileURL(join(ROOT, 'scripts', 'bundle-lib.mjs')).href
  )) as {
    bundleLibrary: (dist: string) => Promise<void>;
  };
  await bundleLibrary(join(target, 'dist'));
  // And the web page `jarvis serve` serves, as `npm run build` bundles it.
  const { bundleWeb } = (await import(
    pathToFileURL(join(ROOT, 'scripts', 'bundle-web.mjs')).href
  )) as {
    bundleWeb: (dist: string) => Promise<unknown>;
  };
  await bundleWeb(join(target, 'dist'));
}

/** vitest global setup: build once before the suite into this run's folder; the teardown removes it. */
export async function setup(): Promise<() => Promise<void>> {
  const target = join(ROOT, '.test-build', `run-${process.pid}`);
  process.env[BUILD_VARIABLE] = target;
  await buildCliForTests(target);
  return () => rm(target, { recursive: true, force: true });
}
