import { describe, expect, it } from 'vitest';
import { createRedactor, isTerminalSafe, JarvisError } from '../core/index.js';
import {
  CliExit,
  ExitCode,
  errorJson,
  exitCodeOf,
  formatError,
  InterruptedError,
} from './cli-error.js';
import type { CliIo } from './cli-io.js';
import {
  CliSession,
  diagnosticText,
  jsonText,
  listText,
  redactForOutput,
  terminalText,
} from './cli-output.js';
import { enginesTable } from './engines-action.js';
import { toolsTable } from './tools-action.js';

const ESC = '\u001b';
const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
const HOSTILE = `server said: ${ESC}]8;;http://evil.example${ESC}\\click${ESC}]8;;${ESC}\\ ${ESC}[2K key ${KEY}`;

describe('redactForOutput', () => {
  it('removes secret shapes, and the configured secrets when a redactor knows them', () => {
    expect(redactForOutput(`Authorization: Bearer abcdef123456 and ${KEY}`)).toBe(
      'Authorization: Bearer [REDACTED] and [REDACTED]',
    );
    const redactor = createRedactor(['my-own-value-42']);
    expect(redactForOutput('value my-own-value-42 leaked', redactor)).toBe(
      'value [REDACTED] leaked',
    );
    expect(redactForOutput('value my-own-value-42 leaked')).toContain('my-own-value-42');
  });

  it('the session uses the redactor a system gave it from then on', () => {
    const session = new CliSession();
    expect(redactForOutput('pw hunter2hunter2', session.redactor)).toBe('pw hunter2hunter2');
    session.useRedactor(createRedactor(['hunter2hunter2']));
    expect(redactForOutput('pw hunter2hunter2', session.redactor)).toBe('pw [REDACTED]');
  });
});

describe('diagnosticText and jsonText', () => {
  it('shows escape sequences visibly and redacts', () => {
    const text = diagnosticText(HOSTILE);
    expect(text).not.toContain(ESC);
    expect(text).toContain('^[]8;;http://evil.example');
    expect(text).not.toContain(KEY);
  });

  it('writes C1 controls and bidi overrides as \\u escapes, parsing to the same value', () => {
    const value = { text: `a\u009b2Jb\u202ec${ESC}[0m`, n: 10n };
    const text = jsonText(value);
    expect(isTerminalSafe(text)).toBe(true);
    expect(text).toContain('\\u009b');
    expect(JSON.parse(text)).toEqual({ text: value.text, n: '10' });
    expect(text.endsWith('}\n')).toBe(true);
  });
});

describe('formatError and errorJson', () => {
  it('prints an error quoting a server safely and without its secrets', () => {
    const line = formatError(new Error(HOSTILE));
    expect(line.startsWith('error: server said: ^[]8;;')).toBe(true);
    expect(line).not.toContain(ESC);
    expect(line).not.toContain(KEY);
    expect(line).toContain('[REDACTED]');
    expect(
      formatError(new Error('value my-own-value-42'), createRedactor(['my-own-value-42'])),
    ).toBe('error: value [REDACTED]\n');
  });

  it('errorJson is one object with the code and the redacted message', () => {
    const error = new JarvisError({ code: 'engine_unavailable', message: `down, ${KEY}` });
    expect(JSON.parse(errorJson(error))).toEqual({
      error: { code: 'engine_unavailable', message: 'down, [REDACTED]' },
    });
    expect(JSON.parse(errorJson(new Error('plain')))).toEqual({
      error: { code: 'error', message: 'plain' },
    });
    const abort = new DOMException('stop', 'AbortError');
    expect(JSON.parse(errorJson(abort))).toEqual({
      error: { code: 'cancelled', message: 'Cancelled.' },
    });
  });
});

describe('exitCodeOf', () => {
  const cancelled = () => new DOMException('The operation was aborted', 'AbortError');

  it('SIGTERM is 143 and SIGINT 130, from the signal that cancelled the run', () => {
    const term = new AbortController();
    term.abort(new InterruptedError('SIGTERM'));
    const int = new AbortController();
    int.abort(new InterruptedError('SIGINT'));
    expect(exitCodeOf(cancelled(), term.signal)).toBe(143);
    expect(exitCodeOf(cancelled(), int.signal)).toBe(130);
    expect(exitCodeOf(cancelled())).toBe(ExitCode.interrupted);
  });

  it('a missing or invalid config file is a usage error (2)', () => {
    for (const code of [
      'config_missing',
      'config_not_found',
      'config_unreadable',
      'config_invalid',
    ])
      expect(exitCodeOf(new JarvisError({ code, message: 'x' } as never))).toBe(2);
    expect(exitCodeOf(new JarvisError({ code: 'engine_unavailable', message: 'x' }))).toBe(1);
    expect(exitCodeOf(new CliExit(ExitCode.stopped))).toBe(3);
  });
});

describe('lists of names that servers supply', () => {
  const io = (isTTY: boolean) =>
    ({ stdout: { isTTY, columns: 200, write: () => undefined } }) as unknown as CliIo;

  it('show escapes visibly on a terminal and pass through a pipe unchanged', () => {
    expect(listText(`m${ESC}[2K`, { isTTY: true })).toBe('m^[[2K');
    expect(listText(`m${ESC}[2K`, { isTTY: false })).toBe(`m${ESC}[2K`);
    expect(terminalText(`a\n${ESC}]0;t`, { isTTY: true })).toBe('a\n^[]0;t');
    expect(terminalText(`a\n${ESC}]0;t`, { isTTY: false })).toBe(`a\n${ESC}]0;t`);
    const tool = {
      name: `remote.${ESC}]0;x`,
      category: 'mcp',
      description: `Does ${ESC}[2J things`,
      requiresConfirmation: false,
      costEstimate: 0,
      latencyEstimate: 0,
      parameters: {},
    };
    expect(toolsTable([tool], io(true))).not.toContain(ESC);
    expect(toolsTable([tool], io(true))).toContain('remote.^[]0;x');
    const engine = {
      key: 'openai',
      address: 'http://127.0.0.1:1/v1',
      configured: true,
      reachable: true,
      models: [`evil${ESC}]8;;x`],
    };
    expect(enginesTable([engine], io(true))).toContain('evil^[]8;;x');
  });
});
