import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EMBEDDED_RUNTIME_VERSION,
  EmbeddedRuntimeError,
  embeddedRuntimeDir,
  embeddedRuntimePackages,
  embeddedRuntimePlan,
  hasNvidiaDriver,
  installEmbeddedRuntime,
  type RunCommand,
  type RunCommandOptions,
  spawnCommand,
} from './embedded-runtime.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const V = EMBEDDED_RUNTIME_VERSION;

let dir: string;

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'jarvis-runtime-')), 'runtime');
});

afterEach(async () => {
  await rm(dirname(dir), { recursive: true, force: true });
});

describe('EMBEDDED_RUNTIME_VERSION', () => {
  it('is the node-llama-cpp version of package.json (dev and peer dependency)', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies['node-llama-cpp']).toBe(EMBEDDED_RUNTIME_VERSION);
    expect(manifest.peerDependencies['node-llama-cpp']).toBe(EMBEDDED_RUNTIME_VERSION);
  });

  it('lives in <home>/runtime', () => {
    expect(embeddedRuntimeDir('/h/.openjarvis')).toBe(join('/h/.openjarvis', 'runtime'));
  });
});

describe('embeddedRuntimePackages', () => {
  it.each([
    ['linux', 'x64', 'linux-x64'],
    ['linux', 'arm64', 'linux-arm64'],
    ['linux', 'arm', 'linux-armv7l'],
    ['linux', 'riscv64', 'linux-riscv64'],
    ['darwin', 'arm64', 'mac-arm64-metal'],
    ['darwin', 'x64', 'mac-x64'],
    ['win32', 'x64', 'win-x64'],
    ['win32', 'arm64', 'win-arm64'],
  ])(
    '%s %s on the CPU: node-llama-cpp and @node-llama-cpp/%s, pinned',
    (platform, arch, binary) => {
      expect(embeddedRuntimePackages({ platform, arch, gpu: 'cpu' })).toEqual([
        `node-llama-cpp@${V}`,
        `@node-llama-cpp/${binary}@${V}`,
      ]);
    },
  );

  it('cuda adds the CUDA builds and vulkan the Vulkan build (linux and win32 x64)', () => {
    expect(embeddedRuntimePackages({ platform: 'linux', arch: 'x64', gpu: 'cuda' })).toEqual([
      `node-llama-cpp@${V}`,
      `@node-llama-cpp/linux-x64@${V}`,
      `@node-llama-cpp/linux-x64-cuda@${V}`,
      `@node-llama-cpp/linux-x64-cuda-ext@${V}`,
    ]);
    expect(embeddedRuntimePackages({ platform: 'win32', arch: 'x64', gpu: 'vulkan' })).toEqual([
      `node-llama-cpp@${V}`,
      `@node-llama-cpp/win-x64@${V}`,
      `@node-llama-cpp/win-x64-vulkan@${V}`,
    ]);
  });

  it('auto is CUDA only with an NVIDIA driver and CUDA builds for the platform', () => {
    const linux = { platform: 'linux', arch: 'x64', gpu: 'auto' } as const;
    expect(embeddedRuntimePlan({ ...linux, hasNvidiaDriver: true }).build).toBe('cuda');
    expect(embeddedRuntimePlan({ ...linux, hasNvidiaDriver: false }).packages).toHaveLength(2);
    expect(embeddedRuntimePlan({ ...linux, arch: 'arm64', hasNvidiaDriver: true }).build).toBe(
      'cpu',
    );
    const mac = embeddedRuntimePlan({ platform: 'darwin', arch: 'arm64', hasNvidiaDriver: true });
    expect(mac.build).toBe('metal');
    expect(mac.approximateMegabytes).toBe(80);
    expect(embeddedRuntimePlan({ ...linux, hasNvidiaDriver: true }).approximateMegabytes).toBe(645);
  });

  it('an unsupported platform, GPU build or choice is invalid_argument naming what is supported', () => {
    const failure = (target: Parameters<typeof embeddedRuntimePlan>[0]) => {
      try {
        embeddedRuntimePlan(target);
      } catch (error) {
        return error as EmbeddedRuntimeError;
      }
      throw new Error('no error');
    };
    const freebsd = failure({ platform: 'freebsd', arch: 'x64' });
    expect(freebsd).toBeInstanceOf(EmbeddedRuntimeError);
    expect(freebsd.code).toBe('invalid_argument');
    expect(freebsd.message).toContain('freebsd-x64');
    expect(freebsd.message).toContain('linux-x64, linux-arm64');
    expect(failure({ platform: 'darwin', arch: 'arm64', gpu: 'cuda' }).message).toContain(
      'linux-x64 and win32-x64',
    );
    expect(failure({ platform: 'linux', arch: 'x64', gpu: 'rocm' as 'cpu' }).message).toContain(
      'auto, cpu, cuda, vulkan',
    );
  });

  it('finds the NVIDIA driver by /proc/driver/nvidia/version on Linux only', () => {
    const seen: string[] = [];
    const exists = (path: string) => {
      seen.push(path);
      return true;
    };
    expect(hasNvidiaDriver('linux', exists)).toBe(true);
    expect(seen).toEqual(['/proc/driver/nvidia/version']);
    expect(hasNvidiaDriver('linux', () => false)).toBe(false);
    expect(hasNvidiaDriver('darwin', exists)).toBe(false);
  });
});

interface Call {
  readonly command: string;
  readonly args: readonly string[];
  readonly options: RunCommandOptions;
}

/** A fake npm: records its call, prints `lines`, "installs" node-llama-cpp at `version` and exits `exitCode`. */
function fakeNpm(
  calls: Call[],
  behaviour: {
    lines?: readonly string[];
    exitCode?: number;
    version?: string;
    binary?: boolean;
  } = {},
): RunCommand {
  return async (command, args, options) => {
    calls.push({ command, args, options });
    for (const line of behaviour.lines ?? ['added 139 packages in 14s']) options.onLine(line);
    const modules = join(options.cwd, 'node_modules');
    if (behaviour.version !== undefined) {
      await mkdir(join(modules, 'node-llama-cpp'), { recursive: true });
      await writeFile(
        join(modules, 'node-llama-cpp', 'package.json'),
        JSON.stringify({ version: behaviour.version }),
      );
    }
    if (behaviour.binary !== false) {
      await mkdir(join(modules, '@node-llama-cpp', 'linux-x64'), { recursive: true });
      await writeFile(
        join(modules, '@node-llama-cpp', 'linux-x64', 'package.json'),
        `{"version":"${V}"}`,
      );
    }
    return { exitCode: behaviour.exitCode ?? 0, signal: null };
  };
}

const LINUX = { platform: 'linux', arch: 'x64', gpu: 'cpu' } as const;

async function installFailure(promise: Promise<unknown>): Promise<EmbeddedRuntimeError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(EmbeddedRuntimeError);
  return error as EmbeddedRuntimeError;
}

describe('installEmbeddedRuntime', () => {
  it('runs npm install into dir with the pinned packages and the exact flags, and checks the result', async () => {
    const calls: Call[] = [];
    const output: string[] = [];
    let now = 1000;
    const installed = await installEmbeddedRuntime({
      ...LINUX,
      dir,
      runCommand: fakeNpm(calls, { version: V, lines: ['npm \u001b[31mhttp\u001b[0m fetch', ''] }),
      onOutput: (line) => output.push(line),
      clock: { nowMs: () => 0, monotonicMs: () => (now += 7_250) },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.command).toBe('npm');
    expect(calls[0]?.options.cwd).toBe(dir);
    expect(calls[0]?.args).toEqual([
      'install',
      '--prefix',
      dir,
      '--save-exact',
      '--omit=optional',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      `node-llama-cpp@${V}`,
      `@node-llama-cpp/linux-x64@${V}`,
    ]);
    expect(installed).toMatchObject({ dir, binary: 'linux-x64', build: 'cpu', seconds: 7.3 });
    expect(installed.packages).toEqual(calls[0]?.args.slice(8));
    expect(output).toEqual(['npm ^[[31mhttp^[[0m fetch']);
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))).toEqual({
      private: true,
      dependencies: {},
    });
  });

  it('uses npm.cmd through the shell on Windows', async () => {
    const calls: Call[] = [];
    await installEmbeddedRuntime({
      platform: 'win32',
      arch: 'x64',
      gpu: 'cpu',
      dir,
      runCommand: async (command, args, options) => {
        calls.push({ command, args, options });
        const modules = join(dir, 'node_modules');
        await mkdir(join(modules, 'node-llama-cpp'), { recursive: true });
        await writeFile(join(modules, 'node-llama-cpp', 'package.json'), `{"version":"${V}"}`);
        await mkdir(join(modules, '@node-llama-cpp', 'win-x64'), { recursive: true });
        await writeFile(
          join(modules, '@node-llama-cpp', 'win-x64', 'package.json'),
          `{"version":"${V}"}`,
        );
        return { exitCode: 0, signal: null };
      },
    });
    expect(calls[0]?.command).toBe('npm.cmd');
    expect(calls[0]?.options.shell).toBe(true);
  });

  it('keeps a package.json of its own but drops earlier runtime packages (npm then removes them)', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({
        dependencies: {
          'node-llama-cpp': '3.0.0',
          '@node-llama-cpp/linux-x64-cuda': '3.0.0',
          'left-pad': '1.0.0',
        },
      }),
    );
    await installEmbeddedRuntime({ ...LINUX, dir, runCommand: fakeNpm([], { version: V }) });
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))).toEqual({
      private: true,
      dependencies: { 'left-pad': '1.0.0' },
    });
  });

  it('npm missing (ENOENT) says npm is needed and how to install node-llama-cpp instead', async () => {
    const missing: RunCommand = () =>
      Promise.reject(Object.assign(new Error('spawn npm ENOENT'), { code: 'ENOENT' }));
    const error = await installFailure(
      installEmbeddedRuntime({ ...LINUX, dir, runCommand: missing }),
    );
    expect(error.failure).toBe('npm_not_found');
    expect(error.message).toContain('needs npm');
    expect(error.message).toContain(`npm install node-llama-cpp@${V}`);
  });

  it('a failing npm gives its exit code and its last ten lines', async () => {
    const lines = Array.from({ length: 15 }, (_, index) => `npm error line ${index + 1}`);
    const error = await installFailure(
      installEmbeddedRuntime({ ...LINUX, dir, runCommand: fakeNpm([], { lines, exitCode: 1 }) }),
    );
    expect(error.failure).toBe('npm_failed');
    expect(error.code).toBe('engine_not_found');
    expect(error.message).toContain('exited with code 1');
    expect(error.message).toContain('npm error line 15');
    expect(error.message).toContain('npm error line 6\n');
    expect(error.message).not.toContain('npm error line 5\n');
    expect(error.message).toContain('jarvis engines install embedded');
  });

  it('an npm that exits 0 without node-llama-cpp (or another version, or no binary) (or a GPU build) is an incomplete install', async () => {
    const none = await installFailure(
      installEmbeddedRuntime({ ...LINUX, dir, runCommand: fakeNpm([]) }),
    );
    expect(none.failure).toBe('incomplete_install');
    expect(none.message).toContain(join(dir, 'node_modules', 'node-llama-cpp'));
    const old = await installFailure(
      installEmbeddedRuntime({ ...LINUX, dir, runCommand: fakeNpm([], { version: '3.0.0' }) }),
    );
    expect(old.message).toContain(`version 3.0.0, not ${V}`);
    await rm(dir, { recursive: true });
    const noBinary = await installFailure(
      installEmbeddedRuntime({
        ...LINUX,
        dir,
        runCommand: fakeNpm([], { version: V, binary: false }),
      }),
    );
    expect(noBinary.message).toContain(join('@node-llama-cpp', 'linux-x64'));
    const noCuda = await installFailure(
      installEmbeddedRuntime({
        ...LINUX,
        gpu: 'cuda',
        dir,
        runCommand: fakeNpm([], { version: V }),
      }),
    );
    expect(noCuda.message).toContain(
      `${join(dir, 'node_modules', '@node-llama-cpp', 'linux-x64-cuda')} is missing`,
    );
  });

  it('an abort during npm rejects with the signal reason and hands npm the signal', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    let received: AbortSignal | undefined;
    const runCommand: RunCommand = async (_command, _args, options) => {
      received = options.signal;
      controller.abort(reason);
      return { exitCode: null, signal: 'SIGTERM' };
    };
    const promise = installEmbeddedRuntime({
      ...LINUX,
      dir,
      runCommand,
      signal: controller.signal,
    });
    await expect(promise).rejects.toBe(reason);
    expect(received).toBe(controller.signal);
  });
});

describe('spawnCommand', () => {
  it('streams stdout and stderr lines (and a last unterminated one) and reports the exit code', async () => {
    const lines: string[] = [];
    const exit = await spawnCommand(
      process.execPath,
      [
        '-e',
        "console.log('a\\nb'); console.error('c'); process.stdout.write('d'); process.exit(3)",
      ],
      { cwd: tmpdir(), onLine: (line) => lines.push(line) },
    );
    expect(exit).toEqual({ exitCode: 3, signal: null });
    expect([...lines].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('kills the process when the signal aborts', async () => {
    const controller = new AbortController();
    const exit = await spawnCommand(
      process.execPath,
      ['-e', "console.log('ready'); setInterval(() => {}, 1000)"],
      { cwd: tmpdir(), onLine: () => controller.abort(), signal: controller.signal },
    );
    expect(exit).toEqual({ exitCode: null, signal: 'SIGTERM' });
  });

  it('rejects with ENOENT when the command does not exist', async () => {
    await expect(
      spawnCommand(join(tmpdir(), 'no-such-npm-here'), [], {
        cwd: tmpdir(),
        onLine: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
