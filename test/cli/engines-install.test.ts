import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  EMBEDDED_RUNTIME_VERSION,
  embeddedRuntimePlan,
} from '../../src/system/embedded-runtime.js';
import { BUILT_CLI } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const REPO_MODULES = resolve(dirname(fileURLToPath(import.meta.url)), '../../node_modules');
const PLAN = embeddedRuntimePlan({ gpu: 'cpu' });
const FLAGS = [
  '--save-exact',
  '--omit=optional',
  '--ignore-scripts',
  '--no-audit',
  '--no-fund',
] as const;

const homes: string[] = [];

afterAll(async () => {
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

interface Sandbox {
  readonly home: string;
  readonly runtime: string;
  /** The file the fake npm writes its arguments to, one a line. */
  readonly argvLog: string;
  /** The file the fake npm writes its process id to. */
  readonly pidFile: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * A temp HOME with a fake `npm` first on PATH. Its body runs after it recorded its argv and pid: the default
 * "installs" by linking the repo's node-llama-cpp and the asked-for @node-llama-cpp packages into the prefix.
 */
async function sandbox(body?: string): Promise<Sandbox> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-engines-install-'));
  homes.push(home);
  const bin = join(home, 'bin');
  const argvLog = join(home, 'npm-argv.txt');
  const pidFile = join(home, 'npm-pid.txt');
  await mkdir(bin);
  const script = `#!/bin/sh
printf '%s\\n' "$@" > '${argvLog}'
echo $$ > '${pidFile}'
prefix=''
previous=''
for arg in "$@"; do
  if [ "$previous" = '--prefix' ]; then prefix="$arg"; fi
  previous="$arg"
done
${body ?? INSTALLING_BODY}
`;
  await writeFile(join(bin, 'npm'), script);
  await chmod(join(bin, 'npm'), 0o755);
  return {
    home,
    runtime: join(home, '.openjarvis', 'runtime'),
    argvLog,
    pidFile,
    env: {
      HOME: home,
      OPENJARVIS_HOME: join(home, '.openjarvis'),
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    },
  };
}

/** The fake npm that succeeds: links the real packages of the repo into `<prefix>/node_modules`. */
const INSTALLING_BODY = `echo 'npm http fetch GET 200 https://registry.npmjs.org/node-llama-cpp 12ms'
mkdir -p "$prefix/node_modules/@node-llama-cpp"
ln -sfn '${REPO_MODULES}/node-llama-cpp' "$prefix/node_modules/node-llama-cpp"
for arg in "$@"; do
  case "$arg" in
    @node-llama-cpp/*) name="\${arg%@*}"; ln -sfn "${REPO_MODULES}/$name" "$prefix/node_modules/$name" ;;
  esac
done
echo 'added 139 packages in 2s'`;

function jarvis(box: Sandbox, args: readonly string[]): Promise<CliRun> {
  return runCli(args, { cwd: box.home, env: box.env, timeoutMs: 60_000 });
}

async function recordedArgv(box: Sandbox): Promise<string[]> {
  return (await readFile(box.argvLog, 'utf8')).split('\n').filter((line) => line !== '');
}

describe('jarvis engines install embedded (fake npm on PATH)', () => {
  it('installs node-llama-cpp and the CPU binary into <home>/runtime with npm, then llama.cpp loads', async () => {
    const box = await sandbox();
    const run = await jarvis(box, ['engines', 'install', 'embedded', '--gpu', 'cpu']);

    expect(run.stderr).toContain(
      `Installing the embedded runtime (node-llama-cpp ${EMBEDDED_RUNTIME_VERSION}, llama.cpp CPU build ` +
        `for ${PLAN.binary.replace(/-metal$/, '')}, about 80 MB) into ${box.runtime}\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^llama\.cpp ready \(cpu, prebuilt\) in \d+(\.\d)? s\n$/);
    expect(await recordedArgv(box)).toEqual([
      'install',
      '--prefix',
      box.runtime,
      ...FLAGS,
      `node-llama-cpp@${EMBEDDED_RUNTIME_VERSION}`,
      `@node-llama-cpp/${PLAN.binary}@${EMBEDDED_RUNTIME_VERSION}`,
    ]);
    expect(JSON.parse(await readFile(join(box.runtime, 'package.json'), 'utf8'))).toMatchObject({
      private: true,
    });
    // Quiet by default: npm's own lines are not shown on a pipe.
    expect(run.stderr).not.toContain('added 139 packages');

    const json = await jarvis(box, ['engines', 'install', 'embedded', '--gpu', 'cpu', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      engine: 'embedded',
      dir: box.runtime,
      packages: PLAN.packages,
      build: 'cpu',
      gpu: 'cpu',
      build_type: 'prebuilt',
    });
  }, 120_000);

  it('--verbose shows npm output indented on stderr', async () => {
    const box = await sandbox();
    const run = await jarvis(box, ['--verbose', 'engines', 'install', 'embedded', '--gpu', 'cpu']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('  npm | added 139 packages in 2s\n');
    expect(run.stdout).toContain('llama.cpp ready (cpu, prebuilt)');
  }, 120_000);

  it('a failing npm exits 1 showing its exit code and last lines', async () => {
    const box = await sandbox(
      `i=1
while [ $i -le 15 ]; do echo "npm error line $i" >&2; i=$((i + 1)); done
exit 1`,
    );
    const run = await jarvis(box, ['engines', 'install', 'embedded']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('exited with code 1');
    expect(run.stderr).toContain('  npm error line 15\n');
    expect(run.stderr).toContain('  npm error line 6\n');
    expect(run.stderr).not.toContain('npm error line 5\n');
    expect(run.stdout).toBe('');
    expect(await recordedArgv(box)).toContain(`node-llama-cpp@${EMBEDDED_RUNTIME_VERSION}`);
  });

  it('an engine other than embedded, or a bad --gpu, is a usage error (exit 2) and npm is not run', async () => {
    const box = await sandbox();
    const ollama = await jarvis(box, ['engines', 'install', 'ollama']);
    expect(ollama.code).toBe(2);
    expect(ollama.stderr).toContain("Cannot install 'ollama': only embedded can be installed");
    const gpu = await jarvis(box, ['engines', 'install', 'embedded', '--gpu', 'rocm']);
    expect(gpu.code).toBe(2);
    expect(gpu.stderr).toContain('--gpu must be one of auto, cpu, cuda, vulkan');
    await expect(readFile(box.argvLog, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('Ctrl-C while npm runs kills npm and exits 130', async () => {
    const box = await sandbox(`sleep 30 &
sleeper=$!
trap 'echo TERM > "$prefix/../npm-killed.txt"; kill $sleeper; exit 143' TERM
wait $sleeper`);
    const child = spawn(process.execPath, [BUILT_CLI, 'engines', 'install', 'embedded'], {
      cwd: box.home,
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const exited = new Promise<number | null>((resolvePromise) => child.on('exit', resolvePromise));
    const npmPid = await vi.waitFor(
      async () => {
        const pid = Number((await readFile(box.pidFile, 'utf8')).trim());
        if (!(pid > 0)) throw new Error('npm has not started yet');
        return pid;
      },
      { timeout: 15_000 },
    );
    try {
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('Install stopped; run `jarvis engines install embedded` again');
      expect(() => process.kill(npmPid, 0)).toThrow();
      expect(await readFile(join(box.runtime, '..', 'npm-killed.txt'), 'utf8')).toBe('TERM\n');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      try {
        process.kill(npmPid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
  }, 60_000);
});
