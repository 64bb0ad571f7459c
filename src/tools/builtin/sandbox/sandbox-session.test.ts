import { afterEach, describe, expect, it } from 'vitest';
import { UNPRIVILEGED_HOST_ID } from './sandbox-bwrap.js';
import {
  HOST_KNOBS,
  HostKnobGuard,
  hostIdsWhile,
  pythonKnobWrite,
  pythonNamedWait,
  REFUSED,
  WRITTEN,
} from './sandbox-host-knobs.case.test.js';
import { openSandboxSession, type SandboxSession } from './sandbox-session.js';

const sessions: SandboxSession[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
});

/** Opens a session; without bwrap/python3 this fails loudly in CI and checks the reported reason elsewhere. */
async function open(): Promise<SandboxSession | undefined> {
  const opened = await openSandboxSession({ lifetimeMs: 20_000 });
  if (!opened.ok) {
    if (process.env.CI === 'true')
      throw new Error(`sandbox session unavailable in CI: ${opened.reason}`);
    expect(opened.reason).toMatch(/not found|needs Linux|seccomp|interpreter/);
    return undefined;
  }
  sessions.push(opened.session);
  return opened.session;
}

function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('openSandboxSession', () => {
  it('keeps variables between steps and captures printed output', async () => {
    const session = await open();
    if (session === undefined) return;
    expect(await session.exec('x = 41', { timeoutMs: 5000 })).toMatchObject({
      ok: true,
      output: '',
    });
    const second = await session.exec('x += 1\nprint(x)', { timeoutMs: 5000 });
    expect(second).toMatchObject({ ok: true, output: '42\n', end: 'completed' });
  });

  it('reports an exception with its traceback and keeps running', async () => {
    const session = await open();
    if (session === undefined) return;
    const failed = await session.exec('print("a")\n1/0', { timeoutMs: 5000 });
    expect(failed).toMatchObject({ ok: false, output: 'a\n', end: 'completed' });
    expect(failed.error).toContain('ZeroDivisionError');
    expect(failed.error).not.toContain('_run');
    expect(await session.exec('print(2)', { timeoutMs: 5000 })).toMatchObject({
      ok: true,
      output: '2\n',
    });
  });

  it('answers host calls from inside the code', async () => {
    const session = await open();
    if (session === undefined) return;
    const result = await session.exec('print(host_call("echo", {"a": 1}))\nhost_call("fail")', {
      timeoutMs: 5000,
      onCall: async (name, payload) => {
        if (name === 'fail') throw new Error('nope');
        return { name, payload };
      },
    });
    expect(result.output).toBe("{'name': 'echo', 'payload': {'a': 1}}\n");
    expect(result.error).toContain('RuntimeError: nope');
  });

  it('runs isolated: empty environment, no network, no host files', async () => {
    const session = await open();
    if (session === undefined) return;
    const code = [
      'import os, socket',
      'print(sorted(k for k in os.environ if k not in ("PATH", "HOME", "LANG", "LC_CTYPE", "PWD")))',
      'print(os.path.exists("/work"), os.path.exists("/etc/passwd"))',
      'try:\n    socket.create_connection(("1.1.1.1", 80), timeout=1)\nexcept OSError as e:\n    print("blocked")',
    ].join('\n');
    const result = await session.exec(code, { timeoutMs: 5000 });
    expect(result.output).toBe('[]\nFalse False\nblocked\n');
  });

  it('stops a step at its timeout and kills the interpreter', async () => {
    const session = await open();
    if (session === undefined) return;
    const result = await session.exec('while True: pass', { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, end: 'timeout' });
    expect(result.elapsedMs).toBeLessThan(1500);
    await session.close();
    expect(isRunning(session.pid)).toBe(false);
    expect(await session.exec('print(1)', { timeoutMs: 1000 })).toMatchObject({ end: 'crashed' });
  });

  it('stops on abort and leaves no process behind', async () => {
    const session = await open();
    if (session === undefined) return;
    const controller = new AbortController();
    const pending = session.exec('import time\ntime.sleep(30)', {
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, end: 'aborted' });
    await session.close();
    expect(isRunning(session.pid)).toBe(false);
  });
});

describe('openSandboxSession never runs as host root (issue 13)', () => {
  it('the interpreter is, seen from the host, an unprivileged user, and the host knobs stay out of reach', async () => {
    const guard = new HostKnobGuard();
    await guard.record();
    const session = await open();
    if (session === undefined) return;
    try {
      for (const knob of HOST_KNOBS) {
        const value = knob.attempt(guard.original(knob), '/tmp/jarvis-session-core-marker');
        const step = await session.exec(pythonKnobWrite(knob.path, value), { timeoutMs: 5000 });
        expect(step.output).toContain(REFUSED);
        expect(step.output).not.toContain(WRITTEN);
      }
    } finally {
      expect(await guard.restoreChanged()).toEqual([]);
    }
    const marker = `jvs-rlm-${process.pid % 100_000}`;
    const ids = await hostIdsWhile(
      marker,
      session.exec(pythonNamedWait(marker), { timeoutMs: 10_000 }),
    );
    const euid = process.geteuid?.() ?? -1;
    const uid = euid === 0 ? UNPRIVILEGED_HOST_ID : euid;
    expect(ids?.uids).toEqual([uid, uid, uid, uid]);
    expect(ids?.capEff).toBe('0000000000000000');
  });
});
