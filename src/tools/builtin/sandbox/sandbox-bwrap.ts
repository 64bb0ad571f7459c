import { type FileHandle, open } from 'node:fs/promises';
import type { Clock } from '../../../core/index.js';
import type { SandboxBackend, SandboxRequest } from './sandbox-backend.js';
import type { SandboxLimits, SandboxSlots } from './sandbox-limits.js';
import { type ChildRunResult, runChild } from './sandbox-process.js';

/** A top-level host path recreated in the sandbox: a symlink (e.g. `/lib -> usr/lib`) or a read-only bind. */
export interface RootEntry {
  readonly path: string;
  readonly target?: string;
}

/** A host path bound read-only into the sandbox at `target`. */
export interface ReadOnlyBind {
  readonly source: string;
  readonly target: string;
}

/** The bubblewrap jail every backend shares: namespaces, mounts, rlimits, seccomp, slots. */
export interface BwrapJail {
  readonly bwrapPath: string;
  readonly prlimitPath: string;
  /** `/bin`, `/lib`, `/lib64`, ... as they are on the host. */
  readonly rootEntries: readonly RootEntry[];
  readonly limits: SandboxLimits;
  /** The seccomp program handed to bwrap on fd 3, or undefined to run without one. */
  readonly seccompFilter: Uint8Array | undefined;
  readonly slots: SandboxSlots;
  readonly clock: Clock;
}

/** Which rlimit caps the program's memory, and at how many bytes. */
export interface MemoryRlimit {
  /** `as` (RLIMIT_AS) for CPython; `data` (RLIMIT_DATA) for V8, which reserves far more address space than it uses. */
  readonly kind: 'as' | 'data';
  readonly bytes: number;
}

/** One program to run inside the jail. */
export interface JailedProgram {
  /** The program and its arguments; the program must be visible inside the jail (e.g. under `/usr`). */
  readonly argv: readonly string[];
  /** Extra read-only binds, mounted after the standard ones; the jail's host user must be able to read them. */
  readonly binds?: readonly ReadOnlyBind[];
  /**
   * Host files opened by us and copied into the jail as read-only files on every run (bwrap `--ro-bind-data`),
   * so they need not be readable by the jail's host user (e.g. a cache in a private folder).
   */
  readonly copies?: readonly ReadOnlyBind[];
  readonly memory: MemoryRlimit;
}

/** The host user and group a jail runs as. */
export interface HostIdentity {
  readonly uid: number;
  readonly gid: number;
}

/** The unprivileged host uid and gid (`nobody`) that bubblewrap runs as when the runtime itself is root. */
export const UNPRIVILEGED_HOST_ID = 65534;

/**
 * Who bubblewrap runs as: `nobody` when we are root, because bwrap started by root maps the sandboxed user to
 * host root (whose writes to the fresh `/proc/sys` reach the host); otherwise ourselves (undefined).
 */
export function jailHostIdentity(
  euid: number | undefined = process.geteuid?.(),
): HostIdentity | undefined {
  return euid === 0 ? { uid: UNPRIVILEGED_HOST_ID, gid: UNPRIVILEGED_HOST_ID } : undefined;
}

/** A note for failure reasons when the jail runs as `nobody` (empty when it runs as ourselves). */
export function jailIdentityNote(identity = jailHostIdentity()): string {
  return identity === undefined
    ? ''
    : ` (the sandbox never runs as root: bubblewrap runs as uid ${identity.uid}, which must be able to create a user namespace and read what the sandbox binds)`;
}

/** Everything the bubblewrap backend needs; the caller checks that the paths exist. */
export interface BwrapBackendOptions extends BwrapJail {
  /** The interpreter, which must live under `/usr` (the only system tree bound into the sandbox). */
  readonly pythonPath: string;
}

const SANDBOX_UID = '65534';

/** The fd (4, 5, ...) on which the child receives the `index`-th copied file (fd 3 is the seccomp program). */
const copyFd = (index: number): number => 4 + index;

/**
 * The mounts: read-only root and `/usr`, the root links, a fresh `/proc`, a minimal `/dev`, a small tmpfs `/tmp`,
 * extras. `/proc` is remounted read-only: its `sys/` and `sysrq-trigger` are host-global knobs. No `/sys`.
 */
function mountArgs(jail: BwrapJail, program: JailedProgram): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const entry of jail.rootEntries) {
    if (entry.target === undefined) args.push('--ro-bind', entry.path, entry.path);
    else args.push('--symlink', entry.target, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(jail.limits.tmpfsBytes), '--tmpfs', '/tmp');
  for (const bind of program.binds ?? []) args.push('--ro-bind', bind.source, bind.target);
  for (const [index, copy] of (program.copies ?? []).entries())
    args.push('--perms', '0444', '--ro-bind-data', String(copyFd(index)), copy.target);
  // The root bwrap builds and /dev are unbounded tmpfs: make them read-only so only the sized /tmp is writable.
  args.push('--remount-ro', '/', '--remount-ro', '/dev', '--remount-ro', '/proc');
  return args;
}

/** `prlimit` arguments setting the rlimits of the program (CPU seconds = wall timeout + 1). */
function limitArgs(jail: BwrapJail, memory: MemoryRlimit, timeoutMs: number): string[] {
  const { limits } = jail;
  const cpuSeconds = Math.ceil(timeoutMs / 1000) + 1;
  return [
    jail.prlimitPath,
    `--${memory.kind}=${memory.bytes}`,
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
  ];
}

/** The full bwrap command line running `program` in a fresh jail (no network, empty environment, fresh `/tmp`). */
export function buildJailArgs(
  jail: BwrapJail,
  program: JailedProgram,
  timeoutMs: number,
): string[] {
  return [
    ...['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session'],
    ...['--cap-drop', 'ALL', '--uid', SANDBOX_UID, '--gid', SANDBOX_UID, '--hostname', 'sandbox'],
    ...mountArgs(jail, program),
    '--clearenv',
    ...['--setenv', 'PATH', '/usr/bin:/bin', '--setenv', 'HOME', '/tmp'],
    ...['--setenv', 'LANG', 'C.UTF-8', '--chdir', '/tmp'],
    ...(jail.seccompFilter ? ['--seccomp', '3'] : []),
    '--',
    ...limitArgs(jail, program.memory, timeoutMs),
    ...program.argv,
  ];
}

/** `python3 -I -` (code on stdin) capped by RLIMIT_AS. */
function pythonProgram(options: BwrapBackendOptions): JailedProgram {
  return {
    argv: [options.pythonPath, '-I', '-'],
    memory: { kind: 'as', bytes: options.limits.addressSpaceBytes },
  };
}

/** The full bwrap command line running `python3 -I -` (code on stdin) for one call. */
export function buildBwrapArgs(options: BwrapBackendOptions, timeoutMs: number): string[] {
  return buildJailArgs(options, pythonProgram(options), timeoutMs);
}

/** Runs `program` in the jail once a slot is free, with `request.code` on its stdin, policed by `runChild`. */
export function runJailed(
  jail: BwrapJail,
  program: JailedProgram,
  request: SandboxRequest & { readonly maxStreamBytes?: number },
): Promise<ChildRunResult> {
  return jail.slots.run(async () => {
    const files = await openCopies(program.copies ?? []);
    if (!Array.isArray(files)) return files;
    const identity = jailHostIdentity();
    try {
      return await runChild({
        command: jail.bwrapPath,
        args: buildJailArgs(jail, program, request.timeoutMs),
        stdin: request.code,
        ...(jail.seccompFilter ? { fd3: jail.seccompFilter } : {}),
        extraFds: files.map((file) => file.fd),
        // Never root on the host; `/` because our working folder may be closed to that user.
        ...(identity === undefined ? {} : { uid: identity.uid, gid: identity.gid, cwd: '/' }),
        timeoutMs: request.timeoutMs,
        maxStreamBytes: request.maxStreamBytes ?? jail.limits.maxStreamBytes,
        ...(request.signal ? { signal: request.signal } : {}),
        clock: jail.clock,
      });
    } finally {
      await Promise.all(files.map((file) => file.close()));
    }
  });
}

/** Opens the files to copy into the jail, or (closing those already open) a result saying which one failed. */
async function openCopies(copies: readonly ReadOnlyBind[]): Promise<FileHandle[] | ChildRunResult> {
  const files: FileHandle[] = [];
  for (const copy of copies) {
    try {
      files.push(await open(copy.source, 'r'));
    } catch (error) {
      await Promise.all(files.map((file) => file.close()));
      const detail = error instanceof Error ? error.message : String(error);
      return {
        ...{ stdout: '', stderr: '', exitCode: null, exitSignal: null, stoppedBy: 'spawn_error' },
        ...{ elapsedMs: 0, pid: undefined, spawnError: `cannot open ${copy.source}: ${detail}` },
      };
    }
  }
  return files;
}

/** The default backend: `python3 -I` under bubblewrap with rlimits, seccomp, a timeout and output caps. */
export function createBwrapBackend(options: BwrapBackendOptions): SandboxBackend {
  const program = pythonProgram(options);
  return {
    name: 'bubblewrap',
    seccomp: options.seccompFilter !== undefined,
    run: (request) => runJailed(options, program, request),
  };
}
