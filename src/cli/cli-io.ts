import type { Readable } from 'node:stream';
import { InterruptedError, signalExitCode } from './cli-exit.js';
import type { CliSession } from './cli-session.js';

/** A place the CLI writes text to (stdout or stderr), and whether a person is watching it. */
export interface CliStream {
  write(text: string): void;
  /** True when this is a terminal (spinners, progress bars and colours only then). */
  readonly isTTY: boolean;
  /** Terminal width in columns (80 when unknown). */
  readonly columns: number;
}

/** Everything the CLI touches outside itself, injected so commands can be tested without a process. */
export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on the first SIGINT/SIGTERM (its reason an `InterruptedError`): commands stop their work and return. */
  readonly signal: AbortSignal;
  /** What the running command learned that output depends on (the system's redactor, `--verbose`). */
  readonly session?: CliSession;
}

/** Wraps process.stdout or process.stderr, reading it only when first used (see whenMade). */
function processStream(name: 'stdout' | 'stderr'): CliStream {
  return {
    write: (text) => {
      process[name].write(text);
    },
    get isTTY() {
      return process[name].isTTY === true;
    },
    get columns() {
      return process[name].columns ?? 80;
    },
  };
}

/** `jarvis tools list | head`: the reader went away; stop quietly, as Unix tools do, instead of crashing. */
function onStreamError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
}

/**
 * Calls `use` with process[name] when that stream is made. Node makes process.stdout and process.stderr on
 * their first read (a terminal, file or pipe stream: about a twentieth of what `jarvis --help` costs for
 * stderr, which most commands never write to), so the property's getter is wrapped for that one read, whoever
 * reads it (our output, a library's console.error, Node's warnings), then put back.
 */
function whenMade(name: 'stdout' | 'stderr', use: (stream: NodeJS.WriteStream) => void): void {
  const descriptor = Object.getOwnPropertyDescriptor(process, name);
  const made = descriptor?.get;
  if (descriptor === undefined || made === undefined || descriptor.configurable !== true) {
    use(process[name]);
    return;
  }
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: descriptor.enumerable ?? true,
    get() {
      Object.defineProperty(process, name, descriptor);
      const stream = made.call(process) as NodeJS.WriteStream;
      use(stream);
      return stream;
    },
  });
}

/**
 * The real process: its streams, environment and working folder, and a signal aborted by the first SIGINT or
 * SIGTERM (a second one exits at once, with 130 for SIGINT and 143 for SIGTERM).
 */
export function processIo(): CliIo {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(signalExitCode(name));
    controller.abort(new InterruptedError(name));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  for (const name of ['stdout', 'stderr'] as const)
    whenMade(name, (stream) => stream.on('error', onStreamError));
  return {
    stdout: processStream('stdout'),
    stderr: processStream('stderr'),
    // Made on first use: Node builds process.stdin (a file, pipe or terminal stream) when it is first read, and
    // most commands never read it; building it was about a twentieth of what `jarvis --help` costs.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
}

/** Reads all of stdin as UTF-8 text. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
