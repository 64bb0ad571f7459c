import { type ChildProcess, spawn } from 'node:child_process';
import { describeError } from '../../core/index.js';
import { LineSplitter } from './line-splitter.js';
import { OpenClawProtocolError } from './protocol.js';
import { OpenClawTransportError } from './transport.js';

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
 */
export class RuntimeProcess {
  readonly child: ChildProcess;
  /** Settles once the process is gone (exited, killed, or never started). */
  readonly exited: Promise<void>;
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
    this.child = spawn(options.nodePath, [options.scriptPath, ...options.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
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
    this.#listen();
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

  /** Fails any pending request with `reason`, sends SIGTERM, then SIGKILL after the grace period; resolves once gone. */
  terminate(reason: Error): Promise<void> {
    this.#fail(reason);
    return this.exited;
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

  /** SIGTERM now, SIGKILL when the child is still there after the grace period. */
  #kill(): void {
    const { child } = this;
    if (this.#killing || this.#gone || child.pid === undefined) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    this.#killing = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.#gone) child.kill('SIGKILL');
    }, this.#options.killGraceMs);
    void this.exited.then(() => clearTimeout(timer));
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
