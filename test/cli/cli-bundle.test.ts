import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI, TEST_BUILD } from '../support/cli-build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(TEST_BUILD, 'dist', 'bin');
const run = promisify(execFile);

interface BundleCliScript {
  commonJsChunk(text: string): Promise<string>;
  packedChunks(chunks: ReadonlyMap<string, { static: string[]; dynamic: string[] }>): {
    main: string;
    packed: Set<string>;
  };
}

const script = (): Promise<BundleCliScript> =>
  import(pathToFileURL(join(ROOT, 'scripts', 'bundle-cli.mjs')).href) as Promise<BundleCliScript>;

const jsFiles = (): string[] => readdirSync(BIN).filter((name) => name.endsWith('.js'));

describe('the bundled CLI (scripts/bundle-cli.mjs)', () => {
  it('is CommonJS in strict mode: a package.json of its own says so, and every file compiles as a function body', () => {
    expect(JSON.parse(readFileSync(join(BIN, 'package.json'), 'utf8'))).toEqual({
      type: 'commonjs',
    });
    for (const name of jsFiles()) {
      const text = readFileSync(join(BIN, name), 'utf8').replace(/^#!.*\n/, '');
      expect(text.startsWith('"use strict";'), name).toBe(true);
      // As Node wraps a CommonJS file; import/export statements or import.meta would be syntax errors here.
      expect(
        () => new Function('exports', 'require', 'module', '__filename', '__dirname', text),
        name,
      ).not.toThrow();
    }
  });

  it('every file finds each chunk it requires, and each packed chunk it asks the packed file for', () => {
    const files = new Set(jsFiles());
    const packedFile = /__jarvisModules=\{/;
    const [main] = [...files].filter((name) =>
      packedFile.test(readFileSync(join(BIN, name), 'utf8')),
    );
    expect(main).toBeDefined();
    const packText = readFileSync(join(BIN, main ?? ''), 'utf8');
    const missing: string[] = [];
    for (const name of files) {
      const text = readFileSync(join(BIN, name), 'utf8');
      for (const [, id] of text.matchAll(/__jarvisPacked\("\.\/([^"]+)"\)/g))
        if (!packText.includes(`"./${id}":function(module,exports,require){`))
          missing.push(`${name} -> packed ${id}`);
      for (const [call, id] of text.matchAll(/\brequire\("\.\/([^"]+)"\)/g)) {
        const inPack = packText.includes(`"./${id}":function(module,exports,require){`);
        if (!files.has(id ?? '') && !(name === main && inPack)) missing.push(`${name} -> ${call}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every file loads and runs its top level (lazily loaded chunks and packed ones too)', async () => {
    const loader = `
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const bin = process.argv[1];
let count = 0;
for (const name of readdirSync(bin).filter((n) => n.endsWith('.js') && n !== 'jarvis.js')) {
  const exported = require(join(bin, name));
  count += 1;
  if (typeof exported.__jarvisPacked !== 'function') continue;
  const text = readFileSync(join(bin, name), 'utf8');
  for (const [, id] of text.matchAll(/"(\\.\\/chunk-[A-Z0-9]+\\.js)":function\\(/g)) {
    exported.__jarvisPacked(id);
    count += 1;
  }
}
process.stdout.write(JSON.stringify({ count }));
`;
    const { stdout, stderr } = await run(process.execPath, ['-e', loader, BIN], {
      cwd: TEST_BUILD,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 30_000,
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout).count).toBeGreaterThan(jsFiles().length);
  }, 40_000);

  it('stops quietly (exit 0) when the reader of stdout or stderr went away (EPIPE)', async () => {
    const home = join(TEST_BUILD, 'no-such-home');
    /** Runs the CLI with the pipe of `closed` shut before it writes; resolves to its exit code and the other output. */
    const closedPipe = (args: readonly string[], closed: 'stdout' | 'stderr') =>
      new Promise<{ code: number | null; other: string }>((done, fail) => {
        const child = spawn(process.execPath, [BUILT_CLI, ...args], {
          env: { PATH: process.env.PATH ?? '', HOME: home, OPENJARVIS_HOME: home },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child[closed].destroy();
        let other = '';
        child[closed === 'stdout' ? 'stderr' : 'stdout'].on('data', (chunk: Buffer) => {
          other += chunk.toString();
        });
        child.on('error', fail);
        child.on('close', (code) => done({ code, other }));
      });
    expect(await closedPipe(['tools', 'list'], 'stdout')).toEqual({ code: 0, other: '' });
    // An error message on a closed stderr: the stream is made only then, and still gets the handler.
    const failed = await closedPipe(['tools', 'list', '--config', '/nonexistent.toml'], 'stderr');
    expect(failed.code).toBe(0);
  }, 40_000);

  it('turns a chunk into CommonJS: imports of chunks become require, import.meta.url the file URL', async () => {
    const { commonJsChunk } = await script();
    const cjs = await commonJsChunk(
      'import{a}from"./chunk-AB12.js";export const url=import.meta.url;export async function later(){return(await import("./chunk-CD34.js")).b+a}export function pkg(){return import("some-package")}',
    );
    expect(cjs.startsWith('"use strict";')).toBe(true);
    expect(cjs).toContain('require("./chunk-AB12.js")');
    expect(cjs).toContain('Promise.resolve().then(()=>require("./chunk-CD34.js"))');
    // A package keeps its import(): it loads as it did, its ES module build where it has one.
    expect(cjs).toContain('import("some-package")');
    const module = { exports: {} as Record<string, unknown> };
    const chunks: Record<string, unknown> = {
      './chunk-AB12.js': { a: 1 },
      './chunk-CD34.js': { b: 2 },
    };
    const filename = join(BIN, 'chunk-TEST.js');
    new Function('module', 'exports', 'require', '__filename', cjs)(
      module,
      module.exports,
      (id: string) => chunks[id] ?? (id === 'node:url' ? { pathToFileURL } : undefined),
      filename,
    );
    expect(module.exports.url).toBe(pathToFileURL(filename).href);
    expect(await (module.exports.later as () => Promise<number>)()).toBe(3);
  });

  it("packs the program's chunk with the chunks it imports statically, not those it loads lazily", async () => {
    const { packedChunks } = await script();
    const chunks = new Map([
      ['./jarvis.js', { static: [], dynamic: ['./chunk-P.js'] }],
      ['./chunk-P.js', { static: ['./chunk-A.js', './chunk-B.js'], dynamic: ['./chunk-L.js'] }],
      ['./chunk-A.js', { static: ['./chunk-B.js', './chunk-C.js'], dynamic: [] }],
      ['./chunk-B.js', { static: [], dynamic: [] }],
      ['./chunk-C.js', { static: [], dynamic: [] }],
      ['./chunk-L.js', { static: ['./chunk-B.js', './chunk-D.js'], dynamic: [] }],
      ['./chunk-D.js', { static: [], dynamic: [] }],
    ]);
    const { main, packed } = packedChunks(chunks);
    expect(main).toBe('./chunk-P.js');
    expect([...packed].sort()).toEqual([
      './chunk-A.js',
      './chunk-B.js',
      './chunk-C.js',
      './chunk-P.js',
    ]);
  });
});
