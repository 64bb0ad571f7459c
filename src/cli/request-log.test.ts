import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor, isTerminalSafe } from '../core/index.js';
import type { CliIo } from './cli-io.js';
import { CliSession } from './cli-output.js';
import { jarvisOptions } from './jarvis-options.js';
import { runCli } from './program.js';
import { requestLogEnabled, requestLogPrinter } from './request-log.js';

function capture(isTTY = false) {
  const stream = {
    text: '',
    isTTY,
    columns: 80,
    write(text: string) {
      stream.text += text;
    },
  };
  return stream;
}

function ioWith(env: Record<string, string | undefined>, session?: CliSession): CliIo {
  return {
    stdout: capture(),
    stderr: capture(),
    stdin: new PassThrough(),
    env,
    cwd: tmpdir(),
    signal: new AbortController().signal,
    ...(session === undefined ? {} : { session }),
  };
}

describe('requestLogPrinter', () => {
  it('prints one line per request: engine, method, address, status, time and retry', () => {
    const stderr = capture();
    const log = requestLogPrinter(stderr);
    log({
      engineId: 'openai',
      method: 'post',
      url: 'http://127.0.0.1:8000/v1/chat/completions',
      status: 200,
      durationMs: 12.4,
    });
    log({
      method: 'GET',
      url: 'http://127.0.0.1:8000/v1/models',
      status: 503,
      durationMs: 3,
      attempt: 2,
    });
    log({
      method: 'POST',
      url: 'http://127.0.0.1:9/x',
      durationMs: 1,
      error: 'connection refused',
    });
    log({
      method: 'POST',
      url: 'http://127.0.0.1:8000/s',
      status: 200,
      durationMs: 340,
      phase: 'stream_end',
    });
    expect(stderr.text).toBe(
      [
        'http: openai POST http://127.0.0.1:8000/v1/chat/completions -> 200 in 12 ms',
        'http: GET http://127.0.0.1:8000/v1/models -> 503 in 3 ms (attempt 2)',
        'http: POST http://127.0.0.1:9/x -> failed: connection refused in 1 ms',
        'http: POST http://127.0.0.1:8000/s -> stream ended in 340 ms',
        '',
      ].join('\n'),
    );
  });

  it('redacts credentials in the address, secret shapes, configured secrets and terminal escapes', () => {
    const stderr = capture();
    const log = requestLogPrinter(stderr, () => createRedactor(['s3cr3t-value']));
    log({
      method: 'GET',
      url: 'https://user:pa55word@example.test/v1/models?api_key=abcdef123456&x=s3cr3t-value',
      status: 401,
      durationMs: 5,
      error: 'bad \u001b]8;;http://evil\u0007link\u001b]8;;\u0007\nsecond line',
    });
    const line = stderr.text;
    expect(line).not.toMatch(/pa55word|abcdef123456|s3cr3t-value/);
    expect(isTerminalSafe(line)).toBe(true);
    expect(line).toContain('https://[REDACTED]@example.test/v1/models?api_key=[REDACTED]');
    expect(line).toContain('^[]8;;http://evil');
    expect(line.split('\n')).toHaveLength(2);
  });

  it('on a terminal, erases a spinner line before writing', () => {
    const stderr = capture(true);
    requestLogPrinter(stderr)({ method: 'GET', url: 'http://h/', status: 200, durationMs: 1 });
    expect(stderr.text).toBe('\r\u001b[2Khttp: GET http://h/ -> 200 in 1 ms\n');
  });
});

describe('when requests are logged', () => {
  it('with OPENJARVIS_LOG=debug or --verbose, and then the SDK options carry requestLog', () => {
    expect(requestLogEnabled(ioWith({}))).toBe(false);
    expect(requestLogEnabled(ioWith({ OPENJARVIS_LOG: 'info' }))).toBe(false);
    expect(requestLogEnabled(ioWith({ OPENJARVIS_LOG: 'DEBUG' }))).toBe(true);
    const session = new CliSession();
    session.setVerbose(true);
    const verbose = ioWith({}, session);
    expect(requestLogEnabled(verbose)).toBe(true);
    const options = jarvisOptions({ model: 'm' }, verbose) as { requestLog?: unknown };
    expect(typeof options.requestLog).toBe('function');
    expect('requestLog' in jarvisOptions({}, ioWith({}))).toBe(false);
  });

  describe('--verbose on the command line', () => {
    let home: string;
    beforeEach(async () => {
      home = await mkdtemp(join(tmpdir(), 'jarvis-verbose-'));
    });
    afterEach(async () => {
      await rm(home, { recursive: true, force: true });
    });

    it.each([[['--verbose', 'agents', 'list']], [['agents', 'list', '--verbose']]])(
      'is a global option: %j',
      async (argv) => {
        const session = new CliSession();
        const io = ioWith({ HOME: home, OPENJARVIS_HOME: join(home, '.oj') }, session);
        expect(await runCli(argv, io)).toBe(0);
        expect(session.verbose).toBe(true);
      },
    );
  });
});
