import type { Clock } from '../../core/index.js';
import type { SandboxBackend, SandboxRequest } from './sandbox-backend.js';
import type { SandboxLimits, SandboxSlots } from './sandbox-limits.js';
import { type ChildRunResult, runChild } from './sandbox-process.js';

/** A top-level host path recreated in the sandbox: a symlink (e.g. `/lib -> usr/lib`) or a read-only bind. */
export interface RootEntry {
  readonly path: string;
  readonly target?: string;
}

/** Everything the bubblewrap backend needs; the caller checks that the paths exist. */
export interface BwrapBackendOptions {
  readonly bwrapPath: string;
  /** The interpreter, which must live under `/usr` (the only system tree bound into the sandbox). */
  readonly pythonPath: string;
  readonly prlimitPath: string;
  /** `/bin`, `/lib`, `/lib64`, ... as they are on the host. */
  readonly rootEntries: readonly RootEntry[];
  readonly limits: SandboxLimits;
  /** The seccomp program handed to bwrap on fd 3, or undefined to run without one. */
  readonly seccompFilter: Uint8Array | undefined;
  readonly slots: SandboxSlots;
  readonly clock: Clock;
}

const SANDBOX_UID = '65534';

/** The mounts: read-only root and `/usr`, the root links, a fresh `/proc`, a minimal `/dev` and a small tmpfs `/tmp`. */
function mountArgs(options: BwrapBackendOptions): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const entry of options.rootEntries) {
    if (entry.target === undefined) args.push('--ro-bind', entry.path, entry.path);
    else args.push('--symlink', entry.target, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(options.limits.tmpfsBytes), '--tmpfs', '/tmp');
  // The root bwrap builds and /dev are unbounded tmpfs: make them read-only so only the sized /tmp is writable.
  args.push('--remount-ro', '/', '--remount-ro', '/dev');
  return args;
}

/** `prlimit` arguments setting the rlimits of the interpreter (CPU seconds = wall timeout + 1). */
function limitArgs(options: BwrapBackendOptions, timeoutMs: number): string[] {
  const { limits } = options;
  const cpuSeconds = Math.ceil(timeoutMs / 1000) + 1;
  return [
    options.prlimitPath,
    `--as=${limits.addressSpaceBytes}`,
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
  ];
}

/** The full bwrap command line running `python3 -I -` (code on stdin) for one call. */
export function buildBwrapArgs(options: BwrapBackendOptions, timeoutMs: number): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    SANDBOX_UID,
    '--gid',
    SANDBOX_UID,
    '--hostname',
    'sandbox',
    ...mountArgs(options),
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--chdir',
    '/tmp',
    ...(options.seccompFilter ? ['--seccomp', '3'] : []),
    '--',
    ...limitArgs(options, timeoutMs),
    options.pythonPath,
    '-I',
    '-',
  ];
}

/** The default backend: `python3 -I` under bubblewrap with rlimits, seccomp, a timeout and output caps. */
export function createBwrapBackend(options: BwrapBackendOptions): SandboxBackend {
  const runOnce = (request: SandboxRequest): Promise<ChildRunResult> =>
    runChild({
      command: options.bwrapPath,
      args: buildBwrapArgs(options, request.timeoutMs),
      stdin: request.code,
      ...(options.seccompFilter ? { fd3: options.seccompFilter } : {}),
      timeoutMs: request.timeoutMs,
      maxStreamBytes: options.limits.maxStreamBytes,
      ...(request.signal ? { signal: request.signal } : {}),
      clock: options.clock,
    });
  return {
    name: 'bubblewrap',
    seccomp: options.seccompFilter !== undefined,
    run: (request) => options.slots.run(() => runOnce(request)),
  };
}
