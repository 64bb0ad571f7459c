import type { Clock } from '../../core/index.js';
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
  /** Extra read-only binds, mounted after the standard ones. */
  readonly binds?: readonly ReadOnlyBind[];
  readonly memory: MemoryRlimit;
}

/** Everything the bubblewrap backend needs; the caller checks that the paths exist. */
export interface BwrapBackendOptions extends BwrapJail {
  /** The interpreter, which must live under `/usr` (the only system tree bound into the sandbox). */
  readonly pythonPath: string;
}

const SANDBOX_UID = '65534';

/** The mounts: read-only root and `/usr`, the root links, a fresh `/proc`, a minimal `/dev`, a small tmpfs `/tmp`, extras. */
function mountArgs(jail: BwrapJail, binds: readonly ReadOnlyBind[]): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const entry of jail.rootEntries) {
    if (entry.target === undefined) args.push('--ro-bind', entry.path, entry.path);
    else args.push('--symlink', entry.target, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(jail.limits.tmpfsBytes), '--tmpfs', '/tmp');
  for (const bind of binds) args.push('--ro-bind', bind.source, bind.target);
  // The root bwrap builds and /dev are unbounded tmpfs: make them read-only so only the sized /tmp is writable.
  args.push('--remount-ro', '/', '--remount-ro', '/dev');
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
    ...mountArgs(jail, program.binds ?? []),
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
  return jail.slots.run(() =>
    runChild({
      command: jail.bwrapPath,
      args: buildJailArgs(jail, program, request.timeoutMs),
      stdin: request.code,
      ...(jail.seccompFilter ? { fd3: jail.seccompFilter } : {}),
      timeoutMs: request.timeoutMs,
      maxStreamBytes: request.maxStreamBytes ?? jail.limits.maxStreamBytes,
      ...(request.signal ? { signal: request.signal } : {}),
      clock: jail.clock,
    }),
  );
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
