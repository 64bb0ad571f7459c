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

/** Wraps a process stream. */
function processStream(stream: NodeJS.WriteStream): CliStream {
  return {
    write: (text) => {
      stream.write(text);
    },
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns ?? 80;
    },
  };
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
  // `jarvis tools list | head`: the reader went away; stop quietly, as Unix tools do, instead of crashing.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
  return {
    stdout: processStream(process.stdout),
    stderr: processStream(process.stderr),
    stdin: process.stdin,
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
