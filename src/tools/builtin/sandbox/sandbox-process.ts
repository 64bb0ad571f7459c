import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../../../core/index.js';

/** Why a sandboxed process stopped. */
export type StopReason = 'exit' | 'timeout' | 'output_limit' | 'aborted' | 'spawn_error';

/** How to start and police one child process. */
export interface ChildRunOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** Written to the child's stdin, which is then closed. */
  readonly stdin: string;
  /** Bytes written to the child's fd 3 (then closed), e.g. a seccomp program for `bwrap --seccomp 3`. */
  readonly fd3?: Uint8Array;
  /** Open host file descriptors handed to the child as fds 4, 5, ... (the caller keeps and closes them). */
  readonly extraFds?: readonly number[];
  readonly cwd?: string;
  /** Host user and group to run the child as (needs root); supplementary groups are dropped. */
  readonly uid?: number;
  readonly gid?: number;
  readonly timeoutMs: number;
  readonly maxStreamBytes: number;
  readonly signal?: AbortSignal;
  readonly clock: Clock;
}

/** What a child process did. */
export interface ChildRunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly exitSignal: string | null;
  readonly stoppedBy: StopReason;
  readonly elapsedMs: number;
  readonly pid: number | undefined;
  readonly spawnError?: string;
}

interface StreamCapture {
  readonly text: () => string;
}

/** Kills the whole process group led by `pid`; a group already gone is fine. */
export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has already exited.
  }
}

/** Keeps at most `maxBytes` of a stream and calls `onOverflow` once when more arrives. */
function captureStream(stream: Readable, maxBytes: number, onOverflow: () => void): StreamCapture {
  const chunks: Buffer[] = [];
  let kept = 0;
  let overflowed = false;
  stream.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    const room = maxBytes - kept;
    if (chunk.length > room) {
      overflowed = true;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      kept = maxBytes;
      onOverflow();
      return;
    }
    chunks.push(chunk);
    kept += chunk.length;
  });
  stream.on('error', () => undefined);
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Writes `data` to a child pipe and closes it, ignoring a child that exits before reading. */
function feed(pipe: Writable | null | undefined, data: string | Uint8Array): void {
  if (!pipe) return;
  pipe.on('error', () => undefined);
  pipe.end(data);
}

/** The child's stdio: pipes for 0-2, a pipe or nothing on 3, then the extra fds on 4, 5, ... */
function stdioOf(options: ChildRunOptions): ('pipe' | 'ignore' | number)[] {
  const extra = options.extraFds ?? [];
  const fd3: 'pipe' | 'ignore' = options.fd3 ? 'pipe' : 'ignore';
  return ['pipe', 'pipe', 'pipe', ...(options.fd3 || extra.length > 0 ? [fd3] : []), ...extra];
}

/** `node:child_process`, loaded on the first spawn: importing the package should not pay for it. */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process');

/** Starts `options.command` detached (its own process group) with an empty environment, as `uid`/`gid` if given. */
function spawnDetached(options: ChildRunOptions): ChildProcess {
  return childProcess().spawn(options.command, [...options.args], {
    detached: true,
    env: {},
    stdio: stdioOf(options),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
}

/** Arms the wall-clock timer and the abort signal; returns a function that disarms both. */
function arm(options: ChildRunOptions, stop: (reason: StopReason) => void): () => void {
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = (): void => stop('aborted');
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  return () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  };
}

/**
 * Runs a child in its own process group with an empty environment, kills the whole group at the wall-clock
 * timeout, on abort or when a stream passes its cap, and resolves once it is gone.
 */
export function runChild(options: ChildRunOptions): Promise<ChildRunResult> {
  const startedMs = options.clock.monotonicMs();
  let child: ChildProcess;
  try {
    child = spawnDetached(options);
  } catch (error) {
    // Some failures (e.g. EPERM when switching to `uid`) are thrown at once instead of emitted.
    return Promise.resolve(spawnFailure(options, startedMs, error));
  }
  return supervise(options, child, startedMs);
}

/** The result of a child that could not be started at all. */
function spawnFailure(options: ChildRunOptions, startedMs: number, error: unknown): ChildRunResult {
  return {
    ...{ stdout: '', stderr: '', exitCode: null, exitSignal: null, stoppedBy: 'spawn_error' },
    ...{ elapsedMs: options.clock.monotonicMs() - startedMs, pid: undefined },
    spawnError: error instanceof Error ? error.message : String(error),
  };
}

/** Polices a started child (timeout, abort, output caps) and resolves once it and its pipes are gone. */
function supervise(
  options: ChildRunOptions,
  child: ChildProcess,
  startedMs: number,
): Promise<ChildRunResult> {
  return new Promise((resolve) => {
    let stoppedBy: StopReason = 'exit';
    let spawnError: string | undefined;
    const stop = (reason: StopReason): void => {
      if (stoppedBy === 'exit') stoppedBy = reason;
      killProcessGroup(child.pid);
    };
    const disarm = arm(options, stop);
    const capture = (stream: unknown) =>
      captureStream(stream as Readable, options.maxStreamBytes, () => stop('output_limit'));
    const out = capture(child.stdout);
    const err = capture(child.stderr);
    child.on('error', (error) => {
      spawnError = error.message;
      stoppedBy = 'spawn_error';
    });
    child.on('exit', () => releaseAfterExit(child));
    child.on('close', (code, signal) => {
      disarm();
      resolve({
        ...{
          stdout: out.text(),
          stderr: err.text(),
          exitCode: code,
          exitSignal: signal,
          stoppedBy,
        },
        ...{ elapsedMs: options.clock.monotonicMs() - startedMs, pid: child.pid },
        ...(spawnError === undefined ? {} : { spawnError }),
      });
    });
    feed(child.stdin, options.stdin);
    if (options.fd3) feed(child.stdio[3] as Writable, options.fd3);
  });
}

/** Once the child exits: kills what is left of its group and stops waiting shortly for pipes a runaway holds. */
function releaseAfterExit(child: ChildProcess): void {
  killProcessGroup(child.pid);
  // A descendant that left the group may still hold the pipes: stop waiting for them shortly.
  setTimeout(() => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }, 200).unref();
}
