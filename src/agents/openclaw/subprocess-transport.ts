import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describeError, JarvisError, positiveNumberOption } from '../../core/index.js';
import {
  checkReplyCorrelation,
  createOpenClawMessage,
  type OpenClawIdOptions,
  type OpenClawMessage,
  OpenClawProtocolError,
  parseMessage,
  serializeMessage,
} from './protocol.js';
import { RuntimeProcess } from './runtime-process.js';
import {
  OPENCLAW_DEFAULT_TIMEOUT_MS,
  OPENCLAW_HEALTH_TIMEOUT_MS,
  OPENCLAW_MAX_MESSAGE_BYTES,
  type OpenClawSendOptions,
  type OpenClawTransport,
  OpenClawTransportError,
} from './transport.js';

/** Options of a `SubprocessTransport`. */
export interface SubprocessTransportOptions extends OpenClawIdOptions {
  /** The runtime's Node entry script; checked to exist before the first start. */
  readonly scriptPath: string;
  /** The Node.js binary (default: the one running this process). */
  readonly nodePath?: string;
  /** Extra arguments after the script path. */
  readonly args?: readonly string[];
  /** Environment of the child (default: inherited). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Longest wait for each reply (default 30 s). */
  readonly timeoutMs?: number;
  /** Longest wait for the health reply, start-up included (default 5 s). */
  readonly healthTimeoutMs?: number;
  /** Longest stdout line accepted (default 8 MiB). */
  readonly maxLineBytes?: number;
  /** Wait between SIGTERM and SIGKILL when ending the child and its process group (default 2 s). */
  readonly killGraceMs?: number;
  /** How much of the child's latest stderr is kept for error messages (default 4 KiB). */
  readonly stderrTailBytes?: number;
}

/**
 * Runs an OpenClaw runtime as `node <scriptPath>` and exchanges one JSON message per line over its stdin/stdout.
 *
 * - The child starts lazily on the first `send`/`health` and is restarted on the next call after it exits, times
 *   out, is cancelled or writes anything that is not a valid message (it is killed first).
 * - One exchange is in flight at a time (concurrent calls queue). The original protocol does not echo ids, so a
 *   reply is matched to its request by order; a runtime may add `metadata.reply_to` (the id it answers), which is
 *   then checked. Any line written while no request is in flight is a protocol error.
 * - stderr is drained continuously; its last few KB appear in error messages.
 */
export class SubprocessTransport implements OpenClawTransport {
  readonly scriptPath: string;
  readonly nodePath: string;
  readonly timeoutMs: number;
  readonly healthTimeoutMs: number;
  readonly killGraceMs: number;
  readonly description: string;
  lastHealthFailure: string | undefined;
  readonly #args: readonly string[];
  readonly #env: Readonly<Record<string, string | undefined>> | undefined;
  readonly #maxLineBytes: number;
  readonly #stderrTailBytes: number;
  readonly #idOptions: OpenClawIdOptions;
  readonly #children = new Set<RuntimeProcess>();
  #current: RuntimeProcess | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** Bumped by `close()`: calls queued before it fail instead of starting a new child. */
  #generation = 0;

  constructor(options: SubprocessTransportOptions) {
    if (typeof options.scriptPath !== 'string' || options.scriptPath === '') {
      throw new JarvisError({
        code: 'invalid_argument',
        message:
          'SubprocessTransport needs scriptPath: the path of the OpenClaw runtime Node script',
      });
    }
    this.scriptPath = resolve(options.scriptPath);
    this.nodePath = options.nodePath ?? process.execPath;
    this.timeoutMs = positiveNumberOption(
      'timeoutMs',
      options.timeoutMs,
      OPENCLAW_DEFAULT_TIMEOUT_MS,
    );
    this.healthTimeoutMs = positiveNumberOption(
      'healthTimeoutMs',
      options.healthTimeoutMs,
      OPENCLAW_HEALTH_TIMEOUT_MS,
    );
    this.killGraceMs = positiveNumberOption('killGraceMs', options.killGraceMs, 2_000);
    this.#maxLineBytes = positiveNumberOption(
      'maxLineBytes',
      options.maxLineBytes,
      OPENCLAW_MAX_MESSAGE_BYTES,
    );
    this.#stderrTailBytes = positiveNumberOption('stderrTailBytes', options.stderrTailBytes, 4_096);
    this.#args = [...(options.args ?? [])];
    this.#env = options.env;
    this.#idOptions = options.generateId === undefined ? {} : { generateId: options.generateId };
    this.description = `subprocess ${this.nodePath} ${this.scriptPath}`;
  }

  /** The process id of the running child, if any. */
  get pid(): number | undefined {
    return this.#current?.usable === true ? this.#current.child.pid : undefined;
  }

  /** Writes one message line and resolves with the reply line; starts the child when needed. */
  send(message: OpenClawMessage, options: OpenClawSendOptions = {}): Promise<OpenClawMessage> {
    const generation = this.#generation;
    return this.#serialised(() =>
      this.#exchange(message, options.signal, this.timeoutMs, generation),
    );
  }

  /** Sends `health` and expects `health_ok`; never throws. */
  async health(options: OpenClawSendOptions = {}): Promise<boolean> {
    const message = createOpenClawMessage({ type: 'health' }, this.#idOptions);
    const generation = this.#generation;
    const hint = `check that ${this.scriptPath} is an OpenClaw runtime speaking JSON lines on stdin/stdout and that ${this.nodePath} runs it`;
    try {
      const reply = await this.#serialised(() =>
        this.#exchange(message, options.signal, this.healthTimeoutMs, generation),
      );
      this.lastHealthFailure =
        reply.type === 'health_ok'
          ? undefined
          : `OpenClaw runtime answered "health" with "${reply.type}"${reply.error === undefined ? '' : ` (${reply.error})`}; ${hint}`;
    } catch (error) {
      this.lastHealthFailure = `${describeError(error)}; ${hint}`;
    }
    return this.lastHealthFailure === undefined;
  }

  /**
   * Ends every child and whatever it started (SIGTERM to its process group, then SIGKILL after `killGraceMs`)
   * and waits until they are gone.
   */
  async close(): Promise<void> {
    this.#generation += 1;
    this.#current = undefined;
    const reason = this.#closedError();
    await Promise.all([...this.#children].map((child) => child.terminate(reason)));
  }

  #closedError(): OpenClawTransportError {
    return new OpenClawTransportError({
      failure: 'closed',
      message: `OpenClaw runtime (${this.description}) was closed while a request was in flight`,
    });
  }

  #serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #exchange(
    message: OpenClawMessage,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    generation: number,
  ): Promise<OpenClawMessage> {
    const child = await this.#ensureChild(generation);
    const line = await child.request(serializeMessage(message), { timeoutMs, signal });
    try {
      const reply = parseMessage(line, this.#idOptions);
      checkReplyCorrelation(message, reply);
      return reply;
    } catch (error) {
      const protocolError = new OpenClawProtocolError(
        `OpenClaw runtime (${this.description}) sent a bad reply; restarting it on the next call. ${describeError(error)}`,
        error,
      );
      void child.terminate(protocolError);
      throw protocolError;
    }
  }

  async #ensureChild(generation: number): Promise<RuntimeProcess> {
    if (generation !== this.#generation) throw this.#closedError();
    if (this.#current?.usable === true) return this.#current;
    await this.#checkScript();
    if (generation !== this.#generation) throw this.#closedError();
    const child = new RuntimeProcess({
      nodePath: this.nodePath,
      scriptPath: this.scriptPath,
      args: this.#args,
      env: this.#env,
      maxLineBytes: this.#maxLineBytes,
      stderrTailBytes: this.#stderrTailBytes,
      label: this.description,
      killGraceMs: this.killGraceMs,
    });
    this.#children.add(child);
    void child.ended.then(() => this.#children.delete(child));
    this.#current = child;
    return child;
  }

  async #checkScript(): Promise<void> {
    let isFile = false;
    try {
      isFile = (await stat(this.scriptPath)).isFile();
    } catch (error) {
      throw new OpenClawTransportError({
        failure: 'script_not_found',
        message: `OpenClaw runtime script not found: ${this.scriptPath} (${describeError(error)}); pass scriptPath pointing to the runtime's Node entry script`,
        cause: error,
      });
    }
    if (!isFile) {
      throw new OpenClawTransportError({
        failure: 'script_not_found',
        message: `OpenClaw runtime script ${this.scriptPath} is not a file; pass scriptPath pointing to the runtime's Node entry script`,
      });
    }
  }
}
