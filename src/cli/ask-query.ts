import { untilAborted } from '../core/index.js';
import { UsageError } from './cli-error.js';
import { type CliIo, readAll } from './cli-io.js';

/**
 * The question of `jarvis ask`: the words joined with spaces, else all of stdin when it is not a terminal.
 * No question, or only whitespace, is a usage error saying how to give one.
 */
export async function readQuery(words: readonly string[], io: CliIo): Promise<string> {
  if (words.length > 0) {
    const query = words.join(' ');
    if (query.trim() === '')
      throw new UsageError('The question is empty: pass the text to ask, e.g. jarvis ask "Hi"');
    return query;
  }
  if (io.stdin.isTTY === true) {
    throw new UsageError(
      'No question given: pass it as words (jarvis ask "What is 2+2?") or pipe it on stdin (echo "..." | jarvis ask)',
    );
  }
  const text = await readStdin(io);
  if (text.trim() === '')
    throw new UsageError('stdin was empty: pipe the question in, or pass it as words');
  return text.trim();
}

/** Reads stdin to the end; Ctrl-C stops waiting for it. */
function readStdin(io: CliIo): Promise<string> {
  if (io.signal.aborted) return Promise.reject(abortError()); // do not start reading stdin at all
  return untilAborted(readAll(io.stdin), io.signal, abortError);
}

function abortError(): Error {
  return new DOMException('Cancelled while reading stdin', 'AbortError');
}
