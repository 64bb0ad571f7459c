import { constants } from 'node:fs';
import { access, lstat, readlink, realpath } from 'node:fs/promises';
import { type Clock, systemClock } from '../../core/index.js';
import type { SandboxBackend, SandboxSelection } from './sandbox-backend.js';
import { createBwrapBackend, type RootEntry } from './sandbox-bwrap.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, SandboxSlots } from './sandbox-limits.js';
import { buildSeccompFilter, seccompArchOf } from './sandbox-seccomp.js';
import { createUnsandboxedBackend } from './sandbox-unsandboxed.js';

/** How to look for a sandbox backend. */
export interface SandboxSelectOptions {
  readonly bwrapPath?: string;
  readonly pythonPath?: string;
  readonly prlimitPath?: string;
  /** Run code without OS isolation when no sandbox works (off by default; every result then says so). */
  readonly allowUnsandboxed?: boolean;
  /** At most this many sandboxes at once (default 2); further calls queue. */
  readonly maxConcurrent?: number;
  /** Install the seccomp filter (default true; turning it off is for tests of the other layers). */
  readonly seccomp?: boolean;
  readonly limits?: Partial<SandboxLimits>;
  readonly platform?: string;
  readonly arch?: string;
  readonly clock?: Clock;
}

/** What to tell the user when no backend is available. */
export const INSTALL_HINT =
  'install bubblewrap and python3 (Debian/Ubuntu: apt-get install -y bubblewrap python3; util-linux provides prlimit), ' +
  'or set allowUnsandboxed: true to run code WITHOUT isolation';

const ROOT_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64'];

/** True when `path` is an executable file. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `/bin`, `/lib`, ... as symlinks (merged-/usr systems) or directories to bind read-only. */
export async function rootEntries(): Promise<RootEntry[]> {
  const entries: RootEntry[] = [];
  for (const path of ROOT_LINKS) {
    try {
      const stat = await lstat(path);
      if (stat.isSymbolicLink()) entries.push({ path, target: await readlink(path) });
      else if (stat.isDirectory()) entries.push({ path });
    } catch {
      // Absent on this system.
    }
  }
  return entries;
}

/** Why the bubblewrap backend cannot be used, or undefined when its prerequisites are there. */
async function bwrapProblem(
  options: Required<
    Pick<SandboxSelectOptions, 'bwrapPath' | 'pythonPath' | 'prlimitPath' | 'platform'>
  >,
): Promise<string | undefined> {
  if (options.platform !== 'linux') return `bubblewrap needs Linux (this is ${options.platform})`;
  if (!(await isExecutable(options.bwrapPath)))
    return `bubblewrap not found at ${options.bwrapPath}`;
  if (!(await isExecutable(options.pythonPath)))
    return `python3 not found at ${options.pythonPath}`;
  if (!(await isExecutable(options.prlimitPath)))
    return `prlimit not found at ${options.prlimitPath}`;
  const real = await realpath(options.pythonPath);
  if (!real.startsWith('/usr/')) return `${options.pythonPath} resolves to ${real}, outside /usr`;
  return undefined;
}

/** Runs a trivial program through `backend` and returns why it failed, if it did. */
async function probe(backend: SandboxBackend): Promise<string | undefined> {
  const result = await backend.run({ code: 'print(6 * 7)', timeoutMs: 10_000 });
  if (result.exitCode === 0 && result.stdout === '42\n') return undefined;
  const detail = result.spawnError ?? (result.stderr.trim() || `exit ${result.exitCode}`);
  return `the bubblewrap probe failed: ${detail.slice(0, 500)}`;
}

/** Chooses the backend once: bubblewrap when it works, the degraded mode only if allowed, otherwise a reason. */
export async function selectSandbox(options: SandboxSelectOptions = {}): Promise<SandboxSelection> {
  const paths = {
    bwrapPath: options.bwrapPath ?? '/usr/bin/bwrap',
    pythonPath: options.pythonPath ?? '/usr/bin/python3',
    prlimitPath: options.prlimitPath ?? '/usr/bin/prlimit',
    platform: options.platform ?? process.platform,
  };
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const slots = new SandboxSlots({ limit: options.maxConcurrent ?? 2 });
  const clock = options.clock ?? systemClock;
  let reason = await bwrapProblem(paths);
  if (reason === undefined) {
    const arch = seccompArchOf(options.arch ?? process.arch);
    const wantSeccomp = options.seccomp ?? true;
    if (wantSeccomp && arch === undefined)
      reason = `no seccomp filter for ${options.arch ?? process.arch}`;
    else {
      const seccompFilter = wantSeccomp && arch ? buildSeccompFilter(arch) : undefined;
      const entries = await rootEntries();
      const backend = createBwrapBackend({
        ...paths,
        rootEntries: entries,
        limits,
        seccompFilter,
        slots,
        clock,
      });
      reason = await probe(backend);
      if (reason === undefined) return { ok: true, backend };
    }
  }
  if (options.allowUnsandboxed === true && (await isExecutable(paths.pythonPath))) {
    const prlimitPath = (await isExecutable(paths.prlimitPath)) ? paths.prlimitPath : undefined;
    const backend = createUnsandboxedBackend({
      pythonPath: paths.pythonPath,
      prlimitPath,
      limits,
      slots,
      clock,
    });
    return { ok: true, backend };
  }
  return { ok: false, reason: `${reason}; ${INSTALL_HINT}` };
}
