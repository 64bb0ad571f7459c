import { describe, expect, it } from 'vitest';
import { CodeInterpreterTool } from './code-interpreter.js';
import type { SandboxBackend, SandboxName, SandboxRequest } from './sandbox-backend.js';
import type { ChildRunResult } from './sandbox-process.js';
import { selectSandbox } from './sandbox-select.js';

/** A backend that returns a canned run and records the requests it got. */
function fakeBackend(run: Partial<ChildRunResult>, name: SandboxName = 'bubblewrap') {
  const requests: SandboxRequest[] = [];
  const backend: SandboxBackend = {
    name,
    seccomp: name === 'bubblewrap',
    run: async (request) => {
      requests.push(request);
      return {
        stdout: '',
        stderr: '',
        exitCode: 0,
        exitSignal: null,
        stoppedBy: 'exit',
        elapsedMs: 12,
        pid: 1,
        ...run,
      };
    },
  };
  return { requests, tool: new CodeInterpreterTool({ sandbox: { ok: true, backend } }) };
}

describe('CodeInterpreterTool arguments', () => {
  it('refuses empty code, bad timeouts and oversized code', async () => {
    const { tool, requests } = fakeBackend({});
    const empty = await tool.execute({ code: '  ' });
    expect(empty).toMatchObject({
      success: false,
      errorCode: 'invalid_arguments',
      content: 'No code provided.',
    });
    for (const timeout of [-1, 0, Number.NaN, '5'])
      expect((await tool.execute({ code: 'pass', timeout_seconds: timeout })).content).toMatch(
        /timeout_seconds must be/,
      );
    expect((await tool.execute({ code: 'x'.repeat(100_001) })).content).toMatch(/Code too long/);
    expect(requests).toEqual([]);
  });

  it('defaults the timeout to 10 s and caps it at 60 s', async () => {
    const { tool, requests } = fakeBackend({});
    await tool.execute({ code: 'pass' });
    await tool.execute({ code: 'pass', timeout_seconds: 3600 });
    expect(requests.map((request) => request.timeoutMs)).toEqual([10_000, 60_000]);
  });

  it('has the upstream spec shape', () => {
    const { tool } = fakeBackend({});
    expect(tool.spec).toMatchObject({ name: 'code_interpreter', category: 'code' });
    expect(tool.spec.parameters).toMatchObject({ required: ['code'] });
  });
});

describe('CodeInterpreterTool results', () => {
  it('puts stdout, stderr and the exit status in one string and reports the backend', async () => {
    const { tool } = fakeBackend({ stdout: '4\n', stderr: 'warn\n', exitCode: 0 });
    const result = await tool.execute({ code: 'print(2+2)' });
    expect(result.success).toBe(true);
    expect(result.content).toBe('4\n[stderr]\nwarn\n\n[exit status 0]');
    expect(result.metadata).toMatchObject({
      sandbox: 'bubblewrap',
      seccomp: true,
      returncode: 0,
      limit: null,
    });
  });

  it('says "(no output)" and fails on a non-zero exit', async () => {
    const { tool } = fakeBackend({ exitCode: 3 });
    const result = await tool.execute({ code: 'raise SystemExit(3)' });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'tool_error',
      content: '(no output)\n[exit status 3]',
    });
  });

  it.each([
    [
      { stoppedBy: 'timeout', exitCode: null, exitSignal: 'SIGKILL' },
      /^Execution timed out after 10 seconds/,
      'timeout',
      'timed_out',
    ],
    [{ stderr: 'MemoryError\n', exitCode: 1 }, /^Memory limit exceeded/, 'memory', 'tool_error'],
    [{ exitCode: 137 }, /^Memory limit exceeded/, 'memory', 'tool_error'],
    [{ exitCode: 152 }, /^CPU time limit exceeded/, 'cpu', 'tool_error'],
    [
      { stoppedBy: 'output_limit', exitCode: null, exitSignal: 'SIGKILL' },
      /^Output limit exceeded/,
      'output',
      'tool_error',
    ],
    [
      { stoppedBy: 'aborted', exitCode: null, exitSignal: 'SIGKILL' },
      /^Execution cancelled/,
      null,
      'cancelled',
    ],
  ] as const)(
    'names the limit that stopped the run (%o)',
    async (run, headline, limit, errorCode) => {
      const { tool } = fakeBackend(run);
      const result = await tool.execute({ code: 'x' });
      expect(result.success).toBe(false);
      expect(result.content).toMatch(headline);
      expect(result.metadata.limit).toBe(limit);
      expect(result.success ? '' : result.errorCode).toBe(errorCode);
    },
  );

  it('caps the output shown to the model at 10,000 characters with a marker', async () => {
    const { tool } = fakeBackend({ stdout: 'x'.repeat(50_000) });
    const result = await tool.execute({ code: 'x' });
    expect(result.content).toContain(
      '[output truncated: showing the first 10000 of 50000 characters]',
    );
    expect(result.metadata.truncated).toBe(true);
  });

  it('marks every degraded-mode result', async () => {
    const { tool } = fakeBackend({ stdout: 'hi\n' }, 'unsandboxed');
    const result = await tool.execute({ code: 'print("hi")' });
    expect(result.content).toMatch(/^\[WARNING: this code ran WITHOUT a sandbox/);
    expect(result.metadata.sandbox).toBe('unsandboxed');
  });
});

describe('sandbox selection without isolation', () => {
  it('refuses, saying what to install, when bubblewrap is missing', async () => {
    const selection = await selectSandbox({ bwrapPath: '/nonexistent/bwrap' });
    expect(selection.ok).toBe(false);
    const tool = new CodeInterpreterTool({ sandbox: selection });
    const result = await tool.execute({ code: 'print(1)' });
    expect(result.success).toBe(false);
    expect(result.content).toMatch(
      /^Code interpreter unavailable: no sandbox backend \(bubblewrap not found/,
    );
    expect(result.content).toContain('apt-get install -y bubblewrap python3');
    expect(result.metadata.sandbox).toBe('none');
  });

  it('refuses off Linux', async () => {
    const selection = await selectSandbox({ platform: 'darwin' });
    expect(selection).toMatchObject({ ok: false, reason: expect.stringMatching(/needs Linux/) });
  });

  it('runs degraded only when explicitly allowed, with an empty environment', async () => {
    process.env.JARVIS_DEGRADED_CANARY = 'leaked';
    try {
      const selection = await selectSandbox({
        bwrapPath: '/nonexistent/bwrap',
        allowUnsandboxed: true,
      });
      const tool = new CodeInterpreterTool({ sandbox: selection });
      const result = await tool.execute({ code: 'import os\nprint(sorted(os.environ))' });
      if (!selection.ok) return expect(result.content).toMatch(/python3 not found/);
      expect(selection.backend.name).toBe('unsandboxed');
      expect(result.content).toMatch(/^\[WARNING: this code ran WITHOUT a sandbox/);
      expect(result.content).not.toContain('JARVIS_DEGRADED_CANARY');
      expect(result.metadata.sandbox).toBe('unsandboxed');
    } finally {
      delete process.env.JARVIS_DEGRADED_CANARY;
    }
  });
});
