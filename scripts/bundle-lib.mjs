// Bundles the library as it ships: the package's entry points (`openjarvis`, `openjarvis/tools`, ...) from the
// per-module build of tsc into <dist>/lib/, one file per entry plus chunks shared between entries (esbuild code
// splitting), so one class is one class whichever entries a program imports. Node 20 spends about 1 ms of
// module-loader work per ES module and the root entry reaches some 450 of them (zod/mini alone is 90); bundled,
// `import('openjarvis')` loads a few files. Packages stay external but for the few small ones the CLI bundle
// bundles too (bundle-cli.mjs's list: zod/mini for the config schemas, smol-toml, croner...), and heavy ones are
// loaded on first use by the modules that need them. Types stay tsc's declarations beside the per-module build.
// Each entry's per-module `index.js` becomes a one-line re-export of its bundle, so code that imports dist/ by
// path (benchmarks, deep imports of tsc's modules) runs the same copy the package exports. Run it after the CLI
// bundle, which is built from the per-module files.
// Usage: node scripts/bundle-lib.mjs [distFolder] [--metafile=<file>]   (default: dist; the metafile is esbuild's
// account of the bytes each module brings to each output file, for finding what the entries cost)
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { externalPackages } from './bundle-cli.mjs';

/** The folder of the bundles inside dist/: one level down, as the code's `../web` and `../../package.json` expect. */
export const LIB_FOLDER = 'lib';

/**
 * The package's entries: export subpath -> folder of src/ whose index is its entry ('' for the root). A
 * subpath exports what its folder's index exports; the root exports what src/index.ts lists.
 */
export const LIBRARY_ENTRIES = {
  '.': '',
  './core': 'core',
  './tools': 'tools',
  './agents': 'agents',
  './engine': 'engine',
  './memory': 'memory',
  './scheduler': 'scheduler',
  './sessions': 'sessions',
  './telemetry': 'telemetry',
  './mcp': 'mcp',
  './system': 'system',
  './sdk': 'sdk',
  './server': 'server',
  './testing': 'testing',
};

/**
 * Modules the library ships as CommonJS files of their own, loaded with a synchronous `require` on the first call
 * of one of their exports instead of being compiled at `import('openjarvis')`: the module (a path inside dist/,
 * as tsc wrote it) -> the file's name in lib/ (without `.cjs`). Such a module and everything it imports must be
 * plain data in, plain data out (functions only, no class of the package created or checked, no state shared with
 * the rest of it), because the file holds its own copy of what it imports; only functions may be exported. Node
 * 20 can `require` a CommonJS file from an ES module but not an ES module (before 20.19), hence CommonJS.
 * - config-check: parsing and checking config text (smol-toml, zod/mini and the config schemas, ~70 KB of the
 *   root import's code), which `configFromToml` needs and nothing else at import does.
 */
export const LAZY_CJS_MODULES = {
  'system/config/config-check.js': 'config-check',
};

/** The bundle's file name of an entry folder (`index` for the root). */
function bundleName(folder) {
  return folder === '' ? 'index' : folder;
}

/** The per-module `index.js` of an entry folder, inside dist. */
function moduleIndex(dist, folder) {
  return join(dist, folder, 'index.js');
}

/** Any character outside ASCII (a UTF-16 code unit: an astral character is two, a surrogate pair). */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The bundle's text with every non-ASCII character written as a `\uXXXX` escape. esbuild escapes them in strings
 * and templates but leaves regular expressions and comments as they are, and one such character makes V8 hold the
 * whole file as a two-byte string, decoded and scanned as UTF-16: two (a `｜` in a regex, a `…` in a comment) cost
 * `import('openjarvis')` 5-15M instructions, 2-5% of it. The escape means the same character in a regex (either
 * mode: an escaped surrogate pair is one code point with the `u` flag; only its `source` text shows the escape),
 * string, template or identifier, and a comment is text; only a tagged template's raw text would change, so those
 * are left alone.
 */
export async function asciiOnly(text, fileName = 'bundle.js') {
  // TypeScript's parser finds the tagged templates; loaded only for a file that needs it.
  const { default: ts } = await import('typescript');
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  const tagged = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node))
      tagged.push([node.template.getStart(source), node.template.end]);
    else ts.forEachChild(node, visit);
  };
  visit(source);
  const escapeText = (part) =>
    part.replace(/(\\*)([\u0080-\uffff])/g, (_, slashes, char) => {
      // `\｜` (an identity escape) means the character itself: the escape replaces the backslash too.
      const before = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
      return `${before}\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    });
  let out = '';
  let from = 0;
  for (const [start, end] of tagged) {
    out += escapeText(text.slice(from, start)) + text.slice(start, end);
    from = end;
  }
  return out + escapeText(text.slice(from));
}

/**
 * An esbuild plugin that hands esbuild every input file written as ASCII (`asciiOnly`), so the bundle comes out
 * ASCII (esbuild escapes what it writes itself) and its source map matches the bundle as written.
 */
const asciiInputs = {
  name: 'ascii-inputs',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!NON_ASCII.test(text)) return undefined;
      return {
        contents: await asciiOnly(text, args.path),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/** `import { a, b as c } from 'node:x';`: a named import of a builtin, as tsc and esbuild write them. */
const BUILTIN_IMPORT = /^import\s*\{([^}]*)\}\s*from\s*(['"])(node:[^'"]+)\2;?/gm;

/**
 * A module's text with its named imports of node: builtins turned into plain lookups of the builtin's exports:
 * `const { a, b: c } = __jarvisBuiltin('node:x')`. An ES import of a builtin makes Node build the builtin's ES
 * module facade, which reads every property of its exports, getters included: node:fs's stream getters load the
 * whole streams stack, so `import 'node:fs'` costs ~29.6M instructions where `require('node:fs')` costs ~1M (the
 * eight builtins of the root import: 34M imported, 4.4M required). The lookup is `process.getBuiltinModule` (Node
 * 20.16 and later), which needs no `createRequire(import.meta.url)` per module: the root import's 37 modules spent
 * ~5M instructions making those require functions (and their import.meta objects); older Node 20 releases get a
 * require function made on first use. The imports sit at the top of tsc's output, so the constants hold their
 * values before the module's code runs, as imported bindings do. node:module stays an import (it gives
 * createRequire and is cheap). The helper's names differ from the CLI bundle's banner (`__jarvisRequire`), so the
 * rewrite can serve both bundles.
 */
export function requireBuiltins(text) {
  let rewritten = 0;
  const out = text.replace(BUILTIN_IMPORT, (line, list, _quote, specifier) => {
    if (specifier === 'node:module') return line;
    const bindings = list
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '' && !part.startsWith('type '))
      .map((part) => {
        const [imported, local = imported] = part.split(/\s+as\s+/);
        return imported === local ? imported : `${imported}: ${local}`;
      });
    rewritten += 1;
    return bindings.length === 0
      ? ''
      : `const { ${bindings.join(', ')} } = __jarvisBuiltin(${JSON.stringify(specifier)});`;
  });
  if (rewritten === 0) return text;
  return [
    "import { createRequire as __jarvisCreateBuiltinRequire } from 'node:module';",
    'const __jarvisBuiltin = (id) => process.getBuiltinModule?.(id) ?? __jarvisCreateBuiltinRequire(import.meta.url)(id);',
    out,
  ].join('\n');
}

/**
 * Builds `module` (one of `LAZY_CJS_MODULES`) with what it imports into `<outdir>/<name>.cjs` and returns the names
 * it exports, each checked to be a function (loaded here as the library will load it). The file may require only
 * node: builtins: a package it needs is bundled into it, so that it loads on every Node 20.
 */
async function buildLazyCjs(dist, outdir, module, name) {
  const result = await build({
    entryPoints: { [name]: join(dist, module) },
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: await externalPackages(),
    // A module that loads a builtin lazily with createRequire(import.meta.url) gets this file's URL.
    define: { 'import.meta.url': '__jarvisFileUrl' },
    banner: { js: "const __jarvisFileUrl = require('node:url').pathToFileURL(__filename).href;" },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [asciiInputs],
    metafile: true,
    logLevel: 'warning',
  });
  const file = join(outdir, `${name}.cjs`);
  const required = Object.entries(result.metafile.outputs).flatMap(([output, { imports }]) =>
    output.endsWith(`${name}.cjs`) ? imports : [],
  );
  const packages = required.filter((entry) => !entry.path.startsWith('node:'));
  if (packages.length > 0)
    throw new Error(
      `${module}: the lazily loaded ${name}.cjs would require ${packages.map((p) => p.path).join(', ')}; bundle them or load the module another way`,
    );
  const exported = createRequire(import.meta.url)(file);
  const names = Object.keys(exported);
  const notFunctions = names.filter((key) => typeof exported[key] !== 'function');
  if (notFunctions.length > 0)
    throw new Error(
      `${module}: a lazily loaded module may export only functions, not ${notFunctions.join(', ')}`,
    );
  return names;
}

/** The stub of a module of `LAZY_CJS_MODULES`: one function per export, each calling the same in `./<name>.cjs`. */
function lazyStub({ name, exports }) {
  return [
    "import { createRequire } from 'node:module';",
    'let loaded;',
    `const load = () => (loaded ??= createRequire(import.meta.url)('./${name}.cjs'));`,
    ...exports.map(
      (exported) => `export function ${exported}(...args) { return load().${exported}(...args); }`,
    ),
  ].join('\n');
}

/**
 * An esbuild plugin for the files of `dist`: a module of `lazy` (absolute path -> { name, exports }) becomes its
 * stub (`lazyStub`), which sits in a file of lib/ beside the .cjs file it loads; every other module gets
 * `requireBuiltins` and `asciiOnly`. Other inputs (bundled packages) are only made ASCII.
 */
function libraryInputs(dist, lazy) {
  const root = `${resolve(dist)}/`;
  return {
    name: 'library-inputs',
    setup(builder) {
      builder.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        const module = lazy.get(args.path);
        const resolveDir = dirname(args.path);
        if (module !== undefined) return { contents: lazyStub(module), loader: 'js', resolveDir };
        const text = await readFile(args.path, 'utf8');
        const own = args.path.startsWith(root) ? requireBuiltins(text) : text;
        if (own === text && !NON_ASCII.test(text)) return undefined;
        const contents = NON_ASCII.test(own) ? await asciiOnly(own, args.path) : own;
        return { contents, loader: 'js', resolveDir };
      });
    },
  };
}

/**
 * Bundles every entry of `LIBRARY_ENTRIES` into `<dist>/lib/` and points the per-module indexes at the bundles;
 * with `metafile`, writes esbuild's metafile (inputs, outputs, bytes per module in each output) there.
 */
export async function bundleLibrary(dist, { metafile } = {}) {
  const outdir = join(dist, LIB_FOLDER);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const lazy = new Map(
    await Promise.all(
      Object.entries(LAZY_CJS_MODULES).map(async ([module, name]) => [
        join(dist, module),
        { name, exports: await buildLazyCjs(dist, outdir, module, name) },
      ]),
    ),
  );
  const folders = Object.values(LIBRARY_ENTRIES);
  const result = await build({
    entryPoints: Object.fromEntries(folders.map((f) => [bundleName(f), moduleIndex(dist, f)])),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: await externalPackages(),
    chunkNames: 'chunk-[hash]',
    // Whitespace and syntax minified: V8 scans every byte of the files an import reaches and pre-parses every
    // function in them, so fewer bytes and tokens are less work at `import('openjarvis')` (about 13M of its
    // ~230M instructions above a bare `node`). Names stay (class and function names are API: errors, registry
    // keys, stack traces), and linked source maps lead a stack trace back to src/ under --enable-source-maps.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [libraryInputs(dist, lazy)],
    // Written below, after every input was read: the per-module indexes are inputs and are then replaced.
    write: false,
    metafile: metafile !== undefined,
    logLevel: 'warning',
  });
  if (metafile !== undefined) await writeFile(metafile, JSON.stringify(result.metafile));
  await Promise.all(
    result.outputFiles.map(async (file) =>
      writeFile(
        file.path,
        // The inputs are ASCII already; this only guards against a character esbuild itself wrote.
        file.path.endsWith('.js') && NON_ASCII.test(file.text)
          ? await asciiOnly(file.text, file.path)
          : file.contents,
      ),
    ),
  );
  await Promise.all(
    folders.map(async (folder) => {
      const index = moduleIndex(dist, folder);
      const target = relative(dirname(index), join(outdir, `${bundleName(folder)}.js`)).split('\\');
      const specifier = target.join('/').startsWith('.')
        ? target.join('/')
        : `./${target.join('/')}`;
      await writeFile(index, `export * from '${specifier}';\n`);
      await rm(`${index}.map`, { force: true });
    }),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const metafile = args.find((arg) => arg.startsWith('--metafile='))?.slice('--metafile='.length);
  const dist = args.find((arg) => !arg.startsWith('--')) ?? 'dist';
  await bundleLibrary(resolve(dist), {
    metafile: metafile === undefined ? undefined : resolve(metafile),
  });
}
