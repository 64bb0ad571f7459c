import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createToolSpec } from '../core/index.js';
import {
  approvalMode,
  type ConfirmationRequest,
  createApproval,
  describeArguments,
} from './approval.js';
import type { CliIo } from './cli-io.js';

function fakeIo(options: { stdinTTY: boolean; stderrTTY: boolean; signal?: AbortSignal }) {
  const stdin = Object.assign(new PassThrough(), { isTTY: options.stdinTTY });
  const stderr = { text: '', isTTY: options.stderrTTY, columns: 80, write: (_: string) => {} };
  stderr.write = (text: string) => {
    stderr.text += text;
  };
  const io: CliIo = {
    stdout: { write: () => {}, isTTY: false, columns: 80 },
    stderr,
    stdin,
    env: {},
    cwd: '/',
    signal: options.signal ?? new AbortController().signal,
  };
  return { io, stdin, stderr };
}

function request(callId: string, args: Record<string, unknown> = { path: '/tmp/x' }) {
  return {
    toolName: 'dangerous',
    callId,
    arguments: args,
    spec: createToolSpec({ name: 'dangerous', description: 'd', requiresConfirmation: true }),
  } satisfies ConfirmationRequest;
}

describe('approvalMode', () => {
  it('approves with --yes, asks only when stdin and stderr are terminals, refuses otherwise', () => {
    expect(approvalMode(true, fakeIo({ stdinTTY: false, stderrTTY: false }).io)).toBe('approve');
    expect(approvalMode(false, fakeIo({ stdinTTY: true, stderrTTY: true }).io)).toBe('ask');
    expect(approvalMode(false, fakeIo({ stdinTTY: false, stderrTTY: true }).io)).toBe('refuse');
    expect(approvalMode(false, fakeIo({ stdinTTY: true, stderrTTY: false }).io)).toBe('refuse');
  });
});

describe('createApproval', () => {
  it('with --yes approves every call without asking', async () => {
    const { io, stderr } = fakeIo({ stdinTTY: true, stderrTTY: true });
    const approval = createApproval({ yes: true, io });
    expect(await approval.confirm(request('c1'))).toBe(true);
    expect(stderr.text).toBe('');
  });

  it('without a terminal refuses and remembers the call was refused unasked', async () => {
    const { io, stderr } = fakeIo({ stdinTTY: false, stderrTTY: false });
    const approval = createApproval({ yes: false, io });
    expect(await approval.confirm(request('c1'))).toBe(false);
    expect(approval.refusedUnasked('c1')).toBe(true);
    expect(approval.refusedUnasked('c2')).toBe(false);
    expect(stderr.text).toBe('');
  });

  it('on a terminal asks on stderr, reads one line, and asks one question at a time', async () => {
    const { io, stdin, stderr } = fakeIo({ stdinTTY: true, stderrTTY: true });
    const around: string[] = [];
    const approval = createApproval({
      yes: false,
      io,
      around: async (prompt) => {
        around.push('before');
        const answer = await prompt();
        around.push('after');
        return answer;
      },
    });
    const first = approval.confirm(request('c1'));
    const second = approval.confirm(request('c2', { path: '/etc' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stderr.text).toBe('Allow dangerous with {"path":"/tmp/x"}? [y/N] ');
    stdin.write('y\n');
    expect(await first).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stderr.text).toContain('Allow dangerous with {"path":"/etc"}? [y/N] ');
    stdin.write('no\n');
    expect(await second).toBe(false);
    expect(around).toEqual(['before', 'after', 'before', 'after']);
    expect(approval.refusedUnasked('c2')).toBe(false);
  });

  it('treats the end of stdin and Ctrl-C as no', async () => {
    const ended = fakeIo({ stdinTTY: true, stderrTTY: true });
    const answer = createApproval({ yes: false, io: ended.io }).confirm(request('c1'));
    ended.stdin.end();
    expect(await answer).toBe(false);
    const controller = new AbortController();
    const cancelled = fakeIo({ stdinTTY: true, stderrTTY: true, signal: controller.signal });
    const pending = createApproval({ yes: false, io: cancelled.io }).confirm(request('c2'));
    controller.abort();
    expect(await pending).toBe(false);
  });
});

describe('describeArguments', () => {
  it('shows compact JSON cut to a readable length', () => {
    expect(describeArguments({ a: 1 })).toBe('{"a":1}');
    expect(describeArguments({ text: 'x'.repeat(500) }, 20)).toBe(`{"text":"${'x'.repeat(10)}…`);
    expect(describeArguments(undefined)).toBe('undefined');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(describeArguments(circular)).toBe('[object Object]');
  });
});
