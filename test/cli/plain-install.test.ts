import { chmod, cp, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTinyGguf,
  type ScriptedModelHub,
  startScriptedModelHub,
} from '../../src/testing/index.js';
import { TEST_BUILD } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const REPO_MODULES = resolve(dirname(fileURLToPath(import.meta.url)), '../../node_modules');
const REPO = 'tiny/Tiny-GGUF';
const FILE = 'tiny-Q8_0.gguf';
const LEFT_OUT = new Set(['node-llama-cpp', '@node-llama-cpp', '.bin', '.package-lock.json']);

let app = '';
let hub: ScriptedModelHub;

/**
 * A copy of the built package in a folder of its own whose node_modules has every package of the repo except
 * node-llama-cpp: what `npm install openjarvis` leaves, since node-llama-cpp is an optional peer.
 */
beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'jarvis-plain-install-'));
  await cp(join(TEST_BUILD, 'dist'), join(app, 'dist'), { recursive: true });
  await cp(join(TEST_BUILD, 'package.json'), join(app, 'package.json'));
  await mkdir(join(app, 'node_modules'));
  for (const name of await readdir(REPO_MODULES)) {
    if (LEFT_OUT.has(name)) continue;
    await symlink(join(REPO_MODULES, name), join(app, 'node_modules', name));
  }
  // npm, as far as this test needs it: "installs" into --prefix by linking the repo's node-llama-cpp there.
  await mkdir(join(app, 'bin'));
  await writeFile(
    join(app, 'bin', 'npm'),
    `#!/bin/sh
prefix=''; previous=''
for arg in "$@"; do
  if [ "$previous" = '--prefix' ]; then prefix="$arg"; fi
  previous="$arg"
done
mkdir -p "$prefix/node_modules/@node-llama-cpp"
ln -sfn '${REPO_MODULES}/node-llama-cpp' "$prefix/node_modules/node-llama-cpp"
for binary in '${REPO_MODULES}'/@node-llama-cpp/*; do
  ln -sfn "$binary" "$prefix/node_modules/@node-llama-cpp/$(basename "$binary")"
done
`,
  );
  await chmod(join(app, 'bin', 'npm'), 0o755);
  hub = await startScriptedModelHub({
    files: [{ repository: REPO, path: FILE, content: createTinyGguf() }],
  });
});

afterAll(async () => {
  await hub?.close();
  await rm(app, { recursive: true, force: true });
});

function jarvis(args: readonly string[]): Promise<CliRun> {
  return runCli(args, {
    cli: join(app, 'dist', 'bin', 'jarvis.js'),
    cwd: app,
    env: {
      HOME: app,
      OPENJARVIS_HOME: join(app, 'home'),
      HF_ENDPOINT: hub.url,
      PATH: `${join(app, 'bin')}:${process.env.PATH ?? ''}`,
    },
    timeoutMs: 60_000,
  });
}

describe('a plain install without node-llama-cpp', () => {
  it('reaches the embedded engine: the first pull installs the runtime into the home, then it answers', async () => {
    const before = await jarvis(['ask', '--engine', 'embedded', 'Hello']);
    expect(before.code).toBe(1);
    expect(before.stderr).toMatch(/\n {2}jarvis models pull qwen3-[\d.]+b\n/);

    const pull = await jarvis(['models', 'pull', `hf:${REPO}/${FILE}`]);
    expect(pull.stderr).toContain(
      `The embedded runtime is not installed yet: installing it first (node-llama-cpp 3.21.1`,
    );
    expect(pull.code).toBe(0);
    expect(
      (await stat(join(app, 'home', 'runtime', 'node_modules', 'node-llama-cpp'))).isDirectory(),
    ).toBe(true);

    const ask = await jarvis([
      'ask',
      '--engine',
      'embedded',
      '--max-tokens',
      '8',
      '--json',
      'Hello',
    ]);
    expect(ask.stderr).toBe('');
    expect(ask.code).toBe(0);
    expect((JSON.parse(ask.stdout) as { engine: string }).engine).toBe('embedded');

    const again = await jarvis(['models', 'pull', `hf:${REPO}/${FILE}`]);
    expect(again.stderr).not.toContain('installing it first');
    expect(again.stdout).toContain('(already there)');
  });
});
