import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  createTinyGguf,
  type ScriptedModelHub,
  startScriptedModelHub,
} from '../../src/testing/index.js';
import { BUILT_CLI } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const REPO = 'tiny/Tiny-GGUF';
const FILE = 'tiny-Q8_0.gguf';
const GGUF = createTinyGguf();
/** node-llama-cpp names files of `hf:` URIs `hf_<owner>_<file>`. */
const LOCAL = `hf_tiny_${FILE}`;

/**
 * Every test here runs the built CLI in one or more processes, and a pull alone costs about 1.5-1.8 s of CPU
 * (most of it importing node-llama-cpp, whose downloader it uses), an embedded answer about 4 s: on a machine
 * running 15-20 processes at once the default 20 s was exceeded by tests that do not wait on anything.
 */
const PROCESS_TEST_TIMEOUT_MS = 60_000;
/** The CLI answering with the embedded engine is killed after this, before the test's own timeout. */
const EMBEDDED_CLI_TIMEOUT_MS = 50_000;

const homes: string[] = [];
let hub: ScriptedModelHub | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

afterAll(async () => {
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

async function freshHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-models-'));
  homes.push(home);
  return home;
}

/** Runs the built `jarvis` with a temp HOME and OPENJARVIS_HOME, and the hub (when started) as HF_ENDPOINT. */
function jarvis(home: string, args: readonly string[], timeoutMs = 30_000): Promise<CliRun> {
  return runCli(args, {
    cwd: home,
    env: {
      HOME: home,
      OPENJARVIS_HOME: join(home, '.openjarvis'),
      ...(hub === undefined ? {} : { HF_ENDPOINT: hub.url }),
    },
    timeoutMs,
  });
}

describe('jarvis models pull and rm in a real process', {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  // One home for the pull, the pull again and the embedded answer: each pull process costs 1.5-2 s of CPU
  // (importing node-llama-cpp), so the answer uses this pull rather than a pull of its own.
  it('pulls a GGUF from the hub into the models folder and prints its path and size; jarvis ask --engine embedded answers through the pulled file', {
    timeout: PROCESS_TEST_TIMEOUT_MS + EMBEDDED_CLI_TIMEOUT_MS,
  }, async () => {
    hub = await startScriptedModelHub({ files: [{ repository: REPO, path: FILE, content: GGUF }] });
    const home = await freshHome();
    const modelsDir = join(home, '.openjarvis', 'models');

    const run = await jarvis(home, ['models', 'pull', `hf:${REPO}/${FILE}`]);

    expect(run.stderr).toContain(`Pulling hf:${REPO}/${FILE} into ${modelsDir}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${join(modelsDir, LOCAL)} {2}\\d+(\\.\\d)? kB\\n$`));
    expect(new Uint8Array(await readFile(join(modelsDir, LOCAL)))).toEqual(GGUF);
    expect(hub.requests.some((request) => request.path.includes(FILE))).toBe(true);

    const again = await jarvis(home, ['models', 'pull', `hf:${REPO}/${FILE}`]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('(already there)');

    const answer = await jarvis(
      home,
      ['ask', '--engine', 'embedded', '--max-tokens', '8', '--json', 'Hello'],
      EMBEDDED_CLI_TIMEOUT_MS,
    );
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    const result = JSON.parse(answer.stdout) as { engine: string; model: string };
    expect(result.engine).toBe('embedded');
    expect(result.model).toBe(LOCAL.replace(/\.gguf$/, ''));
    // The answer: about 4 s of CPU (importing node-llama-cpp ~1.1 s, its check of the binary in a child process
    // ~1.1 s, the model and the answer): 20-32 s of wall time on a loaded machine, hence the longer limit.
  });

  it('two pulls of one model in two processes download it once', async () => {
    const big = createTinyGguf({ embeddingLength: 512, feedForwardLength: 1024 });
    hub = await startScriptedModelHub({ files: [{ repository: REPO, path: FILE, content: big }] });
    const home = await freshHome();
    const [a, b] = await Promise.all([
      jarvis(home, ['models', 'pull', `hf:${REPO}/${FILE}`]),
      jarvis(home, ['models', 'pull', `hf:${REPO}/${FILE}`]),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    // Downloaded once: a fresh pull fetches the whole file as one ranged GET (one connection, in order).
    expect(hub.rangedGets(FILE)).toBe(1);
    expect([a.stdout, b.stdout].filter((out) => out.includes('(already there)'))).toHaveLength(1);
    const modelsDir = join(home, '.openjarvis', 'models');
    expect(await readdir(modelsDir)).toEqual(['.partial', LOCAL]);
    expect(await readdir(join(modelsDir, '.partial'))).toEqual([]);
  });

  it('Ctrl-C during a pull exits 130 leaving no model file, and the same pull then completes', async () => {
    hub = await startScriptedModelHub({ files: [{ repository: REPO, path: FILE, content: GGUF }] });
    hub.stallBodies(1_000);
    const home = await freshHome();
    const modelsDir = join(home, '.openjarvis', 'models');
    const child = spawn(process.execPath, [BUILT_CLI, 'models', 'pull', `hf:${REPO}/${FILE}`], {
      cwd: home,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        OPENJARVIS_HOME: join(home, '.openjarvis'),
        HF_ENDPOINT: hub.url,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const server = hub;
    await vi.waitFor(() => expect(server.rangedGets(FILE)).toBeGreaterThan(0), {
      timeout: 15_000,
    });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain(
      'Pull stopped; what was downloaded is kept: run the same pull again to resume.',
    );
    expect((await readdir(modelsDir)).filter((name) => name.endsWith('.gguf'))).toEqual([]);

    hub.stallBodies(undefined);
    const again = await jarvis(home, ['models', 'pull', `hf:${REPO}/${FILE}`]);
    expect(again.code).toBe(0);
    expect((await stat(join(modelsDir, LOCAL))).size).toBe(GGUF.length);
  });

  it('the first run of jarvis ask --yes downloads the recommended model and answers (no engine running)', async () => {
    const { MODEL_CATALOG } = await import('../../src/engine/index.js');
    hub = await startScriptedModelHub({
      files: MODEL_CATALOG.map((model) => ({
        repository: model.repository,
        path: model.file,
        content: GGUF,
      })),
    });
    const home = await freshHome();
    const run = await jarvis(
      home,
      ['ask', '--yes', '--max-tokens', '8', '--no-stream', 'Hello'],
      EMBEDDED_CLI_TIMEOUT_MS,
    );
    expect(run.stderr).toMatch(/no model is downloaded: downloading qwen3-[\d.]+b/);
    expect(run.code).toBe(0);
    const models = await readdir(join(home, '.openjarvis', 'models'));
    expect(models.filter((name) => name.startsWith('hf_Qwen_Qwen3-'))).toHaveLength(1);
    // A pull and an embedded answer in one process: about 5 s of CPU (see above).
  });

  it('exits 2 for a name that is not in the catalog, listing the catalog names', async () => {
    const home = await freshHome();
    const run = await jarvis(home, ['models', 'pull', 'no-such-model']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no-such-model');
    expect(run.stderr).toContain('qwen3-1.7b');
    expect(run.stdout).toBe('');
  });

  it('removes a model by file name, and refuses paths and unknown names (exit 2)', async () => {
    const home = await freshHome();
    const modelsDir = join(home, '.openjarvis', 'models');
    await mkdir(modelsDir, { recursive: true });
    await writeFile(join(modelsDir, 'a.gguf'), GGUF);
    await writeFile(join(modelsDir, 'b.gguf'), GGUF);
    await writeFile(join(home, 'outside.gguf'), GGUF);

    const unknown = await jarvis(home, ['models', 'rm', 'c.gguf']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('a.gguf, b.gguf');

    const outside = await jarvis(home, ['models', 'rm', '../../outside.gguf']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('not a model name');
    await expect(stat(join(home, 'outside.gguf'))).resolves.toBeTruthy();

    const removed = await jarvis(home, ['models', 'rm', 'a']);
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`Removed ${join(modelsDir, 'a.gguf')}\n`);
    expect(await readdir(modelsDir)).toEqual(['b.gguf']);

    // `--config` after the subcommand names another models folder ([engine.embedded] models_dir).
    const other = join(home, 'gguf');
    await mkdir(other);
    await writeFile(join(other, 'b.gguf'), GGUF);
    await writeFile(
      join(home, 'c.toml'),
      `[engine.embedded]\nmodels_dir = ${JSON.stringify(other)}\n`,
    );
    const configured = await jarvis(home, ['models', 'rm', 'b.gguf', '--config', 'c.toml']);
    expect(configured.code).toBe(0);
    expect(await readdir(other)).toEqual([]);
    expect(await readdir(modelsDir)).toEqual(['b.gguf']);
  });
});
