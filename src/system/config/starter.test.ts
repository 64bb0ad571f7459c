import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { fileSchema, keyNotes } from './file-schema.js';
import { configFromToml } from './from-toml.js';
import type { ConfigContext } from './load.js';
import { STARTER_CONFIG, writeStarterConfig } from './starter.js';
import { readingOf } from './warnings.js';

const CONTEXT: ConfigContext = {
  home: '/home/tester/.openjarvis',
  cwd: '/work/project',
  homeDir: '/home/tester',
};
const FILE = '/home/tester/.openjarvis/config.toml';

/** The starter text with every commented-out setting (`# key = value`, `# [[table]]`) switched on. */
function uncommented(text: string): string {
  return text.replace(/^# ((?:[a-z_]+ = .*)|(?:\[\[?[a-z_.]+\]\]?))$/gm, '$1');
}

/** Every key of our own schema (not the upstream aliases and ignored keys), as `[section] key`. */
function schemaKeys(shape: Readonly<Record<string, z.core.$ZodType>>, header = '[]'): string[] {
  return Object.entries(shape).flatMap(([key, schema]) => {
    if (keyNotes.get(schema) !== undefined) return [];
    const reading = readingOf(schema);
    const name = header === '[]' ? key : `${header.replace(/^\[+|\]+$/g, '')}.${key}`;
    if (reading?.kind === 'table') return schemaKeys(reading.shape, `[${name}]`);
    const entry = reading?.kind === 'tables' ? readingOf(reading.entry) : undefined;
    if (entry?.kind === 'table') return schemaKeys(entry.shape, `[[${name}]]`);
    return [`${header} ${key}`];
  });
}

const fileShape = readingOf(fileSchema);
const DOCUMENTED_KEYS = fileShape?.kind === 'table' ? schemaKeys(fileShape.shape) : [];

/** The `# key =` settings of the starter text, each as `[section] key` under the header above it. */
function documentedKeys(text: string): string[] {
  let section = '[]';
  const keys: string[] = [];
  for (const line of text.split('\n')) {
    const header = /^#? ?(\[\[?[a-z_.]+\]\]?)$/.exec(line);
    if (header?.[1] !== undefined) section = header[1];
    const setting = /^#\s+([a-z_]+) = /.exec(line);
    if (setting?.[1] !== undefined) keys.push(`${section} ${setting[1]}`);
  }
  return keys;
}

describe('STARTER_CONFIG', () => {
  it('loads with no warnings and gives exactly the defaults', () => {
    const starter = configFromToml(STARTER_CONFIG, FILE, CONTEXT);
    expect(starter.warnings).toEqual([]);
    expect(starter.config).toEqual(configFromToml('', FILE, CONTEXT).config);
  });

  it('shows defaults that are the real defaults, and examples that are valid', () => {
    const text = uncommented(STARTER_CONFIG);
    expect(text).not.toBe(STARTER_CONFIG);
    const { config, warnings } = configFromToml(text, FILE, CONTEXT);
    const defaults = configFromToml('', FILE, CONTEXT).config;
    expect(warnings).toEqual([]);
    expect(config.agent).toEqual({
      ...defaults.agent,
      systemPrompt: 'You are a helpful assistant.',
      tools: ['calculator', 'think'],
    });
    expect(config.memory).toEqual(defaults.memory);
    expect(config.scheduler).toEqual(defaults.scheduler);
    expect(config.telemetry).toEqual({
      ...defaults.telemetry,
      otlpEndpoint: 'http://127.0.0.1:4318',
      otlpHeaders: { Authorization: 'Bearer ...' },
    });
    expect(config.tools).toEqual({
      ...defaults.tools,
      webSearchProvider: 'duckduckgo',
      webSearchBaseUrl: 'http://127.0.0.1:8888',
    });
    expect(config.engine).toMatchObject({
      default: 'ollama',
      modelsDir: defaults.engine.modelsDir,
      hosts: {
        ollama: 'http://127.0.0.1:11434',
        vllm: 'http://127.0.0.1:8000',
        llamacpp: 'http://127.0.0.1:8080',
        sglang: 'http://127.0.0.1:30000',
        lmstudio: 'http://127.0.0.1:1234',
        openai: 'https://api.openai.com/v1',
      },
    });
    expect(config.mcp.servers).toMatchObject([
      { name: 'files', transport: 'stdio', prefix: 'files.', timeoutMs: 60_000 },
    ]);
  });

  it('documents every key of the schema', () => {
    const documented = documentedKeys(STARTER_CONFIG);
    const indented = /^#\s+(url|headers) = /gm;
    // [storage] url, and [[mcp.servers]] url and headers.
    expect([...STARTER_CONFIG.matchAll(indented)]).toHaveLength(3);
    expect(DOCUMENTED_KEYS).toContain('[engine.openai] api_key');
    expect(DOCUMENTED_KEYS).toContain('[[mcp.servers]] headers');
    expect(DOCUMENTED_KEYS).not.toContain('[agent] default_tools');
    expect(new Set(documented)).toEqual(new Set(DOCUMENTED_KEYS));
  });
});

describe('writeStarterConfig', () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'jarvis-starter-'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('creates the folders and writes the starter file with mode 0600', async () => {
    const path = join(folder, 'a', 'b', 'config.toml');
    await expect(writeStarterConfig({ path })).resolves.toEqual({ path, replaced: false });
    expect(await readFile(path, 'utf8')).toBe(STARTER_CONFIG);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(folder, 'a', 'b'))).toEqual(['config.toml']);
  });

  it('refuses to replace an existing file without force, leaving it as it was', async () => {
    const path = join(folder, 'config.toml');
    await writeFile(path, 'mine = true\n');
    const error = await writeStarterConfig({ path }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'config_exists' });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('--force');
    expect(await readFile(path, 'utf8')).toBe('mine = true\n');
    expect(await readdir(folder)).toEqual(['config.toml']);
  });

  it('replaces an existing file with force', async () => {
    const path = join(folder, 'config.toml');
    await writeFile(path, 'mine = true\n', { mode: 0o644 });
    await expect(writeStarterConfig({ path, force: true })).resolves.toEqual({
      path,
      replaced: true,
    });
    expect(await readFile(path, 'utf8')).toBe(STARTER_CONFIG);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(folder)).toEqual(['config.toml']);
  });

  it('fails with config_unwritable when the folder cannot be created', async () => {
    const blocker = join(folder, 'file');
    await writeFile(blocker, '');
    await expect(writeStarterConfig({ path: join(blocker, 'config.toml') })).rejects.toMatchObject({
      code: 'config_unwritable',
    });
    expect(await readdir(folder)).toEqual(['file']);
  });
});
