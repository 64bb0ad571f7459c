import { lstat, mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SandboxBackend } from './sandbox-backend.js';
import {
  type BwrapJail,
  type JailedProgram,
  jailHostIdentity,
  type ReadOnlyBind,
  runJailed,
} from './sandbox-bwrap.js';
import { PYODIDE_CHILD_SOURCE } from './sandbox-pyodide-child.js';
import { stagePyodideForJail } from './sandbox-pyodide-stage.js';

/** `node:crypto`, loaded on first use: importing the package should not pay for it. */
let cryptoModule: typeof import('node:crypto') | undefined;
function nodeCrypto(): typeof import('node:crypto') {
  cryptoModule ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return cryptoModule;
}

/** The pyodide npm package found on this host. */
export interface PyodidePackage {
  /** Real path of the package folder (holding pyodide.mjs, pyodide.asm.wasm, python_stdlib.zip). */
  readonly dir: string;
  readonly version: string;
}

/** Everything the Pyodide backend needs: the shared jail, Node, the package and a verified snapshot. */
export interface PyodideBackendOptions extends BwrapJail {
  /** Real path of the Node binary to run inside the jail (normally `process.execPath`, resolved). */
  readonly nodePath: string;
  readonly pyodide: PyodidePackage;
  /** A snapshot file written by `ensurePyodideSnapshot`. */
  readonly snapshotPath: string;
}

/** What building or finding the snapshot needs. */
export interface PyodideSnapshotOptions extends Omit<PyodideBackendOptions, 'snapshotPath'> {
  /** Folder caching the snapshot (default: `openjarvis-pyodide-<version>-<uid>` under the OS temp folder). */
  readonly snapshotDir?: string;
}

/** A usable snapshot file, or why there is none. */
export type PyodideSnapshotResult =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

const JAIL_PYODIDE_DIR = '/opt/pyodide';
const JAIL_SNAPSHOT_PATH = '/opt/pyodide-snapshot.bin';
/** The JS heap (V8 old space) of the child, in MiB. */
const JS_HEAP_MIB = 256;
/** RLIMIT_DATA headroom above the wasm memory and JS heap for Node itself (it uses about 230 MiB). */
const NODE_OVERHEAD_BYTES = 512 * 1024 * 1024;
const WASM_PAGE_BYTES = 64 * 1024;
const MAX_WASM_PAGES = 65_536;
const SNAPSHOT_MAGIC = Buffer.from('OJPYSNP1');
const SNAPSHOT_HEADER_BYTES = SNAPSHOT_MAGIC.length + 32;
const SNAPSHOT_TIMEOUT_MS = 120_000;
const SNAPSHOT_MAX_BASE64_BYTES = 256 * 1024 * 1024;

/**
 * Finds the pyodide package (`dir`, or the one this module resolves) as the jail can read it (staged into a
 * readable copy when the jail's unprivileged host user cannot read it where it is), or says why it cannot be used.
 */
export async function resolvePyodidePackage(dir?: string): Promise<PyodidePackage | string> {
  const found = await findPyodidePackage(dir);
  return typeof found === 'string' ? found : stagePyodideForJail(found, jailHostIdentity());
}

/** Finds the pyodide package where it is installed, or says why it cannot be used. */
async function findPyodidePackage(dir?: string): Promise<PyodidePackage | string> {
  try {
    const folder = dir ?? dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
    const real = await realpath(folder);
    const manifest = JSON.parse(await readFile(join(real, 'package.json'), 'utf8')) as {
      readonly version?: unknown;
    };
    if (typeof manifest.version !== 'string' || !/^[\w.+-]+$/.test(manifest.version))
      return `the pyodide package at ${real} has no usable version`;
    return { dir: real, version: manifest.version };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `the pyodide package cannot be resolved (${dir ?? 'pyodide'}): ${detail}; it is optional: add it with \`npm install pyodide@314.0.7\` (or install python3 for the default backend)`;
  }
}

/** `--permission` from Node 22.13 on, `--experimental-permission` before. */
function permissionFlag(version: string): string {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
}

/** Node, its flags and the child program for `mode`; reads are allowed only in the pyodide folder and snapshot. */
function nodeArgv(options: PyodideSnapshotOptions, mode: 'run' | 'snapshot'): string[] {
  const pages = Math.min(
    MAX_WASM_PAGES,
    Math.max(1, Math.floor(options.limits.addressSpaceBytes / WASM_PAGE_BYTES)),
  );
  return [
    options.nodePath,
    permissionFlag(process.version),
    `--allow-fs-read=${JAIL_PYODIDE_DIR}/*`,
    ...(mode === 'run' ? [`--allow-fs-read=${JAIL_SNAPSHOT_PATH}`] : []),
    ...['--no-addons', '--no-warnings'],
    // Liftoff only (no TurboFan tier-up): measured ~0.75 s instead of ~1.4 s per call, at the price of about
    // 1.5x slower CPU-bound Python running for seconds. Calls here are mostly short, so start-up wins.
    '--liftoff-only',
    `--wasm-max-mem-pages=${pages}`,
    `--max-old-space-size=${JS_HEAP_MIB}`,
    ...['--input-type=module', '-e', PYODIDE_CHILD_SOURCE],
    ...[mode, JAIL_PYODIDE_DIR, JAIL_SNAPSHOT_PATH, String(SNAPSHOT_HEADER_BYTES)],
  ];
}

/**
 * The jailed Node process: pyodide (and Node itself when it lives outside `/usr`) bound read-only, and the
 * snapshot copied in from a file we open, so its cache folder may stay private to us (e.g. root's 0700 folder
 * while the jail runs as `nobody`).
 */
function pyodideProgram(
  options: PyodideSnapshotOptions,
  mode: 'run' | 'snapshot',
  snapshotPath?: string,
): JailedProgram {
  const binds: ReadOnlyBind[] = [{ source: options.pyodide.dir, target: JAIL_PYODIDE_DIR }];
  if (!options.nodePath.startsWith('/usr/'))
    binds.push({ source: options.nodePath, target: options.nodePath });
  const copies =
    snapshotPath === undefined ? [] : [{ source: snapshotPath, target: JAIL_SNAPSHOT_PATH }];
  const wasmBytes = options.limits.addressSpaceBytes;
  return {
    argv: nodeArgv(options, mode),
    binds,
    copies,
    memory: { kind: 'data', bytes: wasmBytes + JS_HEAP_MIB * 1024 * 1024 + NODE_OVERHEAD_BYTES },
  };
}

/**
 * The fallback backend: Pyodide in a child Node process inside the same bubblewrap jail as the python3 backend
 * (no network, empty environment, fresh `/tmp`, seccomp), under Node's permission model (reads limited to the
 * pyodide folder and the snapshot; no child processes, workers or addons), with the wasm memory capped by
 * `--wasm-max-mem-pages`, the JS heap by `--max-old-space-size` and both by RLIMIT_DATA.
 */
export function createPyodideBackend(options: PyodideBackendOptions): SandboxBackend {
  const program = pyodideProgram(options, 'run', options.snapshotPath);
  return {
    name: 'pyodide',
    seccomp: options.seccompFilter !== undefined,
    run: (request) => runJailed(options, program, request),
  };
}

/** The default snapshot folder: per pyodide version and user, under the OS temp folder. */
export function defaultSnapshotDir(version: string): string {
  return join(tmpdir(), `openjarvis-pyodide-${version}-${process.getuid?.() ?? 'user'}`);
}

/** Creates `dir` (mode 0700) and checks that no other user can write into it. */
async function privateFolder(dir: string): Promise<string | undefined> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await lstat(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory()) return `the snapshot folder ${dir} is not a directory`;
  if ((uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0)
    return `the snapshot folder ${dir} is not private (owner ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/** True when `bytes` is a snapshot file this module wrote, with an intact payload. */
function validSnapshot(bytes: Buffer): boolean {
  if (bytes.length <= SNAPSHOT_HEADER_BYTES) return false;
  if (!bytes.subarray(0, SNAPSHOT_MAGIC.length).equals(SNAPSHOT_MAGIC)) return false;
  const digest = nodeCrypto()
    .createHash('sha256')
    .update(bytes.subarray(SNAPSHOT_HEADER_BYTES))
    .digest();
  return digest.equals(bytes.subarray(SNAPSHOT_MAGIC.length, SNAPSHOT_HEADER_BYTES));
}

/** True when `path` holds a valid snapshot; a missing, unreadable or corrupt file is false. */
async function snapshotUsable(path: string): Promise<boolean> {
  try {
    return validSnapshot(await readFile(path));
  } catch {
    return false;
  }
}

/** Boots Pyodide once in the jail and returns its memory snapshot, or why that failed. */
async function buildSnapshot(options: PyodideSnapshotOptions): Promise<Buffer | string> {
  const run = await runJailed(options, pyodideProgram(options, 'snapshot'), {
    code: '',
    timeoutMs: SNAPSHOT_TIMEOUT_MS,
    maxStreamBytes: SNAPSHOT_MAX_BASE64_BYTES,
  });
  if (run.stoppedBy !== 'exit' || run.exitCode !== 0 || run.stdout === '') {
    const detail =
      run.spawnError ?? (run.stderr.trim() || `${run.stoppedBy}, exit ${run.exitCode}`);
    return `building the Pyodide snapshot failed: ${detail.slice(0, 500)}`;
  }
  return Buffer.from(run.stdout, 'base64');
}

/** Writes header + `payload` to `path` atomically (a temporary file renamed into place). */
async function writeSnapshot(path: string, payload: Buffer): Promise<void> {
  const digest = nodeCrypto().createHash('sha256').update(payload).digest();
  const temporary = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`;
  try {
    await writeFile(temporary, Buffer.concat([SNAPSHOT_MAGIC, digest, payload]), {
      flag: 'wx',
      mode: 0o600,
    });
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * Returns the cached snapshot when it is intact; otherwise (missing, unreadable, corrupt) boots Pyodide once in
 * the jail (about 5 s) and caches a new one. Never throws: a failure is a reason.
 */
export async function ensurePyodideSnapshot(
  options: PyodideSnapshotOptions,
): Promise<PyodideSnapshotResult> {
  const dir = options.snapshotDir ?? defaultSnapshotDir(options.pyodide.version);
  const path = join(dir, `pyodide-${options.pyodide.version}.snapshot`);
  try {
    const unsafe = await privateFolder(dir);
    if (unsafe !== undefined) return { ok: false, reason: unsafe };
    if (await snapshotUsable(path)) return { ok: true, path };
    const payload = await buildSnapshot(options);
    if (typeof payload === 'string') return { ok: false, reason: payload };
    await writeSnapshot(path, payload);
    return { ok: true, path };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `the Pyodide snapshot in ${dir} cannot be written: ${detail}` };
  }
}
