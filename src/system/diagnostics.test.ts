import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../testing/index.js';
import { INSTALL_HINT, type SandboxBackend, type SandboxSelection } from '../tools/index.js';
import { configFromToml } from './config/index.js';
import { runDiagnostics } from './diagnostics.js';
import { checkHome, checkNode, checkSandbox, checkSqlite } from './diagnostics-checks.js';

let home: string;
const servers: ScriptedOpenAIServer[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-doctor-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await chmod(home, 0o700).catch(() => undefined);
  await rm(home, { recursive: true, force: true });
});

const bubblewrap: SandboxSelection = {
  ok: true,
  backend: { name: 'bubblewrap', seccomp: true } as unknown as SandboxBackend,
};

function defaults() {
  return configFromToml('', join(home, 'config.toml'), { home, cwd: home, homeDir: home }).config;
}

describe('checkNode', () => {
  it('accepts 20 and newer, and says how to upgrade an older one', () => {
    expect(checkNode('20.0.0').status).toBe('ok');
    expect(checkNode('v22.3.1').status).toBe('ok');
    const old = checkNode('18.19.0');
    expect(old).toMatchObject({ status: 'fail', required: true });
    expect(old.fix).toMatch(/Node\.js 20 or newer/);
  });
});

describe('checkHome', () => {
  it('passes for a writable folder and one that can still be created', async () => {
    expect((await checkHome(home)).status).toBe('ok');
    const later = await checkHome(join(home, 'a', 'b'));
    expect(later).toMatchObject({ status: 'ok' });
    expect(later.summary).toMatch(/not created yet/);
  });

  it('fails for a file, and for a folder that cannot be written', async () => {
    await writeFile(join(home, 'file'), '');
    expect(await checkHome(join(home, 'file'))).toMatchObject({ status: 'fail' });
    if (process.getuid?.() === 0) return; // root writes anywhere: the permission case cannot be shown.
    await mkdir(join(home, 'locked'));
    await chmod(join(home, 'locked'), 0o500);
    const locked = await checkHome(join(home, 'locked'));
    expect(locked).toMatchObject({ status: 'fail' });
    expect(locked.fix).toMatch(/OPENJARVIS_HOME/);
  });
});

describe('checkSandbox', () => {
  it('names the backend, warns about unsandboxed runs, and gives the install hint when there is none', async () => {
    const config = defaults();
    expect(await checkSandbox(config, { selectSandbox: async () => bubblewrap })).toMatchObject({
      status: 'ok',
      summary: 'bubblewrap',
      required: false,
    });
    const unsandboxed = await checkSandbox(config, {
      selectSandbox: async () => ({
        ok: true,
        backend: { name: 'unsandboxed', seccomp: false } as unknown as SandboxBackend,
      }),
    });
    expect(unsandboxed.status).toBe('warn');
    const none = await checkSandbox(config, {
      selectSandbox: async () => ({
        ok: false,
        reason: `bubblewrap not found at /x; ${INSTALL_HINT}`,
      }),
    });
    expect(none).toMatchObject({
      status: 'warn',
      summary: 'none (bubblewrap not found at /x)',
      fix: INSTALL_HINT,
    });
    const broken = await checkSandbox(config, {
      selectSandbox: async () => {
        throw new Error('boom');
      },
    });
    expect(broken).toMatchObject({ status: 'warn', summary: 'none (boom)' });
  });
});

describe('checkSqlite', () => {
  it('creates an FTS5 table in memory and finds a document with it', async () => {
    expect(await checkSqlite()).toMatchObject({ status: 'ok', required: true });
  });
});

describe('runDiagnostics', () => {
  const env = () => ({ OPENJARVIS_HOME: join(home, '.openjarvis') });

  it('runs every check; with a reachable engine and no config file all required checks pass', async () => {
    const server = await startScriptedOpenAIServer({ script: [], models: ['m'] });
    servers.push(server);
    const report = await runDiagnostics({
      env: env(),
      cwd: home,
      homeDir: home,
      baseUrl: server.baseUrl,
      engineTimeoutMs: 5_000,
      selectSandbox: async () => bubblewrap,
    });
    expect(report.checks.map((check) => check.name)).toEqual([
      'node',
      'config',
      'engines',
      'sqlite',
      'sandbox',
      'home',
    ]);
    expect(report.checks.find((check) => check.name === 'config')?.summary).toMatch(/not present/);
    const engines = report.checks.find((check) => check.name === 'engines');
    expect(engines).toMatchObject({ status: 'ok', summary: 'reachable: openai' });
    expect(engines?.details).toHaveLength(7);
    expect(report.ok).toBe(true);
  });

  it('fails on an invalid config but still runs the other checks with the defaults', async () => {
    const file = join(home, 'bad.toml');
    await writeFile(file, '[agent]\nmax_turns = 0\n');
    const report = await runDiagnostics({
      env: {},
      cwd: home,
      homeDir: home,
      configPath: file,
      engineTimeoutMs: 1,
      selectSandbox: async () => bubblewrap,
    });
    const config = report.checks.find((check) => check.name === 'config');
    expect(config?.status).toBe('fail');
    expect(config?.details.join('\n')).toContain(`${file}:2: agent.max_turns`);
    expect(config?.fix).toMatch(/jarvis init --force/);
    expect(report.checks).toHaveLength(6);
    expect(report.ok).toBe(false);
  });

  it('warns about unknown keys with their lines', async () => {
    const file = join(home, 'warn.toml');
    await writeFile(file, '[agent]\nmax_turns = 3\nmystery = 1\n');
    const report = await runDiagnostics({
      env: {},
      cwd: home,
      homeDir: home,
      configPath: file,
      engineTimeoutMs: 1,
      selectSandbox: async () => bubblewrap,
    });
    const config = report.checks.find((check) => check.name === 'config');
    expect(config?.status).toBe('warn');
    expect(config?.details[0]).toMatch(/^line 3: .*mystery/);
  });
});
