import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TEST_BUILD } from './support/cli-build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

interface ExportTarget {
  readonly types: string;
  readonly default: string;
}

/** The package's "exports" as built (the global setup copies package.json beside the test build's dist/). */
const manifest = JSON.parse(readFileSync(join(TEST_BUILD, 'package.json'), 'utf8')) as {
  readonly name: string;
  readonly main: string;
  readonly exports: Readonly<Record<string, ExportTarget | string>>;
};
const ENTRIES = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
  typeof target === 'string' ? [] : [{ subpath, target }],
);

/** The value (not type) names a barrel exports: every `export { ... } from` block but `type` ones. */
function exportedValueNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const names = [...text.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)].flatMap((match) =>
    match[1] !== undefined
      ? []
      : (match[2] ?? '')
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '' && !part.startsWith('type '))
          .map((part) => part.split(/\s+as\s+/).pop() ?? part),
  );
  return names.sort();
}

/** The source barrel of an export subpath: `.` is src/index.ts, `./tools` is src/tools/index.ts. */
function sourceBarrel(subpath: string): string {
  return subpath === '.' ? join(ROOT, 'src', 'index.ts') : join(ROOT, 'src', subpath, 'index.ts');
}

// Imports one entry by its package specifier in a fresh process and prints, after everything else it may have
// printed, the entry's export names and the handles the process holds beyond the ones it held before the import
// (a timer, a socket, a worker left behind would keep a short script alive).
const PROBE = `
const before = process.getActiveResourcesInfo();
const entry = await import(process.argv[1]);
await new Promise((done) => setImmediate(done));
const left = [...process.getActiveResourcesInfo()];
for (const name of before) left.splice(left.indexOf(name), left.includes(name) ? 1 : 0);
process.stdout.write(JSON.stringify({ names: Object.keys(entry).sort(), left }));
`;

async function importInFreshProcess(specifier: string) {
  // The package resolves itself by name from inside its folder, through "exports" as a user's import would.
  return run(process.execPath, ['--input-type=module', '-e', PROBE, specifier], {
    cwd: TEST_BUILD,
    env: { PATH: process.env.PATH ?? '' },
    timeout: 30_000,
  });
}

describe('the built package entry points', () => {
  it('exports the root and one subpath per subsystem, each typed by the declarations tsc wrote', () => {
    expect(ENTRIES.map((e) => e.subpath)).toEqual(
      expect.arrayContaining(['.', './tools', './agents', './engine', './testing', './server']),
    );
    expect(manifest.main).toBe((manifest.exports['.'] as ExportTarget).default);
    for (const { subpath, target } of ENTRIES) {
      expect(existsSync(join(TEST_BUILD, target.default)), target.default).toBe(true);
      expect(target.types).toBe(
        subpath === '.' ? './dist/index.d.ts' : `./dist${subpath.slice(1)}/index.d.ts`,
      );
      expect(existsSync(sourceBarrel(subpath)), subpath).toBe(true);
    }
  });

  it('every file of the bundle finds each file it imports (no missing chunk)', () => {
    const folder = join(TEST_BUILD, 'dist', 'lib');
    const files = readdirSync(folder).filter((name) => /\.c?js$/.test(name));
    expect(files.length).toBeGreaterThan(ENTRIES.length);
    const missing: string[] = [];
    for (const name of files) {
      const text = readFileSync(join(folder, name), 'utf8');
      // ES imports, and the `createRequire(import.meta.url)('./x.cjs')` of a lazily loaded CommonJS file.
      const references =
        /(?:from\s*|import\s*\(?\s*|\(import\.meta\.url\)\s*\(\s*)["'](\.[^"']+)["']/g;
      for (const match of text.matchAll(references)) {
        const target = match[1] ?? '';
        if (!existsSync(join(folder, target))) missing.push(`${name} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every file of the bundle is ASCII (V8 holds a file with one other character as a two-byte string)', () => {
    const folder = join(TEST_BUILD, 'dist', 'lib');
    const notAscii = readdirSync(folder)
      .filter((name) => /\.c?js$/.test(name))
      .filter((name) => /[\u0080-\uffff]/.test(readFileSync(join(folder, name), 'utf8')));
    expect(notAscii).toEqual([]);
  });

  it("the bundle's escapes of non-ASCII characters mean what the characters meant", async () => {
    const { asciiOnly } = (await import(
      pathToFileURL(join(ROOT, 'scripts', 'bundle-lib.mjs')).href
    )) as { asciiOnly: (text: string) => Promise<string> };
    // Regexes (with and without the u flag, an identity escape, an astral character), strings, templates, a
    // comment; a tagged template keeps its raw text as it is.
    const code = [
      '// a comment \u2026 with \uff5c',
      'const r1 = /<(?:\uff5cDSML\uff5c)?x/; const r2 = /[\u{1f600}\u00e9]/u; const r3 = /\\\uff5ca/;',
      'const t = String.raw`raw \u2026 \u00e9`; const u = `plain \u00e9`;',
      "export default [r1.test('<\uff5cDSML\uff5cx'), r1.test('<x'), r2.test('\u{1f600}'), r2.test('\u00e9'),",
      "  r2.test('\\ud83d'), r3.test('\uff5ca'), r3.source.length, t, u];",
    ].join('\n');
    const escaped = await asciiOnly(code);
    const load = async (text: string) =>
      ((await import(`data:text/javascript,${encodeURIComponent(text)}`)) as { default: unknown })
        .default;
    expect(escaped.replace(/String\.raw`[^`]*`/, '')).not.toMatch(/[\u0080-\uffff]/);
    expect(escaped).toContain('String.raw`raw \u2026 \u00e9`');
    // The same values either way, but for r3's source, which now spells the escape out.
    const values = (r3SourceLength: number) => [
      true,
      true,
      true,
      true,
      false,
      true,
      r3SourceLength,
      'raw \u2026 \u00e9',
      'plain \u00e9',
    ];
    expect(await load(escaped)).toEqual(values(7));
    expect(await load(code)).toEqual(values(3));
  });

  it('imports each entry in a fresh process: no output, no handle left, the exit comes by itself', async () => {
    const probe = async (subpath: string) => {
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
      const { stdout, stderr } = await importInFreshProcess(specifier);
      return { subpath, stderr, ...(JSON.parse(stdout) as { names: string[]; left: string[] }) };
    };
    // Two processes at a time: on a busy machine, fourteen at once only wait for each other.
    const results: Awaited<ReturnType<typeof probe>>[] = [];
    const queue = ENTRIES.map((e) => e.subpath);
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift())
        results.push(await probe(next));
    };
    await Promise.all([worker(), worker()]);
    expect(results.map((r) => r.subpath).sort()).toEqual(ENTRIES.map((e) => e.subpath).sort());
    for (const result of results) {
      // JSON.parse of the whole stdout proves nothing else was printed.
      expect({ subpath: result.subpath, stderr: result.stderr, left: result.left }).toEqual({
        subpath: result.subpath,
        stderr: '',
        left: [],
      });
      // The public API is unchanged: each entry exports exactly what its source barrel lists.
      expect(result.names, result.subpath).toEqual(
        exportedValueNames(sourceBarrel(result.subpath)),
      );
    }
  }, 90_000);

  it('leaves heavy parts out of the root import and loads each when first used, from the built package', async () => {
    // process.moduleLoadList names the node builtins loaded; require.cache the CommonJS packages. The bundle
    // requires node:fs rather than importing it: Node's ES module facade of node:fs would read its stream getters
    // and load node:stream.
    const script = `
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
const packages = () => Object.keys(cache).filter((file) => file.includes('/node_modules/croner/')).length;
const lazyFiles = () => Object.keys(cache).filter((file) => file.includes('/dist/lib/')).map((file) => file.split('/').pop());
const builtins = () => process.moduleLoadList.filter((name) => / (dns\\/promises|https?|tls|net|crypto|worker_threads|timers\\/promises|child_process|zlib|stream|internal\\/fs\\/streams)$/.test(name));
const root = await import('openjarvis');
const atImport = { builtins: builtins(), croner: packages(), lazyFiles: lazyFiles() };
// The server's entry needs node:crypto only for a request (and loading it costs more than the entry itself).
await import('openjarvis/server');
const atServerImport = builtins();
const calc = await new root.CalculatorTool().execute({ expression: '2**10 + sqrt(16)' });
const { parseSchedule } = await import('openjarvis/scheduler');
const schedule = parseSchedule({ scheduleType: 'cron', scheduleValue: '*/5 * * * *' });
const context = { home: '/h', cwd: '/c', homeDir: '/u', env: {} };
const toml = root.configFromToml('[agent]\\nmax_turns = 7\\nfoo = 1\\n', '/h/config.toml', context);
const thrown = (text) => { try { root.configFromToml(text, '/h/config.toml', context); } catch (error) { return error; } };
const invalid = thrown('[agent]\\nmax_turns = 0\\n');
const syntax = thrown('[agent\\n');
const config = {
  maxTurns: toml.config.agent.maxTurns,
  warnings: toml.warnings.map((w) => w.key),
  invalid: [invalid instanceof root.ConfigError, invalid instanceof root.JarvisError, invalid.problems.map((p) => p.key)],
  syntax: [syntax instanceof root.JarvisError, syntax.code, syntax.cause.name, syntax.cause.line],
};
process.stdout.write(JSON.stringify({ atImport, atServerImport, calc: calc.content, cron: schedule.type, croner: packages() > 0, config, lazyFiles: lazyFiles() }));
`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: TEST_BUILD,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({
      atImport: { builtins: [], croner: 0, lazyFiles: [] },
      atServerImport: [],
      // The calculator's evaluator is a chunk of its own, found and loaded on the first call.
      calc: '1028.0',
      cron: 'cron',
      croner: true,
      // configFromToml stays synchronous: its first call requires the CommonJS file of the TOML parser and the
      // schemas, and what it throws are the root's own error classes.
      config: {
        maxTurns: 7,
        warnings: ['agent.foo'],
        invalid: [true, true, ['agent.max_turns']],
        syntax: [true, 'config_invalid', 'TomlError', 1],
      },
      lazyFiles: ['config-check.cjs'],
    });
  }, 30_000);

  it('loadConfig reads a config file from the built package, its checker required on first use', async () => {
    // Nothing of lib/ is required at import; the config's first check requires the CommonJS file of the checker.
    const home = await mkdtemp(join(tmpdir(), 'jarvis-load-config-'));
    await writeFile(join(home, 'config.toml'), '[agent]\nmax_turns = 7\nfoo = 1\n');
    const script = `
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
const lazyFiles = () => Object.keys(cache).filter((file) => file.includes('/dist/lib/')).map((file) => file.split('/').pop());
const root = await import('openjarvis');
const atImport = lazyFiles();
const loaded = await root.loadConfig();
process.stdout.write(JSON.stringify({ atImport, maxTurns: loaded.config.agent.maxTurns, warnings: loaded.warnings.map((w) => w.key), lazyFiles: lazyFiles() }));
`;
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--input-type=module', '-e', script],
        {
          cwd: TEST_BUILD,
          env: { PATH: process.env.PATH ?? '', OPENJARVIS_HOME: home },
          timeout: 20_000,
        },
      );
      expect(stderr).toBe('');
      expect(JSON.parse(stdout)).toEqual({
        atImport: [],
        maxTurns: 7,
        warnings: ['agent.foo'],
        lazyFiles: ['config-check.cjs'],
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 30_000);

  it('every file of the bundle links and runs its top level (lazily loaded chunks too), with nothing left behind', async () => {
    // A lazily loaded chunk is linked only when first used: a name missing from a chunk it imports would show up
    // there, not at import('openjarvis').
    const script = `
import { readdirSync } from 'node:fs';
const folder = new URL('./dist/lib/', 'file://' + process.cwd() + '/');
const files = readdirSync(folder).filter((name) => name.endsWith('.js'));
for (const name of files) await import(new URL(name, folder).href);
await new Promise((done) => setImmediate(done));
process.stdout.write(JSON.stringify({ files: files.length }));
`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: TEST_BUILD,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout).files).toBeGreaterThan(ENTRIES.length);
  }, 30_000);

  it("a lazily loaded chunk's errors are the root's classes (pullModel's chunk, loaded on the first call)", async () => {
    const script = `
const root = await import('openjarvis');
const error = await root.pullModel({ model: 'no-such-model', modelsDir: '/nonexistent' }).then(() => undefined, (e) => e);
process.stdout.write(JSON.stringify([error instanceof root.ModelPullError, error instanceof root.JarvisError]));
`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: TEST_BUILD,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual([true, true]);
  }, 30_000);

  it('finds the node builtins on a Node 20 without process.getBuiltinModule (before 20.16) too', async () => {
    // The bundle looks builtins up with process.getBuiltinModule and falls back to a require function made on
    // first use; this Node has the former, so the fallback is taken by removing it before the import.
    const script = `
delete process.getBuiltinModule;
const root = await import('openjarvis');
const read = await new root.FileReadTool({ allowedDirs: [process.cwd()] }).execute({ path: 'package.json' });
const memory = new root.SQLiteMemory({ dbPath: ':memory:' });
await memory.store('builtins found on an older Node', {});
const found = await memory.retrieve('older');
await memory.close();
process.stdout.write(JSON.stringify({ removed: process.getBuiltinModule === undefined, read: read.success, found: found.length }));
`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: TEST_BUILD,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({ removed: true, read: true, found: 1 });
  }, 30_000);

  it('the root and a subpath share one copy of a class (one set of chunks)', async () => {
    const script = `
const root = await import('openjarvis');
const tools = await import('openjarvis/tools');
const core = await import('openjarvis/core');
process.stdout.write(String(root.ToolExecutor === tools.ToolExecutor && root.JarvisError === core.JarvisError));
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: TEST_BUILD,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(stdout).toBe('true');
  }, 30_000);
});
