import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { describeError } from '../../core/index.js';
import { LineSplitter } from './line-splitter.js';
import {
  groupHasLiveMembers,
  PROCESS_GROUPS_SUPPORTED,
  signalGroup,
  waitForGroupEnd,
} from './process-group.js';
import { OpenClawProtocolError } from './protocol.js';
import { OpenClawTransportError } from './transport.js';

/** `node:child_process`, loaded on the first spawn: importing the package should not pay for it. */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process');

/** How to start one runtime child. */
export interface RuntimeProcessOptions {
  readonly nodePath: string;
  readonly scriptPath: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>> | undefined;
  readonly maxLineBytes: number;
  /** How much of the latest stderr output is kept for error messages. */
  readonly stderrTailBytes: number;
  /** Names the runtime in error messages. */
  readonly label: string;
  /** Wait after SIGTERM before SIGKILL. */
  readonly killGraceMs: number;
}

/** Longest wait, after SIGKILL, for the last processes of the runtime's group to go. */
const GROUP_KILL_WAIT_MS = 2_000;

/** Per-request options. */
export interface RuntimeRequestOptions {
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

interface Waiter {
  readonly resolve: (line: string) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One runtime child process speaking JSON lines: writes a line to stdin and waits for the next stdout line, drains
 * stderr (keeping its tail), and becomes unusable for good after any failure (exit, bad output, timeout, cancel).
 * On POSIX the child leads its own process group, and ending it ends the whole group: processes the runtime
 * forked cannot outlive it (SIGTERM to the group, SIGKILL after the grace period).
 */
export class RuntimeProcess {
  readonly child: ChildProcess;
  /** Settles once the process is gone (exited, killed, or never started). */
  readonly exited: Promise<void>;
  /** Settles once the process and every process it started in its group are gone. */
  readonly ended: Promise<void>;
  readonly #options: RuntimeProcessOptions;
  readonly #lines: LineSplitter;
  #stderr: Buffer = Buffer.alloc(0);
  #waiter: Waiter | undefined;
  #failure: Error | undefined;
  #gone = false;
  #killing = false;

  constructor(options: RuntimeProcessOptions) {
    this.#options = options;
    this.#lines = new LineSplitter(options.maxLineBytes);
    this.child = childProcess().spawn(options.nodePath, [options.scriptPath, ...options.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: PROCESS_GROUPS_SUPPORTED,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    this.exited = new Promise<void>((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.once('error', () => {
        if (this.child.pid === undefined) resolve();
      });
    }).then(() => {
      this.#gone = true;
    });
    this.ended = this.exited.then(() => this.#endGroup());
    this.#listen();
    this.#killGroupOnParentExit();
  }

  /** True while the child runs and nothing has gone wrong with it. */
  get usable(): boolean {
    const { exitCode, signalCode } = this.child;
    return this.#failure === undefined && !this.#gone && exitCode === null && signalCode === null;
  }

  /** The latest stderr output (at most `stderrTailBytes`), trimmed. */
  stderrTail(): string {
    return this.#stderr.toString('utf8').trim();
  }

  /** Writes one line and resolves with the next line the child writes. */
  request(line: string, options: RuntimeRequestOptions): Promise<string> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#waiter !== undefined) {
      return Promise.reject(
        new Error('RuntimeProcess.request called while a request is in flight'),
      );
    }
    return new Promise<string>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#waiter = undefined;
      };
      const onAbort = (): void =>
        this.#fail(this.#error('cancelled', 'the request was cancelled', options.signal?.reason));
      const timer = setTimeout(
        () => this.#fail(this.#error('timed_out', `no reply within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      this.#waiter = {
        resolve: (reply) => {
          done();
          resolve(reply);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      if (options.signal?.aborted === true) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.child.stdin?.write(`${line}\n`);
    });
  }

  /**
   * Fails any pending request with `reason`, sends SIGTERM to the process group, then SIGKILL after the grace
   * period; resolves once the process and its group are gone.
   */
  terminate(reason: Error): Promise<void> {
    this.#fail(reason);
    return this.ended;
  }

  #listen(): void {
    const { child } = this;
    child.stdin?.on('error', () => {
      // A dead child's stdin fails with EPIPE; the exit handler reports the real cause.
    });
    child.stdout?.on('data', (chunk: Buffer) => this.#onStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#onStderr(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) this.#fail(this.#spawnError(error));
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      const how = signal === null ? `with code ${String(code)}` : `on signal ${signal}`;
      this.#fail(this.#error('runtime_exited', `the process exited ${how}`));
    });
  }

  #onStdout(chunk: Buffer): void {
    if (this.#failure !== undefined) return;
    let lines: string[];
    try {
      lines = this.#lines.push(chunk);
    } catch (error) {
      this.#fail(error as Error);
      return;
    }
    for (const line of lines) {
      if (line.trim() === '') continue;
      const waiter = this.#waiter;
      if (waiter === undefined) {
        const shown = line.length > 120 ? `${line.slice(0, 120)}…` : line;
        this.#fail(
          new OpenClawProtocolError(
            `OpenClaw runtime (${this.#options.label}) wrote a line nobody asked for: ${JSON.stringify(shown)}`,
          ),
        );
        return;
      }
      waiter.resolve(line);
    }
  }

  #onStderr(chunk: Buffer): void {
    const limit = this.#options.stderrTailBytes;
    const joined = Buffer.concat([this.#stderr, chunk]);
    this.#stderr = joined.length > limit ? joined.subarray(joined.length - limit) : joined;
  }

  /** Marks the process broken (first failure wins), rejects the pending request and kills the child. */
  #fail(error: Error): void {
    if (this.#failure === undefined) this.#failure = error;
    this.#waiter?.reject(this.#failure);
    this.#kill();
  }

  /** SIGTERM to the group now, SIGKILL to it when anything is still there after the grace period. */
  #kill(): void {
    if (this.#killing || this.child.pid === undefined) return;
    if (this.#leaderGone() && !this.#groupAlive()) return;
    this.#killing = true;
    this.#signal('SIGTERM');
    const timer = setTimeout(() => this.#signal('SIGKILL'), this.#options.killGraceMs);
    void this.ended.then(() => clearTimeout(timer));
  }

  /** Signals the whole group (the child alone where there are no groups or the group is gone). */
  #signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (PROCESS_GROUPS_SUPPORTED && pid !== undefined && signalGroup(pid, signal)) return;
    if (!this.#leaderGone()) this.child.kill(signal);
  }

  #leaderGone(): boolean {
    return this.#gone || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  #groupAlive(): boolean {
    const pid = this.child.pid;
    return PROCESS_GROUPS_SUPPORTED && pid !== undefined && groupHasLiveMembers(pid);
  }

  /** After the child exited: ends what it left running in its group (a forked helper, a daemon). */
  async #endGroup(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || !this.#groupAlive()) return;
    this.#kill();
    await waitForGroupEnd(pid, this.#options.killGraceMs + GROUP_KILL_WAIT_MS);
  }

  /** If this process exits first (Ctrl-C, a crash), the runtime's group goes with it: it is not in ours. */
  #killGroupOnParentExit(): void {
    const pid = this.child.pid;
    if (!PROCESS_GROUPS_SUPPORTED || pid === undefined) return;
    const onExit = (): void => void signalGroup(pid, 'SIGKILL');
    process.once('exit', onExit);
    void this.ended.then(() => process.off('exit', onExit));
  }

  #error(
    failure: OpenClawTransportError['failure'],
    what: string,
    cause?: unknown,
  ): OpenClawTransportError {
    const stderr = this.stderrTail();
    const tail = stderr === '' ? '' : `; last stderr: ${stderr}`;
    return new OpenClawTransportError({
      failure,
      message: `OpenClaw runtime (${this.#options.label}): ${what}${tail}`,
      cause,
    });
  }

  #spawnError(error: NodeJS.ErrnoException): OpenClawTransportError {
    const { nodePath } = this.#options;
    const what =
      error.code === 'ENOENT'
        ? `Node.js executable not found at ${nodePath}; install Node.js or pass nodePath pointing to the node binary`
        : error.code === 'EACCES'
          ? `${nodePath} is not executable; pass nodePath pointing to the node binary`
          : `could not start ${nodePath}: ${describeError(error)}`;
    return this.#error('spawn_failed', what, error);
  }
}
