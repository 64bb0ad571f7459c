import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readQuery } from './ask-query.js';
import { ExitCode, exitCodeOf } from './cli-error.js';
import type { CliIo } from './cli-io.js';

function fakeIo(stdinTTY: boolean, signal = new AbortController().signal) {
  const stdin = Object.assign(new PassThrough(), { isTTY: stdinTTY });
  const sink = { write: () => {}, isTTY: false, columns: 80 };
  const io: CliIo = { stdout: sink, stderr: sink, stdin, env: {}, cwd: '/', signal };
  return { io, stdin };
}

async function usageMessage(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(exitCodeOf(error)).toBe(ExitCode.usage);
  return (error as Error).message;
}

describe('readQuery', () => {
  it('joins the words with spaces', async () => {
    expect(await readQuery(['What', 'is', '2+2'], fakeIo(false).io)).toBe('What is 2+2');
  });

  it('reads stdin when no words are given and stdin is not a terminal', async () => {
    const { io, stdin } = fakeIo(false);
    stdin.end('  Summarise this.\n');
    expect(await readQuery([], io)).toBe('Summarise this.');
  });

  it('refuses an empty question, empty stdin, and no question on a terminal', async () => {
    expect(await usageMessage(readQuery(['  '], fakeIo(false).io))).toMatch(/question is empty/);
    const empty = fakeIo(false);
    empty.stdin.end(' \n');
    expect(await usageMessage(readQuery([], empty.io))).toMatch(/stdin was empty/);
    expect(await usageMessage(readQuery([], fakeIo(true).io))).toMatch(
      /No question given: pass it as words .* or pipe it on stdin/,
    );
  });

  it('stops waiting for stdin on Ctrl-C', async () => {
    const controller = new AbortController();
    const { io } = fakeIo(false, controller.signal);
    const pending = readQuery([], io);
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(exitCodeOf(error)).toBe(ExitCode.interrupted);
  });
});
