import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
  writeTinyGguf,
} from '../testing/index.js';
import { INSTALL_HINT, type SandboxBackend, type SandboxSelection } from '../tools/index.js';
import { configFromToml } from './config/index.js';
import { runDiagnostics } from './diagnostics.js';
import {
  checkEngines,
  checkHome,
  checkNode,
  checkSandbox,
  checkSqlite,
} from './diagnostics-checks.js';
import {
  type EmbeddedRuntimeProbe,
  missingEmbeddedRuntimeProblem,
  noModelProblem,
} from './engine-survey.js';

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

/** The embedded runtime as a probe answers it (the real one is covered in engine-survey.test.ts). */
const cpuRuntime = async (options: { readonly start: boolean }): Promise<EmbeddedRuntimeProbe> =>
  options.start ? { ok: true, gpu: false } : { ok: true };
const noRuntime = async (): Promise<EmbeddedRuntimeProbe> => ({
  ok: false,
  reason: missingEmbeddedRuntimeProblem(),
});

async function serve(options: {
  mode?: 'ollama';
  models: string[];
}): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer({ script: [], ...options });
  servers.push(server);
  return server;
}

/** The address of a server that was started and closed again: connections are refused. */
async function closedAddress(): Promise<string> {
  const server = await startScriptedOpenAIServer({ script: [] });
  await server.close();
  return server.url;
}

async function writeModel(): Promise<void> {
  await mkdir(join(home, 'models'), { recursive: true });
  await writeTinyGguf(join(home, 'models', 'tiny.gguf'));
}

describe('checkEngines', () => {
  const PULL = '`jarvis models pull qwen3-1.7b` (runs in-process, nothing else to install)';

  function configFor(ollama: string) {
    return configFromToml(`[engine.ollama]\nhost = "${ollama}"\n`, join(home, 'config.toml'), {
      home,
      cwd: home,
      homeDir: home,
    }).config;
  }

  it('warns when the only engine that answers has no models, naming ollama pull and jarvis models pull', async () => {
    const ollama = await serve({ mode: 'ollama', models: [] });
    const check = await checkEngines({
      config: configFor(ollama.url),
      keys: ['ollama', 'embedded'],
      timeoutMs: 5_000,
      probeEmbeddedRuntime: cpuRuntime,
    });
    expect(check).toMatchObject({
      status: 'warn',
      summary: 'reachable, but without models: ollama',
      fix: `pull a model: \`ollama pull qwen3:1.7b\`, or ${PULL}`,
    });
    expect(check.details[0]).toMatch(
      /^ollama +\S+ +reachable, but no models: `ollama pull qwen3:1\.7b`$/,
    );
    expect(check.details[1]?.endsWith(`  ${noModelProblem(join(home, 'models'))}`)).toBe(true);
  });

  it('passes when one engine has models, still naming the ones without', async () => {
    const ollama = await serve({ mode: 'ollama', models: [] });
    const openai = await serve({ models: [] });
    await writeModel();
    const check = await checkEngines({
      config: configFor(ollama.url),
      baseUrl: openai.baseUrl,
      keys: ['ollama', 'openai', 'embedded'],
      timeoutMs: 5_000,
      probeEmbeddedRuntime: cpuRuntime,
    });
    expect(check).toMatchObject({
      status: 'ok',
      summary: 'reachable: embedded; without models: ollama, openai',
    });
    expect(check.fix).toBeUndefined();
    expect(check.details[1]).toMatch(/^openai .* reachable, but no models loaded$/);
    expect(check.details[2]).toMatch(/tiny\.gguf +reachable, 1 model; llama\.cpp runs on cpu$/);
  });

  it('warns with jarvis models pull when a server other than ollama has no models', async () => {
    const openai = await serve({ models: [] });
    const check = await checkEngines({
      config: configFor(await closedAddress()),
      baseUrl: openai.baseUrl,
      keys: ['openai'],
      timeoutMs: 5_000,
    });
    expect(check).toMatchObject({ status: 'warn', fix: `load a model into openai, or ${PULL}` });
  });

  it('fails when nothing answers, with the no-install route first', async () => {
    const check = await checkEngines({
      config: configFor(await closedAddress()),
      keys: ['ollama', 'embedded'],
      timeoutMs: 5_000,
      probeEmbeddedRuntime: cpuRuntime,
    });
    expect(check).toMatchObject({ status: 'fail', summary: 'none reachable' });
    expect(check.fix).toMatch(
      /^`jarvis models pull qwen3-1\.7b` \(runs in-process, nothing else to install\), or start a server: `ollama serve` then `ollama pull qwen3:1\.7b`, /,
    );
    expect(check.fix).toContain('--base-url <url> / OPENAI_BASE_URL');
  });

  it('fails when the embedded runtime is missing, pointing at its line for the install command', async () => {
    const config = configFor(await closedAddress());
    const options = { config, keys: ['ollama', 'embedded'], timeoutMs: 5_000 } as const;
    const noModel = await checkEngines({ ...options, probeEmbeddedRuntime: noRuntime });
    expect(noModel.status).toBe('fail');
    expect(noModel.details[1]).toContain(missingEmbeddedRuntimeProblem());
    expect(noModel.fix).toMatch(
      /^`jarvis models pull qwen3-1\.7b` \(runs in-process once the embedded runtime loads: see its line above\), or start a server/,
    );
    await writeModel();
    const withModel = await checkEngines({ ...options, probeEmbeddedRuntime: noRuntime });
    expect(withModel.details[1]).toMatch(
      /tiny\.gguf +the embedded runtime \(node-llama-cpp\) is not installed/,
    );
    expect(withModel.fix).toMatch(
      /^make the embedded runtime load \(see its line above\), or start a server/,
    );
  });
});

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
      probeEmbeddedRuntime: noRuntime,
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
    // The injected runtime probe reaches the embedded engine's line.
    expect(engines?.details[6]).toMatch(
      /^embedded .*the embedded runtime \(node-llama-cpp\) is not installed/,
    );
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
      probeEmbeddedRuntime: noRuntime,
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
      probeEmbeddedRuntime: noRuntime,
    });
    const config = report.checks.find((check) => check.name === 'config');
    expect(config?.status).toBe('warn');
    expect(config?.details[0]).toMatch(/^line 3: .*mystery/);
  });
});
