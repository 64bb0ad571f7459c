import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  type Clock,
  JarvisError,
  type JarvisErrorCode,
  safeForTerminal,
  systemClock,
} from '../core/index.js';

/** The node-llama-cpp version `jarvis engines install embedded` installs (the one openjarvis is built against). */
export const EMBEDDED_RUNTIME_VERSION = '3.21.1';

/** Which llama.cpp build to install: `auto` is CUDA when an NVIDIA driver is present, else the CPU build. */
export type EmbeddedRuntimeGpu = 'auto' | 'cpu' | 'cuda' | 'vulkan';

/** The accepted `EmbeddedRuntimeGpu` values, for flag parsing and messages. */
export const EMBEDDED_RUNTIME_GPUS: readonly EmbeddedRuntimeGpu[] = [
  'auto',
  'cpu',
  'cuda',
  'vulkan',
];

/** The machine (and choice) the runtime is installed for. */
export interface EmbeddedRuntimeTarget {
  /** `process.platform` (default the current one). */
  readonly platform?: string;
  /** `process.arch` (default the current one). */
  readonly arch?: string;
  /** Which build (default `auto`). */
  readonly gpu?: EmbeddedRuntimeGpu;
  /** Whether an NVIDIA driver is installed, for `auto` (default `hasNvidiaDriver(platform)`). */
  readonly hasNvidiaDriver?: boolean;
}

/** What will be installed for a target: the npm packages and a description for people. */
export interface EmbeddedRuntimePlan {
  /** The `@node-llama-cpp/<binary>` package of the CPU (or Metal) build, e.g. `linux-x64`. */
  readonly binary: string;
  /** The build the GPU choice resolved to (`metal` is the Apple silicon binary, chosen by `cpu` or `auto`). */
  readonly build: 'cpu' | 'metal' | 'cuda' | 'vulkan';
  /** The npm package specs, node-llama-cpp first, every one pinned to `EMBEDDED_RUNTIME_VERSION`. */
  readonly packages: readonly string[];
  /** About how much disk the installed runtime takes, in megabytes (measured on linux-x64). */
  readonly approximateMegabytes: number;
}

/** The CPU (or Metal) binary package of each supported `platform-arch`. */
const BINARIES: Readonly<Record<string, string>> = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'linux-arm': 'linux-armv7l',
  'linux-riscv64': 'linux-riscv64',
  'darwin-arm64': 'mac-arm64-metal',
  'darwin-x64': 'mac-x64',
  'win32-x64': 'win-x64',
  'win32-arm64': 'win-arm64',
};

/** Installed size in MB of node-llama-cpp with the CPU binary, and what each GPU build adds (linux-x64). */
const BASE_MEGABYTES = 80;
const GPU_MEGABYTES = { cuda: 565, vulkan: 85 } as const;

/** The folder the embedded runtime is installed into: `<home>/runtime` (an npm prefix). */
export function embeddedRuntimeDir(home: string): string {
  return join(home, 'runtime');
}

/** Whether an NVIDIA driver is installed (Linux: `/proc/driver/nvidia/version`; elsewhere not detected). */
export function hasNvidiaDriver(
  platform: string = process.platform,
  exists: (path: string) => boolean = existsSync,
): boolean {
  return platform === 'linux' && exists('/proc/driver/nvidia/version');
}

/** The packages and build to install for `target`; an unsupported platform or GPU is `invalid_argument`. */
export function embeddedRuntimePlan(target: EmbeddedRuntimeTarget = {}): EmbeddedRuntimePlan {
  const platform = target.platform ?? process.platform;
  const arch = target.arch ?? process.arch;
  const binary = BINARIES[`${platform}-${arch}`];
  if (binary === undefined)
    throw new EmbeddedRuntimeError(
      'unsupported_platform',
      `No prebuilt llama.cpp for ${platform}-${arch}: the embedded runtime supports ${Object.keys(BINARIES).join(', ')}`,
    );
  const gpu = resolveGpu(target, platform, arch);
  const pin = (name: string) => `${name}@${EMBEDDED_RUNTIME_VERSION}`;
  const packages = [pin('node-llama-cpp'), pin(`@node-llama-cpp/${binary}`)];
  const os = platform === 'win32' ? 'win' : 'linux';
  if (gpu === 'cuda')
    packages.push(pin(`@node-llama-cpp/${os}-x64-cuda`), pin(`@node-llama-cpp/${os}-x64-cuda-ext`));
  if (gpu === 'vulkan') packages.push(pin(`@node-llama-cpp/${os}-x64-vulkan`));
  const build = gpu === 'cpu' && binary.endsWith('-metal') ? 'metal' : gpu;
  const extra = gpu === 'cpu' ? 0 : GPU_MEGABYTES[gpu];
  return { binary, build, packages, approximateMegabytes: BASE_MEGABYTES + extra };
}

/** The npm package specs to install for `target` (see `embeddedRuntimePlan`). */
export function embeddedRuntimePackages(target: EmbeddedRuntimeTarget = {}): readonly string[] {
  return embeddedRuntimePlan(target).packages;
}

/** `auto` resolved (CUDA when a driver is there and CUDA builds exist); CUDA/Vulkan only on linux/win32 x64. */
function resolveGpu(
  target: EmbeddedRuntimeTarget,
  platform: string,
  arch: string,
): 'cpu' | 'cuda' | 'vulkan' {
  const gpu = target.gpu ?? 'auto';
  if (!EMBEDDED_RUNTIME_GPUS.includes(gpu))
    throw new EmbeddedRuntimeError(
      'unsupported_platform',
      `Unknown GPU choice '${safeForTerminal(String(gpu), { singleLine: true })}': use ${EMBEDDED_RUNTIME_GPUS.join(', ')}`,
    );
  const gpuBuilds = (platform === 'linux' || platform === 'win32') && arch === 'x64';
  if (gpu === 'auto')
    return gpuBuilds && (target.hasNvidiaDriver ?? hasNvidiaDriver(platform)) ? 'cuda' : 'cpu';
  if (gpu !== 'cpu' && !gpuBuilds)
    throw new EmbeddedRuntimeError(
      'unsupported_platform',
      `No prebuilt ${gpu} build of llama.cpp for ${platform}-${arch}: ${gpu} builds exist for linux-x64 and win32-x64; use --gpu cpu (or auto)`,
    );
  return gpu;
}

/** Why installing the embedded runtime failed. */
export type EmbeddedRuntimeFailure =
  | 'unsupported_platform'
  | 'npm_not_found'
  | 'npm_failed'
  | 'incomplete_install';

const FAILURE_CODES: Readonly<Record<EmbeddedRuntimeFailure, JarvisErrorCode>> = {
  unsupported_platform: 'invalid_argument',
  npm_not_found: 'engine_not_found',
  npm_failed: 'engine_not_found',
  incomplete_install: 'engine_not_found',
};

/** Installing the embedded runtime failed; `failure` says why (`code` is its `JarvisError` code). */
export class EmbeddedRuntimeError extends JarvisError {
  /** Why the install failed. */
  readonly failure: EmbeddedRuntimeFailure;

  constructor(failure: EmbeddedRuntimeFailure, message: string, cause?: unknown) {
    super({ code: FAILURE_CODES[failure], message, cause });
    this.failure = failure;
  }
}

/** How a finished command ended. */
export interface CommandExit {
  /** The exit code, null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options of a `RunCommand`. */
export interface RunCommandOptions {
  readonly cwd: string;
  /** Receives each line the command prints (stdout and stderr), without its line break. */
  readonly onLine: (line: string) => void;
  /** When aborted, the command is killed (by its own handle) and the run resolves as it ends. */
  readonly signal?: AbortSignal;
  /** Run through the shell (Windows `.cmd` files need it); arguments are then quoted. */
  readonly shell?: boolean;
}

/** Runs a command to its end; rejects (e.g. `ENOENT`) only when it could not be started. */
export type RunCommand = (
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
) => Promise<CommandExit>;

/** `node:child_process`, loaded on the first spawn: importing the package should not pay for it. */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process');

/** The real `RunCommand`: spawns the process, splits its output into lines, kills it when the signal aborts. */
export const spawnCommand: RunCommand = (command, args, options) =>
  new Promise((resolve, reject) => {
    const child = childProcess().spawn(
      command,
      options.shell ? args.map((arg) => `"${arg}"`) : [...args],
      {
        cwd: options.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: options.shell ?? false,
        windowsHide: true,
      },
    );
    const kill = () => child.kill();
    options.signal?.addEventListener('abort', kill, { once: true });
    if (options.signal?.aborted) kill();
    const flushers = [child.stdout, child.stderr].map((stream) =>
      splitLines(stream, options.onLine),
    );
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', kill);
      finish();
    };
    child.on('error', (error) => settle(() => reject(error)));
    child.on('close', (exitCode, signal) =>
      settle(() => {
        for (const flush of flushers) flush();
        resolve({ exitCode, signal });
      }),
    );
  });

/** Calls `onLine` for each line of `stream`; returns a function that delivers a last unterminated line. */
function splitLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): () => void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (text: string) => {
    const parts = (pending + text).split(/\r?\n|\r/);
    pending = parts.pop() ?? '';
    for (const part of parts) onLine(part);
  });
  return () => {
    if (pending !== '') onLine(pending);
    pending = '';
  };
}

/** Options of `installEmbeddedRuntime`. */
export interface InstallEmbeddedRuntimeOptions extends EmbeddedRuntimeTarget {
  /** The npm prefix to install into (`embeddedRuntimeDir(home)`). */
  readonly dir: string;
  /** Runs npm (default `spawnCommand`). */
  readonly runCommand?: RunCommand;
  /** Aborting kills npm; the install then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Receives each line npm prints, made safe for a terminal. */
  readonly onOutput?: (line: string) => void;
  readonly clock?: Clock;
}

/** What `installEmbeddedRuntime` installed. */
export interface InstalledEmbeddedRuntime extends EmbeddedRuntimePlan {
  readonly dir: string;
  /** How long npm took. */
  readonly seconds: number;
}

/** How many of npm's last lines a failure quotes. */
const TAIL_LINES = 10;

/**
 * Installs node-llama-cpp and only the llama.cpp binaries this machine needs into `dir` with npm
 * (`--omit=optional --ignore-scripts`, versions pinned), then checks that each of them is there.
 */
export async function installEmbeddedRuntime(
  options: InstallEmbeddedRuntimeOptions,
): Promise<InstalledEmbeddedRuntime> {
  const plan = embeddedRuntimePlan(options);
  const clock = options.clock ?? systemClock;
  options.signal?.throwIfAborted();
  const startMs = clock.monotonicMs();
  await prepareRuntimeDir(options.dir);
  await runNpmInstall(options, plan.packages);
  await verifyInstalled(options.dir, plan.packages);
  const seconds = Math.round((clock.monotonicMs() - startMs) / 100) / 10;
  return { ...plan, dir: options.dir, seconds };
}

/** The flags of the npm install (before the packages). */
export function npmInstallArgs(dir: string, packages: readonly string[]): readonly string[] {
  return [
    'install',
    '--prefix',
    dir,
    '--save-exact',
    '--omit=optional',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    ...packages,
  ];
}

/**
 * Creates `dir` with a private package.json (so npm does not walk up to a project above it); an existing one
 * keeps its other dependencies but forgets earlier node-llama-cpp packages, so npm removes a GPU build no
 * longer asked for.
 */
async function prepareRuntimeDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'package.json');
  const manifest = await readManifest(file);
  const dependencies = Object.fromEntries(
    Object.entries(manifest.dependencies ?? {}).filter(([name]) => !isRuntimePackage(name)),
  );
  await writeFile(
    file,
    `${JSON.stringify({ ...manifest, private: true, dependencies }, null, 2)}\n`,
  );
}

function isRuntimePackage(name: string): boolean {
  return name === 'node-llama-cpp' || name.startsWith('@node-llama-cpp/');
}

interface Manifest {
  readonly [key: string]: unknown;
  readonly dependencies?: Readonly<Record<string, unknown>>;
}

/** The package.json object at `file`; an empty one when it is missing or not a JSON object. */
async function readManifest(file: string): Promise<Manifest> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    const manifest = value as Manifest;
    const deps = manifest.dependencies;
    if (typeof deps === 'object' && deps !== null && !Array.isArray(deps)) return manifest;
    return { ...manifest, dependencies: {} };
  } catch {
    return {};
  }
}

/** Runs npm install, streaming its lines; npm missing, failing or cancelled becomes the matching error. */
async function runNpmInstall(
  options: InstallEmbeddedRuntimeOptions,
  packages: readonly string[],
): Promise<void> {
  const windows = (options.platform ?? process.platform) === 'win32';
  const tail: string[] = [];
  const onLine = (line: string) => {
    const safe = safeForTerminal(line, { singleLine: true });
    if (safe.trim() === '') return;
    tail.push(safe);
    if (tail.length > TAIL_LINES) tail.shift();
    options.onOutput?.(safe);
  };
  let exit: CommandExit;
  try {
    exit = await (options.runCommand ?? spawnCommand)(
      windows ? 'npm.cmd' : 'npm',
      npmInstallArgs(options.dir, packages),
      {
        cwd: options.dir,
        onLine,
        shell: windows,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
  } catch (error) {
    throw startFailure(error);
  }
  options.signal?.throwIfAborted();
  if (exit.exitCode !== 0) throw npmFailure(exit, tail, options.dir);
}

function startFailure(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'ENOENT') return error;
  return new EmbeddedRuntimeError(
    'npm_not_found',
    `npm was not found: installing the embedded runtime needs npm (it comes with Node.js). Install Node.js ` +
      `with npm, or install the runtime beside openjarvis yourself: \`npm install node-llama-cpp@${EMBEDDED_RUNTIME_VERSION}\``,
    error,
  );
}

function npmFailure(exit: CommandExit, tail: readonly string[], dir: string): EmbeddedRuntimeError {
  const how =
    exit.exitCode === null
      ? `was ended by ${exit.signal ?? 'a signal'}`
      : `exited with code ${exit.exitCode}`;
  const output =
    tail.length === 0
      ? ' and printed nothing'
      : `; its last lines:\n${tail.map((line) => `  ${line}`).join('\n')}`;
  return new EmbeddedRuntimeError(
    'npm_failed',
    `npm install into ${dir} ${how}${output}\nCheck the network and npm's registry settings, then run \`jarvis engines install embedded\` again.`,
  );
}

/** Checks that npm left every package of the plan, at the pinned version, in `dir/node_modules`. */
async function verifyInstalled(dir: string, packages: readonly string[]): Promise<void> {
  for (const spec of packages) {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    const folder = join(dir, 'node_modules', name);
    const version = await installedVersion(join(folder, 'package.json'));
    if (version === EMBEDDED_RUNTIME_VERSION) continue;
    const problem =
      version === undefined
        ? `${folder} is missing`
        : `${name} there is version ${safeForTerminal(version, { singleLine: true })}, not ${EMBEDDED_RUNTIME_VERSION}`;
    throw new EmbeddedRuntimeError(
      'incomplete_install',
      `npm finished but the embedded runtime is incomplete: ${problem}. Run \`jarvis engines install embedded\` again.`,
    );
  }
}

/** The `version` of a package.json, or undefined when it is missing or unreadable. */
async function installedVersion(file: string): Promise<string | undefined> {
  try {
    const value = (JSON.parse(await readFile(file, 'utf8')) as { version?: unknown } | null)
      ?.version;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
