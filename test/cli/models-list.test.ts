import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTinyGguf,
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../src/testing/index.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const CHATML = createTinyGguf({ contextLength: 8192 });
const PLAIN = createTinyGguf({ chatTemplate: null, embeddingLength: 32 });

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

async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-models-list-'));
  homes.push(home);
  return home;
}

function modelsDirOf(home: string): string {
  return join(home, '.openjarvis', 'models');
}

/** A home whose models folder holds two GGUF files, a text file named `.gguf` and a partial download. */
async function homeWithModels(): Promise<string> {
  const home = await tempHome();
  const dir = modelsDirOf(home);
  await mkdir(join(dir, '.partial'), { recursive: true });
  await writeFile(join(dir, 'Qwen3-1.7B-Q8_0.gguf'), CHATML);
  await writeFile(join(dir, 'plain.gguf'), PLAIN);
  await writeFile(join(dir, 'x.gguf'), 'not a model\n');
  await writeFile(join(dir, '.partial', 'half.gguf'), CHATML.slice(0, 1000));
  await writeFile(join(dir, 'notes.txt'), 'hello\n');
  return home;
}

/**
 * A config where the default engine is Ollama at an address nothing listens on, and the models folder is
 * another one (`[engine.embedded] models_dir`) holding a file whose name has a newline and an escape.
 */
async function ollamaDownConfig(home: string, withModels: boolean): Promise<string> {
  const other = join(home, 'gguf');
  await mkdir(other);
  if (withModels) {
    await writeFile(join(other, 'a.gguf'), PLAIN);
    await writeFile(join(other, 'evil\u001b[31m\nname.gguf'), PLAIN);
  }
  const file = join(home, 'down.toml');
  await writeFile(
    file,
    `[engine]\ndefault = "ollama"\n\n[engine.ollama]\nhost = "${closedUrl}"\n\n` +
      `[engine.embedded]\nmodels_dir = ${JSON.stringify(other)}\n`,
  );
  return file;
}

function jarvis(home: string, args: readonly string[]): Promise<CliRun> {
  return runCli(args, {
    cwd: home,
    env: { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') },
    timeoutMs: 60_000,
  });
}

/** The table's lines as cells (split on runs of two or more spaces). */
function cells(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
}

describe('jarvis models with local GGUF files', { timeout: 60_000 }, () => {
  it("lists the local files after the engine's models, with metadata read from each file; --json too", async () => {
    const home = await homeWithModels();
    const [run, json] = await Promise.all([
      jarvis(home, ['models', '--base-url', server.baseUrl]),
      jarvis(home, ['models', '--base-url', server.baseUrl, '--json']),
    ]);

    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Models of openai at ${server.baseUrl}`);
    expect(run.stderr).toContain(`Local GGUF files in ${modelsDirOf(home)}:\n`);
    const [first, second, ...table] = cells(run.stdout);
    expect([first, second]).toEqual([['m1'], ['m2']]);
    expect(table).toEqual([
      ['FILE', 'SIZE', 'QUANT', 'CONTEXT', 'TEMPLATE'],
      ['Qwen3-1.7B-Q8_0.gguf', expect.stringMatching(/^\d+\.\d kB$/), 'F32', '8192', 'chatML'],
      ['plain.gguf', expect.stringMatching(/kB$/), 'F32', '4096', 'general (no template in file)'],
      [
        'x.gguf',
        '12 B',
        '-',
        '-',
        '! not a GGUF file (it does not start with the GGUF magic bytes)',
      ],
    ]);

    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({
      engine: 'openai',
      address: server.baseUrl,
      models: ['m1', 'm2'],
    });
    expect(parsed.local).toEqual([
      {
        file: 'Qwen3-1.7B-Q8_0.gguf',
        path: join(modelsDirOf(home), 'Qwen3-1.7B-Q8_0.gguf'),
        size_bytes: CHATML.length,
        name: 'tiny-random-llama',
        architecture: 'llama',
        quantization: 'F32',
        context_length: 8192,
        chat_template: 'chatML',
        template_in_file: true,
      },
      expect.objectContaining({
        file: 'plain.gguf',
        size_bytes: PLAIN.length,
        template_in_file: false,
      }),
      {
        file: 'x.gguf',
        path: join(modelsDirOf(home), 'x.gguf'),
        size_bytes: 12,
        problem: 'not a GGUF file (it does not start with the GGUF magic bytes)',
      },
    ]);
  });

  it('an engine that is down is a warning when local files are there (exit 0); names print as one safe line', async () => {
    const home = await tempHome();
    const config = await ollamaDownConfig(home, true);
    const [text, json] = await Promise.all([
      jarvis(home, ['models', '--config', config, '--base-url', closedUrl]),
      jarvis(home, ['models', '--config', config, '--base-url', closedUrl, '--json']),
    ]);

    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/^warning: .*\(listing the local GGUF files only\)$/m);
    expect(text.stderr).toContain(`Local GGUF files in ${join(home, 'gguf')}:`);
    expect(text.stdout).not.toContain('\u001b');
    const rows = cells(text.stdout);
    expect(rows.map((row) => row[0])).toEqual([
      'FILE',
      'a.gguf',
      expect.stringMatching(/^evil.*name\.gguf$/),
    ]);
    expect(rows[2]?.slice(2)).toEqual(['F32', '4096', 'general (no template in file)']);

    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ engine: null, address: null, models: [] });
    expect(parsed.problem).toEqual(expect.any(String));
    expect(parsed.local.map((model: { file: string }) => model.file)).toEqual([
      'a.gguf',
      'evil\u001b[31m\nname.gguf',
    ]);
  });

  it('with no local file and no engine the failure stands, after the line naming the recommended pull', async () => {
    const home = await tempHome();
    const run = await jarvis(home, ['models', '--config', await ollamaDownConfig(home, false)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `No GGUF files in ${join(home, 'gguf')}: \`jarvis models pull qwen3-1.7b\` downloads the recommended one.\n`,
    );
  });

  it('with no local file and an engine, one stderr line says how to get one', async () => {
    const home = await tempHome();
    const run = await jarvis(home, ['models', '--base-url', server.baseUrl]);
    expect(run).toMatchObject({ code: 0, stdout: 'm1\nm2\n' });
    expect(run.stderr).toContain('`jarvis models pull qwen3-1.7b`');
  });

  it('--engine ollama or openai lists only that engine; --engine embedded lists the files too', async () => {
    const home = await tempHome();
    await mkdir(modelsDirOf(home), { recursive: true });
    await writeFile(join(modelsDirOf(home), 'Qwen3-1.7B-Q8_0.gguf'), PLAIN);
    const [openai, embedded] = await Promise.all([
      jarvis(home, ['models', '--engine', 'openai', '--base-url', server.baseUrl]),
      jarvis(home, ['models', '--engine', 'embedded']),
    ]);
    expect(openai).toMatchObject({ code: 0, stdout: 'm1\nm2\n' });
    expect(openai.stderr).not.toContain('GGUF');
    expect(embedded.code).toBe(0);
    expect(embedded.stderr).toContain('Models of embedded at');
    expect(embedded.stderr).toContain(`Local GGUF files in ${modelsDirOf(home)}:`);
    expect(embedded.stdout).toContain('Qwen3-1.7B-Q8_0.gguf  ');
  });
});
