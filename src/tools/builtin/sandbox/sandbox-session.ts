import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { type Clock, type JsonValue, systemClock } from '../../../core/index.js';
import { buildBwrapArgs, jailHostIdentity, jailIdentityNote } from './sandbox-bwrap.js';
import { isExecutable, rootEntries } from './sandbox-host.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, SandboxSlots } from './sandbox-limits.js';
import { killProcessGroup } from './sandbox-process.js';
import { buildSeccompFilter, seccompArchOf } from './sandbox-seccomp.js';
import { SANDBOX_SESSION_DRIVER } from './sandbox-session-driver.js';

/** How to open a persistent sandboxed interpreter. */
export interface SandboxSessionOptions {
  readonly bwrapPath?: string;
  readonly pythonPath?: string;
  readonly prlimitPath?: string;
  /** Install the seccomp filter (default true). */
  readonly seccomp?: boolean;
  readonly limits?: Partial<SandboxLimits>;
  /** The CPU budget of the whole session (its RLIMIT_CPU), in milliseconds. */
  readonly lifetimeMs: number;
  /** How long the interpreter may take to start (default 10 s). */
  readonly startTimeoutMs?: number;
  /** Characters of printed output kept per step (default 20,000). */
  readonly maxOutputChars?: number;
  readonly platform?: string;
  readonly arch?: string;
  readonly clock?: Clock;
}

/** An open session, or why none could be opened. */
export type SandboxSessionOpenResult =
  | { readonly ok: true; readonly session: SandboxSession }
  | { readonly ok: false; readonly reason: string };

/** Answers a `host_call(name, payload)` made by the code; a thrown error becomes a Python `RuntimeError`. */
export type SandboxHostCall = (name: string, payload: JsonValue) => Promise<JsonValue>;

/** Options of one step. */
export interface SandboxSessionExecOptions {
  /** Wall-clock limit of the step, not counting time spent waiting for host calls. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onCall?: SandboxHostCall;
}

/** How a step ended: it ran to completion (with or without an exception) or the session was stopped. */
export type SandboxStepEnd = 'completed' | 'timeout' | 'aborted' | 'crashed';

/** What one step did. */
export interface SandboxSessionExecResult {
  /** True when the code ran without raising. */
  readonly ok: boolean;
  /** What it printed (stdout and stderr, capped). */
  readonly output: string;
  /** Characters of output dropped beyond the cap. */
  readonly droppedChars: number;
  /** The traceback, or why the step was stopped. */
  readonly error: string | undefined;
  readonly end: SandboxStepEnd;
  readonly elapsedMs: number;
}

const STDERR_TAIL_CHARS = 4000;

type DriverMessage = Readonly<Record<string, unknown>>;

/**
 * One Python interpreter under bubblewrap (same mounts, rlimits, seccomp and empty environment as the
 * `code_interpreter` backend) kept alive across steps, so variables persist until `close()`. A timeout or abort
 * kills the whole interpreter; later steps then fail with `crashed`.
 */
export class SandboxSession {
  private readonly child: ChildProcess;
  private readonly clock: Clock;
  private readonly maxLineChars: number;
  private buffer = '';
  private stderrTail = '';
  private running = true;
  private busy = false;
  private readonly exited: Promise<void>;
  private onMessage: ((message: DriverMessage) => void) | undefined;
  private onExit: (() => void) | undefined;

  /** Wraps a spawned driver; use `openSandboxSession` instead. */
  constructor(
    child: ChildProcess,
    options: { readonly clock: Clock; readonly maxLineChars: number },
  ) {
    this.child = child;
    this.clock = options.clock;
    this.maxLineChars = options.maxLineChars;
    this.exited = new Promise((resolve) => {
      child.on('close', () => resolve());
    });
    child.on('exit', () => {
      this.running = false;
      killProcessGroup(child.pid);
      this.onExit?.();
    });
    child.on('error', () => {
      this.running = false;
      this.onExit?.();
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.receive(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.stdin?.on('error', () => undefined);
  }

  /** Process id of the sandbox's outer process (the leader of its process group). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the interpreter exits or is killed. */
  get alive(): boolean {
    return this.running;
  }

  /** What the interpreter wrote to stderr outside steps (start-up errors), last 4,000 characters. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Waits for the driver's `ready` line. */
  waitReady(timeoutMs: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const done = (reason: string | undefined): void => {
        clearTimeout(timer);
        this.onMessage = undefined;
        this.onExit = undefined;
        resolve(reason);
      };
      const timer = setTimeout(
        () => done(`the interpreter did not start within ${timeoutMs} ms`),
        timeoutMs,
      );
      this.onMessage = (message) => {
        if (message.t === 'ready') done(undefined);
      };
      this.onExit = () =>
        done(
          `the interpreter exited at start: ${this.stderrTail.trim().slice(-500) || 'no output'}`,
        );
    });
  }

  /** Runs `code` in the session's namespace; one step at a time. */
  exec(code: string, options: SandboxSessionExecOptions): Promise<SandboxSessionExecResult> {
    if (!this.running) return Promise.resolve(this.stopped('crashed', 0));
    if (this.busy) throw new Error('a sandbox session runs one step at a time');
    this.busy = true;
    return new Promise((resolve) => this.startStep(code, options, resolve));
  }

  /** Kills the interpreter (its whole process group) and waits until it is gone. */
  async close(): Promise<void> {
    this.running = false;
    killProcessGroup(this.child.pid);
    await this.exited;
  }

  private startStep(
    code: string,
    options: SandboxSessionExecOptions,
    resolve: (result: SandboxSessionExecResult) => void,
  ): void {
    const startedMs = this.clock.monotonicMs();
    const elapsed = (): number => this.clock.monotonicMs() - startedMs;
    const timer = new PausableTimer(options.timeoutMs, this.clock, () => kill('timeout'));
    const finish = (result: SandboxSessionExecResult): void => {
      timer.pause();
      options.signal?.removeEventListener('abort', onAbort);
      this.onMessage = undefined;
      this.onExit = undefined;
      this.busy = false;
      resolve(result);
    };
    const kill = (end: SandboxStepEnd): void => {
      killProcessGroup(this.child.pid);
      this.running = false;
      finish(this.stopped(end, elapsed(), options.timeoutMs));
    };
    const onAbort = (): void => kill('aborted');
    this.onExit = () => finish(this.stopped('crashed', elapsed()));
    this.onMessage = (message) => {
      if (message.t === 'done') return finish(doneResult(message, elapsed()));
      if (message.t !== 'call') return;
      // Time spent answering host calls (e.g. model queries) does not count against the step.
      timer.pause();
      void this.answerCall(message, options.onCall).then(() => {
        if (this.busy && this.running) timer.resume();
      });
    };
    if (options.signal?.aborted) {
      kill('aborted');
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    timer.resume();
    this.send({ t: 'exec', code });
  }

  private async answerCall(
    message: DriverMessage,
    onCall: SandboxHostCall | undefined,
  ): Promise<void> {
    const name = typeof message.name === 'string' ? message.name : '';
    try {
      if (onCall === undefined) throw new Error(`no host function '${name}' in this session`);
      const value = await onCall(name, (message.payload ?? null) as JsonValue);
      this.send({ t: 'reply', ok: true, value });
    } catch (error) {
      this.send({
        t: 'reply',
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private stopped(end: SandboxStepEnd, elapsedMs: number, timeoutMs = 0): SandboxSessionExecResult {
    const error =
      end === 'timeout'
        ? `Timed out after ${timeoutMs / 1000} s; the interpreter was stopped.`
        : end === 'aborted'
          ? 'Cancelled; the interpreter was stopped.'
          : `The interpreter is no longer running. ${this.stderrTail.trim().slice(-500)}`.trim();
    return { ok: false, output: '', droppedChars: 0, error, end, elapsedMs };
  }

  private send(message: Readonly<Record<string, unknown>>): void {
    if (!this.running) return;
    (this.child.stdin as Writable).write(`${JSON.stringify(message)}\n`);
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      const message = parseLine(line);
      if (message !== undefined) this.onMessage?.(message);
      newline = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > this.maxLineChars) {
      this.buffer = '';
      killProcessGroup(this.child.pid);
    }
  }
}

/** A one-shot timer that can be paused and resumed, firing once its total running time reaches `totalMs`. */
class PausableTimer {
  private remainingMs: number;
  private startedMs = 0;
  private handle: ReturnType<typeof setTimeout> | undefined;

  constructor(
    totalMs: number,
    private readonly clock: Clock,
    private readonly onFire: () => void,
  ) {
    this.remainingMs = totalMs;
  }

  resume(): void {
    if (this.handle !== undefined) return;
    this.startedMs = this.clock.monotonicMs();
    this.handle = setTimeout(this.onFire, Math.max(this.remainingMs, 0));
  }

  pause(): void {
    if (this.handle === undefined) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.remainingMs -= this.clock.monotonicMs() - this.startedMs;
  }
}

function parseLine(line: string): DriverMessage | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as DriverMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

function doneResult(message: DriverMessage, elapsedMs: number): SandboxSessionExecResult {
  const ok = message.ok === true;
  return {
    ok,
    output: typeof message.output === 'string' ? message.output : '',
    droppedChars: typeof message.dropped === 'number' ? message.dropped : 0,
    error: ok ? undefined : typeof message.error === 'string' ? message.error : 'Unknown error',
    end: 'completed',
    elapsedMs,
  };
}

interface ResolvedPaths {
  readonly bwrapPath: string;
  readonly pythonPath: string;
  readonly prlimitPath: string;
}

async function missingPrerequisite(
  paths: ResolvedPaths,
  platform: string,
): Promise<string | undefined> {
  if (platform !== 'linux') return `bubblewrap needs Linux (this is ${platform})`;
  for (const [name, path] of [
    ['bubblewrap', paths.bwrapPath],
    ['prlimit', paths.prlimitPath],
  ] as const) {
    if (!(await isExecutable(path))) return `${name} not found at ${path}`;
  }
  if (!(await isExecutable(paths.pythonPath)))
    return (
      `the rlm agent needs python3, not found at ${paths.pythonPath} (code_interpreter's Pyodide fallback ` +
      'cannot keep a persistent interpreter; install python3)'
    );
  return undefined;
}

async function sessionArgs(
  options: SandboxSessionOptions,
  paths: ResolvedPaths,
): Promise<{ readonly args: string[]; readonly filter: Uint8Array | undefined } | string> {
  const arch = seccompArchOf(options.arch ?? process.arch);
  const wantSeccomp = options.seccomp ?? true;
  if (wantSeccomp && arch === undefined)
    return `no seccomp filter for ${options.arch ?? process.arch}`;
  const filter = wantSeccomp && arch ? buildSeccompFilter(arch) : undefined;
  const args = buildBwrapArgs(
    {
      ...paths,
      rootEntries: await rootEntries(),
      limits: { ...DEFAULT_SANDBOX_LIMITS, ...options.limits },
      seccompFilter: filter,
      slots: new SandboxSlots({ limit: 1 }),
      clock: options.clock ?? systemClock,
    },
    options.lifetimeMs,
  );
  // The command ends with `python3 -I -` (code on stdin): run the driver instead, stdin stays the protocol pipe.
  args.splice(
    args.length - 1,
    1,
    '-c',
    SANDBOX_SESSION_DRIVER,
    String(options.maxOutputChars ?? 20_000),
  );
  return { args, filter };
}

/** `node:child_process`, loaded on the first spawn: importing the package should not pay for it. */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process');

/** Starts bwrap detached with an empty environment, never as root on the host; a failure to start is a reason. */
function spawnJail(
  bwrapPath: string,
  built: { readonly args: string[]; readonly filter: Uint8Array | undefined },
): ChildProcess | string {
  // Never root on the host (see jailHostIdentity); `/` because our working folder may be closed to that user.
  const identity = jailHostIdentity();
  try {
    return childProcess().spawn(bwrapPath, built.args, {
      detached: true,
      env: {},
      stdio: ['pipe', 'pipe', 'pipe', ...(built.filter ? (['pipe'] as const) : [])],
      ...(identity === undefined ? {} : { uid: identity.uid, gid: identity.gid, cwd: '/' }),
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return `bubblewrap could not be started: ${detail}${jailIdentityNote(identity)}`;
  }
}

/** Starts a persistent sandboxed interpreter and waits until it is ready; never runs code unsandboxed. */
export async function openSandboxSession(
  options: SandboxSessionOptions,
): Promise<SandboxSessionOpenResult> {
  const paths = {
    bwrapPath: options.bwrapPath ?? '/usr/bin/bwrap',
    pythonPath: options.pythonPath ?? '/usr/bin/python3',
    prlimitPath: options.prlimitPath ?? '/usr/bin/prlimit',
  };
  const missing = await missingPrerequisite(paths, options.platform ?? process.platform);
  if (missing !== undefined) return { ok: false, reason: missing };
  const built = await sessionArgs(options, paths);
  if (typeof built === 'string') return { ok: false, reason: built };
  const child = spawnJail(paths.bwrapPath, built);
  if (typeof child === 'string') return { ok: false, reason: child };
  if (built.filter) {
    const fd3 = child.stdio[3] as Writable;
    fd3.on('error', () => undefined);
    fd3.end(built.filter);
  }
  (child.stdout as Readable).on('error', () => undefined);
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const session = new SandboxSession(child, {
    clock: options.clock ?? systemClock,
    maxLineChars: limits.maxStreamBytes * 2,
  });
  const problem = await session.waitReady(options.startTimeoutMs ?? 10_000);
  if (problem === undefined) return { ok: true, session };
  await session.close();
  return { ok: false, reason: problem };
}
