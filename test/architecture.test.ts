import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * DESIGN.md §3's picture, bottom up: "core <- storage <- tools, engine, memory, telemetry <- agents, scheduler,
 * sessions, mcp <- system <- sdk <- server, cli". A folder may import only folders of a lower tier (`testing`,
 * the shipped fakes, sits beside agents: it builds on core and tools).
 */
const TIERS: readonly (readonly string[])[] = [
  ['core'],
  ['storage'],
  ['tools', 'engine', 'memory', 'telemetry'],
  ['agents', 'scheduler', 'sessions', 'mcp', 'testing'],
  ['system'],
  ['sdk'],
  ['server'],
  ['cli'],
];

/** Which top-level folders of src/ each folder may import: never upward in TIERS, often stricter. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  // PostgreSQL handle and migrations for the durable stores (SQLite stays inside each store).
  storage: ['core'],
  tools: ['core'],
  engine: ['core'],
  memory: ['core', 'storage'],
  telemetry: ['core', 'storage'],
  testing: ['core', 'tools'],
  agents: ['core', 'tools'],
  scheduler: ['core', 'storage', 'tools'],
  sessions: ['core', 'storage'],
  // Below system: config-listed MCP servers become ordinary tools that system hands to agents.
  mcp: ['core', 'tools'],
  system: [
    'core',
    'storage',
    'tools',
    'engine',
    'memory',
    'telemetry',
    'agents',
    'scheduler',
    'sessions',
    'mcp',
  ],
  sdk: ['core', 'system'],
  // `jarvis serve`: the HTTP API over the system (runs, sessions, telemetry) and the SDK.
  server: ['core', 'system', 'sdk'],
  // The CLI imports each thing from the folder that owns it (the SDK re-exports nothing for it).
  cli: [
    'core',
    'tools',
    'engine',
    'memory',
    'telemetry',
    'agents',
    'scheduler',
    'sessions',
    'mcp',
    'system',
    'sdk',
    'server',
  ],
  // The web page (src/web, bundled for the browser): its own files and Preact only; it reads the server's JSON
  // over HTTP into types of its own, so it imports nothing from the other folders.
  web: [],
};

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const IMPORT_PATTERN =
  /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

interface SourceFile {
  /** Path relative to src/, with forward slashes. */
  readonly path: string;
  readonly text: string;
}

function importsOf(text: string): string[] {
  return [...text.matchAll(IMPORT_PATTERN)].map((match) => match[1] ?? match[2] ?? '');
}

function tierOf(folder: string): number {
  return TIERS.findIndex((tier) => tier.includes(folder));
}

/** Lists every rule of `allowed` that lets a folder import its own or a higher tier. */
function upwardRules(allowed: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(allowed).flatMap(([from, targets]) =>
    targets
      .filter((to) => tierOf(from) < 0 || tierOf(to) < 0 || tierOf(to) >= tierOf(from))
      .map((to) => `${from}/ may import ${to}/`),
  );
}

function layerOf(path: string): string {
  return path.includes('/') ? (path.split('/')[0] ?? '') : '(root)';
}

/** Lists every import in `files` that breaks the layering rules. */
function findViolations(files: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    if (file.path.endsWith('.test.ts')) continue;
    const from = layerOf(file.path);
    for (const specifier of importsOf(file.text)) {
      const problem = checkImport(file.path, from, specifier);
      if (problem !== undefined) violations.push(`${file.path}: ${problem}`);
    }
  }
  return violations;
}

function checkImport(path: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) {
    if (from === 'core')
      return `core must not import '${specifier}' (no packages, no node: builtins)`;
    if (from === 'web' && !/^preact(?:\/|$)/.test(specifier))
      return `web must not import '${specifier}' (it runs in the browser: Preact only)`;
    return undefined;
  }
  const target = relative(SRC, resolve(SRC, dirname(path), specifier))
    .split('\\')
    .join('/');
  if (target.startsWith('..')) return `imports '${specifier}' from outside src/`;
  const to = layerOf(target);
  if (to === 'testing' && from !== 'testing')
    return `imports testing/ ('${specifier}'); only tests may`;
  if (from === '(root)' || to === from) {
    if (to === from && target === `${from}/index.js` && path !== `${from}/index.ts`) {
      return `imports its own folder's index ('${specifier}'); import the sibling file directly`;
    }
    return undefined;
  }
  if (to === '(root)') return `imports the package entry ('${specifier}')`;
  if (!(ALLOWED[from] ?? []).includes(to))
    return `${from}/ must not import ${to}/ ('${specifier}')`;
  if (!target.endsWith(`${to}/index.js`))
    return `reaches into ${to}/ ('${specifier}'); import ${to}/index.js instead`;
  return undefined;
}

function readSources(directory: string): SourceFile[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') || name.endsWith('.tsx'))
    .map((name) => ({
      path: name.split('\\').join('/'),
      text: readFileSync(join(directory, name), 'utf8'),
    }));
}

describe('architecture', () => {
  it('src/ follows the import direction of DESIGN.md §3', () => {
    const files = readSources(SRC);
    expect(files.length).toBeGreaterThan(10);
    expect(findViolations(files)).toEqual([]);
  });

  it('every folder of src/ has a rule', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    for (const folder of folders) expect(Object.keys(ALLOWED)).toContain(folder);
  });

  it('the rules only point down the tiers of DESIGN.md §3 (mcp below system)', () => {
    expect(upwardRules(ALLOWED)).toEqual([]);
    expect(tierOf('mcp')).toBeLessThan(tierOf('system'));
    expect(upwardRules({ mcp: ['system'], system: ['sdk'], cli: ['cli'], x: ['core'] })).toEqual([
      'mcp/ may import system/',
      'system/ may import sdk/',
      'cli/ may import cli/',
      'x/ may import core/',
    ]);
  });

  it('catches each kind of violation', () => {
    const files: SourceFile[] = [
      {
        path: 'core/a.ts',
        text: "import { x } from '../tools/index.js';\nimport { readFile } from 'node:fs';",
      },
      { path: 'core/b.ts', text: "import { z } from 'zod';" },
      { path: 'tools/c.ts', text: "import type { E } from '../engine/index.js';" },
      { path: 'agents/d.ts', text: "import { BaseTool } from '../tools/base-tool.js';" },
      { path: 'sdk/e.ts', text: "export { S } from '../testing/index.js';" },
      { path: 'tools/f.ts', text: "import { g } from './index.js';" },
      { path: 'mcp/g.ts', text: "const m = await import('../system/index.js');" },
      { path: 'cli/h.ts', text: "import { Jarvis } from '../sdk/jarvis.js';" },
      { path: 'tools/ok.test.ts', text: "import { S } from '../testing/index.js';" },
      { path: 'system/ok.ts', text: "import {\n  ToolExecutor,\n} from '../tools/index.js';" },
      { path: 'index.ts', text: "export { Jarvis } from './sdk/index.js';" },
      { path: 'web/i.tsx', text: "import type { X } from '../server/index.js';" },
      { path: 'web/j.ts', text: "import { readFile } from 'node:fs';" },
      { path: 'web/ok.tsx', text: "import { render } from 'preact';\nimport { A } from './a.js';" },
    ];
    expect(findViolations(files)).toEqual([
      "core/a.ts: core/ must not import tools/ ('../tools/index.js')",
      "core/a.ts: core must not import 'node:fs' (no packages, no node: builtins)",
      "core/b.ts: core must not import 'zod' (no packages, no node: builtins)",
      "tools/c.ts: tools/ must not import engine/ ('../engine/index.js')",
      "agents/d.ts: reaches into tools/ ('../tools/base-tool.js'); import tools/index.js instead",
      "sdk/e.ts: imports testing/ ('../testing/index.js'); only tests may",
      "tools/f.ts: imports its own folder's index ('./index.js'); import the sibling file directly",
      "mcp/g.ts: mcp/ must not import system/ ('../system/index.js')",
      "cli/h.ts: reaches into sdk/ ('../sdk/jarvis.js'); import sdk/index.js instead",
      "web/i.tsx: web/ must not import server/ ('../server/index.js')",
      "web/j.ts: web must not import 'node:fs' (it runs in the browser: Preact only)",
    ]);
  });
});
