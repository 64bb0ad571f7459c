import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODEL_CATALOG } from '../engine/index.js';
import { createTinyGguf, type ScriptedModelHub, startScriptedModelHub } from '../testing/index.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

function capture(isTTY: boolean) {
  const stream = {
    text: '',
    isTTY,
    columns: 80,
    write(text: string) {
      stream.text += text;
    },
  };
  return stream;
}

/** An io on a terminal (stdin answers `answer`) or piped, with its own home and the hub as HF_ENDPOINT. */
function cliIo(home: string, hubUrl: string, terminal: { answer: string } | undefined) {
  const stdin = Object.assign(new PassThrough(), { isTTY: terminal !== undefined });
  if (terminal === undefined) stdin.end();
  else stdin.write(terminal.answer);
  const stdout = capture(false);
  const stderr = capture(terminal !== undefined);
  const io: CliIo = {
    stdout,
    stderr,
    stdin,
    env: { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis'), HF_ENDPOINT: hubUrl },
    cwd: home,
    signal: new AbortController().signal,
  };
  return { io, stdout, stderr };
}

const ASK = ['ask', '--no-stream', '--max-tokens', '8', 'Hello'];

describe('the first run of jarvis ask (no engine, no model)', () => {
  let home: string;
  let hub: ScriptedModelHub;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'jarvis-first-run-'));
    // Every catalog entry is served (the tiny model under its name): which one is offered depends on the machine.
    const content = createTinyGguf();
    hub = await startScriptedModelHub({
      files: MODEL_CATALOG.map((model) => ({
        repository: model.repository,
        path: model.file,
        content,
      })),
    });
  });

  afterEach(async () => {
    await hub.close();
    await rm(home, { recursive: true, force: true });
  });

  const modelFiles = async () =>
    (await readdir(join(home, '.openjarvis', 'models')).catch(() => [])).filter((name) =>
      name.endsWith('.gguf'),
    );

  it('offers the recommended model on a terminal, downloads it on yes, and answers with it', async () => {
    const { io, stderr } = cliIo(home, hub.url, { answer: 'y\n' });
    const code = await runCli(ASK, io);
    expect(stderr.text).toContain('No inference engine is running and no model is downloaded.');
    expect(stderr.text).toMatch(
      /Download qwen3-[\d.]+b \(about [\d.]+ [MG]B, licence apache-2\.0\), recommended for this machine \([\d.]+ GB RAM .*\), and answer with it here\? \[y\/N\]/,
    );
    expect(code).toBe(0);
    const files = await modelFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^hf_Qwen_Qwen3-.*\.gguf$/);

    // The next question finds the model and asks nothing.
    const again = cliIo(home, hub.url, { answer: '' });
    const requests = hub.requests.length;
    expect(await runCli(ASK, again.io)).toBe(0);
    expect(again.stderr.text).not.toContain('Download');
    expect(hub.requests.length).toBe(requests);
    // Two runs of the real embedded engine, the first loading llama.cpp: about 9 s alone, over 20 s in a busy suite.
  }, 60_000);

  it('on no, downloads nothing and exits 1 with the command that fixes it', async () => {
    const { io, stderr } = cliIo(home, hub.url, { answer: 'n\n' });
    expect(await runCli(ASK, io)).toBe(1);
    expect(stderr.text).toMatch(/ {2}jarvis models pull qwen3-[\d.]+b\n/);
    expect(hub.requests).toEqual([]);
    expect(await modelFiles()).toEqual([]);
  });

  it('without a terminal and without --yes, exits 1 with the command that fixes it', async () => {
    const { io, stdout, stderr } = cliIo(home, hub.url, undefined);
    expect(await runCli(ASK, io)).toBe(1);
    expect(stderr.text).toContain('No inference engine is running and no model is downloaded.');
    expect(stderr.text).toMatch(/ {2}jarvis models pull qwen3-[\d.]+b\n/);
    expect(stderr.text).toContain('add --yes');
    expect(stdout.text).toBe('');
    expect(hub.requests).toEqual([]);
  });

  it('with --yes and no terminal, downloads without asking and answers', async () => {
    const { io, stderr } = cliIo(home, hub.url, undefined);
    expect(await runCli(['ask', '--yes', ...ASK.slice(1)], io)).toBe(0);
    expect(stderr.text).toMatch(
      /no model is downloaded: downloading qwen3-[\d.]+b \(about .*\), recommended for this machine/,
    );
    expect(stderr.text).not.toContain('[y/N]');
    expect(await modelFiles()).toHaveLength(1);
    // A pull and an embedded answer, like the first test: the same time limit.
  }, 60_000);

  it('jarvis init without a terminal names the pull command as a next step, and downloads nothing', async () => {
    const { io, stdout } = cliIo(home, hub.url, undefined);
    expect(await runCli(['init'], io)).toBe(0);
    expect(stdout.text).toContain(
      '  - no engine answers and no model is downloaded: `jarvis models pull qwen3-1.7b`',
    );
    expect(hub.requests).toEqual([]);
  });

  it('jarvis init on a terminal offers the model; accepted, the next steps no longer name it', async () => {
    const { io, stdout, stderr } = cliIo(home, hub.url, { answer: 'yes\n' });
    expect(await runCli(['init'], io)).toBe(0);
    expect(stderr.text).toMatch(/Download qwen3-[\d.]+b .*, to use it\? \[y\/N\]/);
    expect(stdout.text).toMatch(/^Wrote the starter config: .*config\.toml\n/);
    expect(stdout.text).not.toContain('jarvis models pull');
    expect(await modelFiles()).toHaveLength(1);
  });
});
