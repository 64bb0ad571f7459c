import type { Readable } from 'node:stream';
import type { CliIo } from './cli-io.js';

/** True when a person can be asked: both stdin and stderr are terminals. */
export function canAsk(io: CliIo): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY;
}

/** Writes `question [y/N] ` on stderr and reads one line from stdin; only `y` or `yes` is a yes. */
export async function promptYesNo(question: string, io: CliIo): Promise<boolean> {
  if (io.signal.aborted) return false;
  io.stderr.write(`${question} [y/N] `);
  const line = await readLine(io.stdin, io.signal);
  if (line === undefined) io.stderr.write('\n');
  return line !== undefined && /^\s*y(es)?\s*$/i.test(line);
}

/** Reads one line; `undefined` when stdin ends or the command is cancelled first. */
function readLine(stdin: Readable, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffer = '';
    const finish = (line: string | undefined) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      signal.removeEventListener('abort', onEnd);
      stdin.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      buffer += chunk.toString();
      const end = buffer.indexOf('\n');
      if (end >= 0) finish(buffer.slice(0, end).replace(/\r$/, ''));
    };
    const onEnd = () => finish(undefined);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    signal.addEventListener('abort', onEnd, { once: true });
    stdin.resume();
  });
}
