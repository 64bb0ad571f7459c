// Bundles the built `jarvis` CLI (dist/cli/main.js, from tsc) into dist/bin/: one entry plus lazily loaded
// chunks. Node 20 spends about 1 ms of module-loader work per ES module, and `jarvis tools list` reaches some
// 180 of them; as a few chunks the same code starts about three times faster. Packages stay external, and the
// global registries are shared with the library through a well-known symbol (src/core/registries.ts), so a
// module loaded with --import registers its tools where the CLI looks for them.
// Usage: node scripts/bundle-cli.mjs [distFolder]   (default: dist)
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * The small pure-ESM dependencies bundled rather than loaded from node_modules: commander, zod (zod/mini
 * tree-shakes to ~30 KB where its ~90 modules cost ~150 ms to load), smol-toml (9 modules), croner and
 * eventsource-parser (one each). Each module Node loads costs about a millisecond; none of them keeps state
 * that another copy would have to share.
 */
const BUNDLED_PACKAGES = new Set(['commander', 'zod', 'smol-toml', 'croner', 'eventsource-parser']);

/** Every dependency of package.json but `BUNDLED_PACKAGES`, with its subpaths (`@modelcontextprotocol/sdk/*`). */
export async function externalPackages() {
  const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  const names = Object.keys({
    ...manifest.dependencies,
    ...manifest.peerDependencies,
    ...manifest.devDependencies,
  }).filter((name) => !BUNDLED_PACKAGES.has(name));
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** Bundles `<dist>/cli/main.js` into `<dist>/bin/jarvis.js` and its chunks. */
export async function bundleCli(dist) {
  const outdir = join(dist, 'bin');
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { jarvis: join(dist, 'cli', 'main.js') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Packages stay external, except commander: bundled, `jarvis --help` parses one file instead of seven.
    external: await externalPackages(),
    chunkNames: 'chunk-[hash]',
    // commander is CommonJS: give the bundled copy the `require` it calls (for node: builtins).
    banner: {
      js: "import { createRequire as __jarvisRequire } from 'node:module'; const require = __jarvisRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleCli(resolve(process.argv[2] ?? 'dist'));
}
