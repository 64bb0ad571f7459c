// Bundles the built `jarvis` CLI (dist/cli/main.js, from tsc) into dist/bin/: one entry plus lazily loaded
// chunks. Node 20 spends about 1 ms of module-loader work per ES module, and `jarvis tools list` reaches some
// 180 of them; as a few chunks the same code starts about three times faster. A command loads only the chunks
// of the modules it reaches: imports of a folder's index are bundled as imports of the modules behind them
// (directBarrelImports), so `jarvis tools list` loads no engine, agent or store. Packages stay external, and the
// global registries are shared with the library through a well-known symbol (src/core/registries.ts), so a
// module loaded with --import registers its tools where the CLI looks for them. esbuild splits only ES modules;
// the chunks are then rewritten as CommonJS (commonJsChunk), which Node 20 starts and loads with less work.
// Usage: node scripts/bundle-cli.mjs [distFolder]   (default: dist)
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';

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

/** `import {…} from './x.js'` (or `export {…} from`), on one line (tsc) or several (esbuild's transform). */
const NAMED_FROM = /^(import|export)\s*\{([^}]*)\}\s*from\s*(['"])(\.{1,2}\/[^'"]+)\3;?/gm;

/** `export { a, b as c };`: an export list without `from` (how esbuild's transform writes re-exports). */
const EXPORT_LIST = /^export\s*\{([^}]*)\}\s*;/gm;

/**
 * Barrels imported as they are: core is small and every command needs most of it, so one chunk of it beats the
 * dozen that direct imports split it into.
 */
const KEPT_BARRELS = ['core'];

/** `a as b` -> ['a', 'b']; `a` -> ['a', 'a']. */
function specifierNames(specifier) {
  const [imported, local = imported] = specifier.trim().split(/\s+as\s+/);
  return [imported, local];
}

/** The names of a `{…}` list, without type-only ones and the empty entry of a trailing comma. */
function specifiersOf(list) {
  return list.split(',').filter((part) => part.trim() !== '' && !/^\s*type\s/.test(part));
}

/**
 * The names a module passes on from other modules (`export {…} from`, or an import it exports again):
 * exported name -> the module and its name there.
 * @returns {Map<string, { file: string, name: string }>}
 */
function reexportsOf(path, cache) {
  let found = cache.get(path);
  if (found !== undefined) return found;
  found = new Map();
  const imported = new Map();
  const text = readFileSync(path, 'utf8');
  for (const [, keyword, list, , specifier] of text.matchAll(NAMED_FROM)) {
    const file = resolve(dirname(path), specifier);
    for (const [name, alias] of specifiersOf(list).map(specifierNames)) {
      (keyword === 'export' ? found : imported).set(alias, { file, name });
    }
  }
  for (const [, list] of text.matchAll(EXPORT_LIST)) {
    for (const [local, exported] of specifiersOf(list).map(specifierNames)) {
      const binding = imported.get(local);
      if (binding !== undefined) found.set(exported, binding);
    }
  }
  cache.set(path, found);
  return found;
}

/** The module that defines what `file` exports as `name` (following re-exports), or undefined if it is not re-exported. */
function definitionOf(file, name, cache) {
  let binding = reexportsOf(file, cache).get(name);
  if (binding === undefined) return undefined;
  for (let hops = 0; hops < 20; hops += 1) {
    const next = reexportsOf(binding.file, cache).get(binding.name);
    if (next === undefined) return binding;
    binding = next;
  }
  return undefined;
}

/** A relative import specifier from `fromDir` to `file`. */
function relativeSpecifier(fromDir, file) {
  const path = relative(fromDir, file).split('\\').join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/** One `import {…} from '<barrel>'` line as imports of the defining modules; the line itself when a name is unknown. */
function directLine(line, keyword, specifiers, barrelPath, fromDir, cache) {
  const byFile = new Map();
  for (const specifier of specifiersOf(specifiers)) {
    const [imported, local] = specifierNames(specifier);
    const binding = definitionOf(barrelPath, imported, cache);
    if (binding === undefined) return line;
    const names = byFile.get(binding.file) ?? [];
    names.push(binding.name === local ? local : `${binding.name} as ${local}`);
    byFile.set(binding.file, names);
  }
  return [...byFile]
    .map(
      ([file, names]) =>
        `${keyword} { ${names.join(', ')} } from '${relativeSpecifier(fromDir, file)}';`,
    )
    .join('\n');
}

/**
 * An esbuild plugin: a static import of a folder's `index.js` (a barrel re-exporting the folder's modules)
 * becomes imports of the modules that define the imported names. esbuild splits code by file: a file reached by
 * a static import, even of a name nobody uses, lands in the chunk every command importing the barrel loads, so
 * through the barrels `jarvis tools list` loaded every engine, agent and store. Imports stay as they are in the
 * sources (cross-folder imports go through the folder's index); dynamic `import()`s of a barrel are unchanged.
 */
export function directBarrelImports(dist) {
  const root = resolve(dist);
  return {
    name: 'direct-barrel-imports',
    setup(build) {
      const cache = new Map();
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(`${root}/`)) return undefined;
        const text = await readFile(args.path, 'utf8');
        const fromDir = dirname(args.path);
        const contents = text.replace(NAMED_FROM, (line, keyword, list, _quote, specifier) => {
          const barrel = resolve(fromDir, specifier);
          if (basename(barrel) !== 'index.js') return line;
          if (KEPT_BARRELS.some((folder) => barrel === join(root, folder, 'index.js'))) return line;
          return directLine(line, keyword, list, barrel, fromDir, cache);
        });
        return { contents, loader: 'js', resolveDir: fromDir };
      });
    },
  };
}

/**
 * An esbuild plugin: the bundled commander requires `node:child_process` when its module loads (Node loads it
 * in several ms) though it spawns only for executable subcommands, which `jarvis` has none of; it is required
 * on the first spawn instead. Fails the build should commander's source change shape.
 */
export function lazyCommanderChildProcess() {
  const eager = "const childProcess = require('node:child_process');";
  const lazy =
    "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
  return {
    name: 'lazy-commander-child-process',
    setup(build) {
      build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const uses = text.match(/childProcess\.\w+/g) ?? [];
        if (!text.includes(eager) || uses.some((use) => use !== 'childProcess.spawn'))
          throw new Error(
            `${args.path}: commander's use of node:child_process changed; update bundle-cli.mjs`,
          );
        return { contents: text.replace(eager, lazy), loader: 'js' };
      });
    },
  };
}

/**
 * The version of the package.json the bundled CLI would read at run time (`../../package.json` from
 * `<dist>/bin`), written into the bundle as `__JARVIS_PACKAGE_VERSION__` (src/cli/package-version.ts): every
 * command prints or registers the version, and reading package.json through the CommonJS loader costs more than
 * the rest of `jarvis --version`. Without that file the CLI reads it at run time, as tsc's output does.
 */
export function versionDefine(dist) {
  const manifest = join(dist, '..', 'package.json');
  if (!existsSync(manifest)) return {};
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  return typeof version === 'string' ? { __JARVIS_PACKAGE_VERSION__: JSON.stringify(version) } : {};
}

/** A dynamic import of one of the bundle's own chunks, as esbuild writes it. */
const CHUNK_IMPORT = /\bimport\("(\.\/chunk-[A-Z0-9]+\.js)"\)/g;

/**
 * One ES module chunk of the bundle as CommonJS. Node 20 starts an ES module entry some 14M instructions
 * (about 15% of `node -e 0`) dearer than a CommonJS one, loading its ES module loader, and then resolves, reads
 * and links each ES module through it; `jarvis --help` and `--version` then never start that loader, and every
 * other command loads its chunks through the cheaper CommonJS loader. The chunks' imports of each other become
 * `require` (a dynamic one a promise of it, as `import()` was), `import.meta.url` the file's own URL, and the
 * code stays in strict mode as it was in an ES module. Imports of packages and of computed specifiers stay
 * `import()`, so packages load as they did.
 */
export async function commonJsChunk(text) {
  const shebang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : '';
  const body = text
    .slice(shebang.length)
    .replace(CHUNK_IMPORT, (_match, path) => `Promise.resolve().then(()=>require("${path}"))`);
  const usesMeta = /\bimport\.meta\b/.test(body);
  const { code } = await transform(body, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    define: usesMeta ? { 'import.meta.url': '__jarvisMetaUrl' } : {},
    logLevel: 'error',
  });
  if (/\bimport\.meta\b|\bimport\("\.\//.test(code))
    throw new Error('bundle-cli: a chunk kept import.meta or an import() of a chunk');
  const meta = usesMeta
    ? 'var __jarvisMetaUrl=require("node:url").pathToFileURL(__filename).href;'
    : '';
  return `${shebang}"use strict";${meta}${code}`;
}

/** A `require` of one of the bundle's own chunks in CommonJS output (what static and dynamic imports became). */
const CHUNK_REQUIRE = /\brequire\("(\.\/chunk-[A-Z0-9]+\.js)"\)/g;

/**
 * The chunks packed into one file: the chunk the entry loads for every command but `--version` (the program,
 * commander and the few modules they import) and every chunk it imports statically, all of which load with it
 * anyway. As separate files each cost a file lookup, read and compile of its own. `chunks` maps `./chunk-X.js` to
 * its static and dynamic imports (from esbuild's metafile).
 */
export function packedChunks(chunks) {
  const loaded = chunks.get('./jarvis.js')?.dynamic ?? [];
  if (loaded.length !== 1)
    throw new Error(
      `bundle-cli: the entry loads ${loaded.length} chunks, expected the program alone`,
    );
  const packed = new Set(loaded);
  const pending = [...loaded];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    for (const next of chunks.get(id)?.static ?? []) {
      if (!packed.has(next)) pending.push(next);
      packed.add(next);
    }
  }
  return { main: loaded[0], packed };
}

/** Each output file of the metafile as `./name.js` with the chunks it imports statically and dynamically. */
function chunkGraph(metafile) {
  const idOf = (path) => `./${basename(path)}`;
  const chunks = new Map();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (!path.endsWith('.js')) continue;
    const own = output.imports.filter((entry) => !entry.external);
    chunks.set(idOf(path), {
      static: own.filter((entry) => entry.kind === 'import-statement').map((e) => idOf(e.path)),
      dynamic: own.filter((entry) => entry.kind === 'dynamic-import').map((e) => idOf(e.path)),
    });
  }
  return chunks;
}

/**
 * The text of the packed file: each packed chunk (CommonJS) as a function that runs on its first `require`, as
 * Node runs a file (each once, cached by id); the file exports the main chunk's exports and, as `__jarvisPacked`, that `require` for the
 * other files' imports of packed chunks.
 */
function packText(main, packed, texts) {
  const modules = [...packed].map(
    (id) =>
      `${JSON.stringify(id)}:function(module,exports,require){${texts.get(id).replace(/^"use strict";/, '')}\n}`,
  );
  return [
    '"use strict";',
    `var __jarvisModules={${modules.join(',')}};`,
    'var __jarvisLoaded={};',
    'function __jarvisRequire(id){var module=__jarvisLoaded[id];if(module!==void 0)return module.exports;',
    'var run=__jarvisModules[id];if(run===void 0)return require(id);',
    'module={exports:{}};__jarvisLoaded[id]=module;',
    // As Node's loader forgets a file whose top level threw, so that the next require runs it again.
    'try{run(module,module.exports,__jarvisRequire)}catch(error){delete __jarvisLoaded[id];throw error}',
    'return module.exports}',
    `module.exports=__jarvisRequire(${JSON.stringify(main)});`,
    'Object.defineProperty(module.exports,"__jarvisPacked",{value:__jarvisRequire});',
  ].join('');
}

/**
 * Writes esbuild's output files (not written by esbuild itself) into `outdir` as CommonJS (see commonJsChunk),
 * the program's chunks packed into one file (see packedChunks), and marks the folder's `.js` files as CommonJS
 * with a package.json of its own (the package's says "module").
 */
async function writeCommonJs(outdir, outputFiles, metafile) {
  const chunks = chunkGraph(metafile);
  const { main, packed } = packedChunks(chunks);
  const texts = new Map();
  for (const file of outputFiles)
    if (file.path.endsWith('.js'))
      texts.set(`./${basename(file.path)}`, await commonJsChunk(file.text));
  const external = (id) => `require(${JSON.stringify(main)}).__jarvisPacked(${JSON.stringify(id)})`;
  await mkdir(outdir, { recursive: true });
  for (const [id, text] of texts) {
    if (packed.has(id)) continue;
    const rewritten = text.replace(CHUNK_REQUIRE, (call, target) =>
      packed.has(target) && target !== main ? external(target) : call,
    );
    await writeFile(join(outdir, id), rewritten);
  }
  await writeFile(join(outdir, main), packText(main, packed, texts));
  await writeFile(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
}

/** Bundles `<dist>/cli/main.js` into `<dist>/bin/jarvis.js` and its chunks (CommonJS, see commonJsChunk). */
export async function bundleCli(dist) {
  const outdir = join(dist, 'bin');
  await rm(outdir, { recursive: true, force: true });
  const { metafile, outputFiles } = await build({
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
    // Node parses every byte it loads: without comments and whitespace, commander (half of `jarvis --help`'s
    // code) and the rest load in about half the bytes. Names stay (no identifier minification: measured, it made
    // `jarvis --help` dearer).
    minifyWhitespace: true,
    minifySyntax: true,
    define: versionDefine(dist),
    plugins: [directBarrelImports(dist), lazyCommanderChildProcess()],
    metafile: true,
    // Written once, as CommonJS, by writeCommonJs.
    write: false,
    logLevel: 'warning',
  });
  await writeCommonJs(outdir, outputFiles, metafile);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleCli(resolve(process.argv[2] ?? 'dist'));
}
