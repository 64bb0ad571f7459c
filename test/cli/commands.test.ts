import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../../src/testing/index.js';
import { bundledScript } from '../support/bundled-script.js';
import { TEST_BUILD } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const BUILTIN_TOOLS = [
  'calculator',
  'cancel_scheduled_task',
  'code_interpreter',
  'file_read',
  'list_scheduled_tasks',
  'llm',
  'pause_scheduled_task',
  'resume_scheduled_task',
  'retrieval',
  'schedule_task',
  'think',
  'web_search',
];
const SERVER_ENGINES = ['ollama', 'vllm', 'llamacpp', 'sglang', 'lmstudio'];

const homes: string[] = [];
let server: ScriptedOpenAIServer;
/** A 127.0.0.1 address nothing listens on (a server took the port and closed again). */
let closedUrl: string;

beforeAll(async () => {
  server = await startScriptedOpenAIServer({ script: [], models: ['m1', 'm2'] });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  closedUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 1}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await server.close();
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

/** A fresh temp HOME with OPENJARVIS_HOME inside it, removed after the file. */
async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-commands-'));
  homes.push(home);
  return home;
}

function jarvisHome(home: string): string {
  return join(home, '.openjarvis');
}

/** Runs the built `jarvis` in `home` (as HOME, with OPENJARVIS_HOME inside it). */
function jarvis(
  home: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<CliRun> {
  return runCli(args, {
    cwd: home,
    env: { HOME: home, OPENJARVIS_HOME: jarvisHome(home), ...env },
  });
}

/** A config file where every local engine server sits at an address nothing listens on. */
async function writeClosedEnginesConfig(home: string): Promise<string> {
  const file = join(home, 'engines.toml');
  const hosts = SERVER_ENGINES.map((key) => `[engine.${key}]\nhost = "${closedUrl}"\n`);
  await writeFile(file, hosts.join('\n'));
  return file;
}

describe.concurrent('jarvis basics', () => {
  it('--version prints the package version', async () => {
    const home = await tempHome();
    const { version } = JSON.parse(await readFile(join(TEST_BUILD, 'package.json'), 'utf8'));
    const run = await jarvis(home, ['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help lists the commands and shows examples', async () => {
    const run = await jarvis(await tempHome(), ['--help']);
    expect(run.code).toBe(0);
    for (const command of [
      'ask',
      'tools',
      'agents',
      'engines',
      'models',
      'memory',
      'telemetry',
      'doctor',
      'init',
    ])
      expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(run.stdout).toContain('Examples:');
    expect(run.stdout).toContain('$ jarvis doctor');
    const sub = await jarvis(await tempHome(), ['memory', '--help']);
    expect(sub.stdout).toContain('$ jarvis memory index ./docs');
  });
});

describe.concurrent('jarvis tools and agents', () => {
  it('tools list shows the 12 built-ins in columns, without creating anything in the home folder', async () => {
    const home = await tempHome();
    const run = await jarvis(home, ['tools', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'NAME',
      'CATEGORY',
      'CONFIRM',
      'COST',
      'LATENCY',
      'DESCRIPTION',
    ]);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(BUILTIN_TOOLS);
    const calculator = rows.find((row) => row.startsWith('calculator'));
    expect(calculator?.split(/\s{2,}/).slice(0, 5)).toEqual([
      'calculator',
      'math',
      'no',
      '$0',
      '-',
    ]);
    const descriptionAt = header?.indexOf('DESCRIPTION') ?? -1;
    expect(calculator?.slice(descriptionAt)).toMatch(/^Evaluate a mathematical expression/);
    expect(existsSync(jarvisHome(home))).toBe(false);
  });

  it('tools list --json prints snake_case objects', async () => {
    const run = await jarvis(await tempHome(), ['tools', 'list', '--json']);
    expect(run.code).toBe(0);
    const tools = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(tools.map((tool) => tool.name)).toEqual(BUILTIN_TOOLS);
    expect(Object.keys(tools[0] ?? {})).toEqual([
      'name',
      'category',
      'description',
      'requires_confirmation',
      'cost_estimate',
      'latency_estimate',
      'parameters',
    ]);
  });

  it('tools list shows a custom tool from --import with its confirmation and cost', async () => {
    const home = await tempHome();
    const module = join(home, 'weather-tool.mjs');
    const core = pathToFileURL(join(TEST_BUILD, 'dist', 'core', 'index.js')).href;
    await writeFile(
      module,
      [
        `import { ToolRegistry, createToolSpec } from ${JSON.stringify(core)};`,
        'ToolRegistry.registerValue("weather", {',
        '  toolId: "weather",',
        '  spec: createToolSpec({ name: "weather", description: "Paid weather API.\\nMore.", category: "web",',
        '    costEstimate: 0.002, latencyEstimate: 1.5, requiresConfirmation: true }),',
        '  execute: async () => ({ success: true, content: "sunny" }),',
        '});',
      ].join('\n'),
    );
    const run = await jarvis(home, ['tools', 'list', '--import', module]);
    expect(run.code).toBe(0);
    const row = run.stdout.split('\n').find((line) => line.startsWith('weather'));
    expect(row?.split(/\s{2,}/)).toEqual([
      'weather',
      'web',
      'yes',
      '$0.002',
      '1.5s',
      'Paid weather API.',
    ]);
  });

  it('tools list shows the tools of configured MCP servers, and warns about one that cannot start', async () => {
    const home = await tempHome();
    // Bundled, so the fixture server starts with plain `node` from any working folder.
    const fixture = await bundledScript(join(ROOT, 'src', 'mcp', 'remote-server.fixture.ts'));
    const config = join(home, 'mcp.toml');
    await writeFile(
      config,
      `[[mcp.servers]]\nname = "remote"\ncommand = ${JSON.stringify(process.execPath)}\n` +
        `args = [${JSON.stringify(fixture)}]\n\n` +
        `[[mcp.servers]]\nname = "broken"\ncommand = "/nonexistent/mcp-server"\n`,
    );
    const run = await jarvis(home, ['tools', 'list', '--config', config]);
    expect(run.code).toBe(0);
    const names = run.stdout.split('\n').map((row) => row.split(/\s+/)[0]);
    expect(names).toEqual(expect.arrayContaining(['calculator', 'remote.add', 'remote.echo']));
    expect(run.stdout).toMatch(/remote\.add\s+mcp\s+no/);
    expect(run.stderr).toMatch(/warning: MCP server 'broken'/);
  }, 30_000);

  it('tools list with a corrupted config is a usage error naming file and line', async () => {
    const home = await tempHome();
    await mkdir(jarvisHome(home));
    const file = join(jarvisHome(home), 'config.toml');
    await writeFile(file, '[engine]\ndefault = "ollama"\nmodel = \n');
    const run = await jarvis(home, ['tools', 'list']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`error: ${file}:3:`);
    const invalid = join(home, 'invalid.toml');
    await writeFile(invalid, '[agent]\n\nmax_turns = "many"\n');
    const bad = await jarvis(home, ['memory', 'stats', '--config', invalid]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${invalid}:3: agent.max_turns`);
  });

  it('agents list shows keys and classes, the default marked; --json too', async () => {
    const home = await tempHome();
    const [text, json] = await Promise.all([
      jarvis(home, ['agents', 'list']),
      jarvis(home, ['agents', '--json']),
    ]);
    expect(text.code).toBe(0);
    const rows = text.stdout.trimEnd().split('\n');
    expect(rows[0]?.split(/\s+/)).toEqual(['KEY', 'CLASS']);
    expect(rows).toContainEqual(expect.stringMatching(/^orchestrator\s+OrchestratorAgent$/));
    expect(rows).toContainEqual(expect.stringMatching(/^simple\s+SimpleAgent\s+default$/));
    expect(rows).toContainEqual(expect.stringMatching(/^custom\s+CustomAgent\s+\(template\)$/));
    const agents = JSON.parse(json.stdout) as {
      key: string;
      class_name: string;
      is_default: boolean;
      is_template: boolean;
    }[];
    expect(agents.find((agent) => agent.key === 'react')).toEqual({
      key: 'react',
      class_name: 'NativeReActAgent',
      is_default: false,
      is_template: false,
    });
    expect(agents.find((agent) => agent.key === 'custom')?.is_template).toBe(true);
  });

  it('a list command with --json prints its failure as one JSON object on stdout, exit 2', async () => {
    const home = await tempHome();
    const missing = join(home, 'missing.toml');
    const run = await jarvis(home, ['tools', 'list', '--json', '--config', missing]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: expect.stringMatching(/^config_/), message: expect.stringContaining(missing) },
    });
    expect(run.stderr).toContain(`error: Config file ${missing}`);
  });
});

describe.concurrent('jarvis engines and models', () => {
  it('engines: the scripted server is reachable as openai with its models, the others are not', async () => {
    const home = await tempHome();
    const config = await writeClosedEnginesConfig(home);
    const run = await jarvis(home, [
      'engines',
      '--config',
      config,
      '--base-url',
      server.baseUrl,
      '--timeout-ms',
      '10000',
    ]);
    expect(run.code).toBe(0);
    const rows = run.stdout.trimEnd().split('\n');
    expect(rows[0]?.split(/\s+/)).toEqual(['ENGINE', 'ADDRESS', 'STATUS', 'MODELS']);
    expect(rows).toContainEqual(
      expect.stringMatching(new RegExp(`^openai\\s+${server.baseUrl}\\s+reachable\\s+m1, m2$`)),
    );
    for (const key of SERVER_ENGINES)
      expect(rows).toContainEqual(
        expect.stringMatching(new RegExp(`^${key}\\s+${closedUrl}\\s+unreachable`)),
      );
    expect(rows).toContainEqual(expect.stringMatching(/^embedded\s+\S+\*\.gguf\s+no model/));
  });

  it('engines --json: OPENAI_BASE_URL makes openai reachable', async () => {
    const home = await tempHome();
    const config = await writeClosedEnginesConfig(home);
    const run = await jarvis(
      home,
      ['engines', '--json', '--config', config, '--timeout-ms', '10000'],
      {
        OPENAI_BASE_URL: server.baseUrl,
      },
    );
    expect(run.code).toBe(0);
    const engines = JSON.parse(run.stdout) as {
      key: string;
      reachable: boolean;
      models: string[];
    }[];
    expect(engines.map((engine) => engine.key)).toEqual([...SERVER_ENGINES, 'openai', 'embedded']);
    expect(engines.filter((engine) => engine.reachable)).toEqual([
      {
        key: 'openai',
        address: server.baseUrl,
        configured: true,
        reachable: true,
        models: ['m1', 'm2'],
      },
    ]);
  });

  it('models lists the chosen engine models on stdout; --json names the engine', async () => {
    const home = await tempHome();
    const [text, json] = await Promise.all([
      jarvis(home, ['models', '--base-url', server.baseUrl]),
      jarvis(home, ['models', '--engine', 'openai', '--base-url', server.baseUrl, '--json']),
    ]);
    expect(text).toMatchObject({ code: 0, stdout: 'm1\nm2\n' });
    expect(text.stderr).toContain(`Models of openai at ${server.baseUrl}`);
    expect(JSON.parse(json.stdout)).toEqual({
      engine: 'openai',
      address: server.baseUrl,
      models: ['m1', 'm2'],
    });
  });

  it('an unknown engine is a usage error listing the known ones', async () => {
    const run = await jarvis(await tempHome(), ['models', '--engine', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown engine 'nope'. Available: ollama, vllm");
  });
});

describe('jarvis memory and telemetry', () => {
  it('indexes a folder, then searches, counts and clears it', async () => {
    const home = await tempHome();
    const docs = join(home, 'docs');
    await mkdir(join(docs, 'sub'), { recursive: true });
    await writeFile(
      join(docs, 'release.md'),
      '# Release\n\nThe release checklist: bump, tag, publish.\n',
    );
    await writeFile(join(docs, 'sub', 'fruit.txt'), 'Bananas are yellow and rich in potassium.\n');
    await writeFile(join(docs, 'image.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
    await writeFile(join(docs, '.secret'), 'hidden\n');

    const indexed = await jarvis(home, ['memory', 'index', docs]);
    expect(indexed).toMatchObject({ code: 0, stderr: '' });
    expect(indexed.stdout).toBe(
      'Indexed 2 files: 2 chunks written, 0 unchanged, 2 skipped (1 binary, 1 hidden).\n',
    );
    const again = await jarvis(home, ['memory', 'index', docs, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ files: 2, chunks: 0, unchanged: 2 });

    const search = await jarvis(home, ['memory', 'search', 'release', 'checklist', '--top-k', '1']);
    expect(search.code).toBe(0);
    expect(search.stdout).toMatch(
      new RegExp(`^1\\. \\S+  ${join(docs, 'release.md')}\\n   # Release The release checklist`),
    );
    const json = await jarvis(home, ['memory', 'search', 'bananas', '--json']);
    const results = JSON.parse(json.stdout) as { source: string; score: number }[];
    expect(results.map((result) => result.source)).toEqual([join(docs, 'sub', 'fruit.txt')]);

    const stats = await jarvis(home, ['memory', 'stats', '--json']);
    expect(JSON.parse(stats.stdout)).toEqual({
      backend: 'sqlite',
      db_path: join(jarvisHome(home), 'memory.db'),
      exists: true,
      count: 2,
    });

    const refused = await jarvis(home, ['memory', 'clear']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('jarvis memory clear --yes');
    const cleared = await jarvis(home, ['memory', 'clear', '--yes']);
    expect(cleared).toMatchObject({
      code: 0,
      stdout: `Deleted 2 chunks from ${join(jarvisHome(home), 'memory.db')}.\n`,
    });
    const after = await jarvis(home, ['memory', 'stats']);
    expect(after.stdout).toMatch(/chunks\s+0\n$/);
  });

  it('memory search and stats on a fresh home create no database', async () => {
    const home = await tempHome();
    const search = await jarvis(home, ['memory', 'search', 'anything']);
    expect(search).toMatchObject({ code: 0, stdout: '' });
    expect(search.stderr).toContain('jarvis memory index <path>');
    const stats = await jarvis(home, ['memory', 'stats']);
    expect(stats.stdout).toContain('(not created yet)');
    expect(existsSync(join(jarvisHome(home), 'memory.db'))).toBe(false);
  });

  it('telemetry stats after nothing says so, in text and JSON', async () => {
    const home = await tempHome();
    const [text, json] = await Promise.all([
      jarvis(home, ['telemetry', 'stats']),
      jarvis(home, ['telemetry', 'stats', '--json']),
    ]);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^No model calls recorded yet/);
    expect(json).toMatchObject({ code: 0, stdout: '[]\n' });
  });
});

describe.concurrent('jarvis doctor and init', () => {
  it('doctor lists every check, and its exit code follows the results', async () => {
    const home = await tempHome();
    const [text, json] = await Promise.all([
      jarvis(home, ['doctor', '--base-url', server.baseUrl, '--timeout-ms', '10000']),
      jarvis(home, ['doctor', '--json', '--timeout-ms', '10000'], {
        OPENAI_BASE_URL: server.baseUrl,
      }),
    ]);
    for (const title of [
      'Node.js',
      'Config file',
      'Engines',
      'SQLite with FTS5',
      'Code sandbox',
      'Home folder',
      'Optional packages',
    ])
      expect(text.stdout).toMatch(new RegExp(`^[✓✗!] ${title}`, 'm'));
    expect(text.stdout).toMatch(/^✓ Engines\s+reachable: openai$/m);
    expect(text.stdout).toMatch(/^✓ SQLite with FTS5/m);
    // Optional packages never fail the doctor; each is listed, the missing ones with their npm command.
    expect(text.stdout).toMatch(/^ +pyodide: (installed|not installed, .*npm install pyodide@)/m);
    expect(text.code).toBe(/^✗/m.test(text.stdout) ? 1 : 0);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      checks: { name: string; status: string }[];
    };
    expect(report.checks.map((check) => check.name)).toEqual([
      'node',
      'config',
      'engines',
      'sqlite',
      'sandbox',
      'home',
      'packages',
    ]);
    expect(json.code).toBe(report.ok ? 0 : 1);
    expect(report.ok).toBe(report.checks.every((check) => check.status !== 'fail'));
  });

  it('doctor fails with exit 1 and the advice when nothing works', async () => {
    const home = await tempHome();
    const config = join(home, 'broken.toml');
    await writeFile(config, 'this is not toml\n');
    const run = await jarvis(home, ['doctor', '--config', config, '--timeout-ms', '200']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^✗ Config file\s+.*broken\.toml: cannot be used$/m);
    expect(run.stdout).toContain(`${config}:1:`);
    expect(run.stdout).toMatch(/^✗ Engines\s+none reachable$/m);
    expect(run.stdout).toMatch(
      /fix: `jarvis models pull qwen3-1\.7b` \(runs in-process[^)]*\), or start a server: `ollama serve`/,
    );
    expect(run.stdout).toMatch(/required checks? failed: Config file, Engines\./);
  });

  it('init writes the starter config, refuses to overwrite it, and replaces it with --force', async () => {
    const home = await tempHome();
    const file = join(jarvisHome(home), 'config.toml');
    const first = await jarvis(home, ['init']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Wrote the starter config: ${file}`);
    expect(first.stdout).toContain('jarvis doctor');
    expect(await readFile(file, 'utf8')).toMatch(/^# OpenJarvis configuration/);

    await writeFile(file, '# mine\n');
    const second = await jarvis(home, ['init']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`error: ${file} already exists`);
    expect(second.stderr).toContain('jarvis init --force');
    expect(await readFile(file, 'utf8')).toBe('# mine\n');

    const forced = await jarvis(home, ['init', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(`Replaced the starter config: ${file}`);
    const listed = await jarvis(home, ['tools', 'list']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
  });

  it('init follows OPENJARVIS_CONFIG and --path', async () => {
    const home = await tempHome();
    const viaEnv = join(home, 'env', 'jarvis.toml');
    const [env, path] = await Promise.all([
      jarvis(home, ['init'], { OPENJARVIS_CONFIG: viaEnv }),
      jarvis(home, ['init', '--path', 'named.toml']),
    ]);
    expect(env.stdout).toContain(`Wrote the starter config: ${viaEnv}`);
    expect(path.stdout).toContain(`Wrote the starter config: ${join(home, 'named.toml')}`);
    expect(path.stdout).toContain(`jarvis ask --config ${join(home, 'named.toml')} "Hello"`);
    expect(existsSync(viaEnv) && existsSync(join(home, 'named.toml'))).toBe(true);
  });
});
