import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/index.js';
import { CodeInterpreterTool } from './code-interpreter.js';
import type { SandboxSelection } from './sandbox-backend.js';
import type { BwrapJail } from './sandbox-bwrap.js';
import { rootEntries } from './sandbox-host.js';
import { DEFAULT_SANDBOX_LIMITS, SandboxSlots } from './sandbox-limits.js';
import {
  createPyodideBackend,
  ensurePyodideSnapshot,
  type PyodidePackage,
  resolvePyodidePackage,
} from './sandbox-pyodide.js';
import { buildSeccompFilter, seccompArchOf } from './sandbox-seccomp.js';
import { selectSandbox } from './sandbox-select.js';
import { openSandboxSession } from './sandbox-session.js';
import { SharedPyodideSnapshot } from './sandbox-test-support.case.test.js';

// Ordinary behaviour of the Pyodide backend, reached through the tool with `select: { backend: 'pyodide' }`.
// CI must never skip: a missing sandbox fails there.
const onCi = process.env.CI === 'true';
const snapshot = new SharedPyodideSnapshot();
let snapshotDir = '';
let tool = new CodeInterpreterTool();
let selection: SandboxSelection = { ok: false, reason: 'not selected yet' };

beforeAll(async () => {
  snapshotDir = await snapshot.open();
  tool = new CodeInterpreterTool({
    select: { backend: 'pyodide', pyodideSnapshotDir: snapshotDir },
  });
  selection = await snapshot.selectWith(() => tool.sandbox());
}, 120_000);

afterAll(async () => {
  await snapshot.close();
});

/** Runs `code` through the tool, or returns undefined when no sandbox exists here (the refusal is checked). */
async function run(code: string, timeoutSeconds = 20) {
  const result = await tool.execute({ code, timeout_seconds: timeoutSeconds });
  if (selection.ok) return result;
  expect(result.content).toMatch(/^Code interpreter unavailable/);
  return undefined;
}

describe('pyodide backend availability', () => {
  it('is selected when asked for, or the refusal is checked out loud', async () => {
    if (!selection.ok && onCi)
      throw new Error(`CI must run the Pyodide sandbox tests: ${selection.reason}`);
    if (selection.ok)
      return expect(selection.backend).toMatchObject({ name: 'pyodide', seccomp: true });
    process.stderr.write(`skipped: ${selection.reason}\n`);
    expect((await tool.execute({ code: 'print(1)' })).success).toBe(false);
  });
});

// Concurrent calls queue for the sandbox slots: each test's time includes the wait for the others.
describe.concurrent('pyodide backend runs Python like python3 -I -', { timeout: 60_000 }, () => {
  it('prints, reports the backend and succeeds', async () => {
    const result = await run('print(2 + 2)\nimport sys\nprint(sys.version_info[0])');
    if (result === undefined) return;
    expect(result).toMatchObject({ success: true, content: '4\n3\n\n[exit status 0]' });
    expect(result.metadata).toMatchObject({ sandbox: 'pyodide', seccomp: true, returncode: 0 });
  });

  it("honours SystemExit's code", async () => {
    const three = await run('import sys\nprint("bye")\nsys.exit(3)');
    const none = await run('raise SystemExit');
    const text = await run('raise SystemExit("gave up")');
    if (three === undefined || none === undefined || text === undefined) return;
    expect(three).toMatchObject({ success: false, content: 'bye\n\n[exit status 3]' });
    expect(none.success).toBe(true);
    expect(text.content).toBe('[stderr]\ngave up\n\n[exit status 1]');
  });

  it('puts the traceback of an uncaught exception on stderr, without the driver frames', async () => {
    const result = await run('def f():\n    return 1 / 0\nf()');
    if (result === undefined) return;
    expect(result.success).toBe(false);
    expect(result.content).toContain('Traceback (most recent call last):');
    expect(result.content).toContain('File "<stdin>", line 3, in <module>');
    expect(result.content).toContain('ZeroDivisionError: division by zero');
    expect(result.content).not.toMatch(/_jarvis_main|<exec>/);
    expect(result.metadata.returncode).toBe(1);
  });

  it('reports a syntax error as python3 does', async () => {
    const result = await run('print(');
    if (result === undefined) return;
    expect(result.content).toMatch(/File "<stdin>", line 1[\s\S]*SyntaxError/);
  });

  it('gives the code an empty stdin (its own source does not leak into it)', async () => {
    const result = await run('import sys\n# stdin-marker\nprint(repr(sys.stdin.read()))');
    if (result === undefined) return;
    expect(result.content).toBe("''\n\n[exit status 0]");
  });

  it('supports top-level await', async () => {
    const result = await run('import asyncio\nawait asyncio.sleep(0.01)\nprint("awaited")');
    if (result === undefined) return;
    expect(result.content).toContain('awaited');
  });

  it('enforces the timeout within 0.5 s of the limit', async () => {
    const result = await run('while True:\n    pass', 1);
    if (result === undefined) return;
    expect(result.success ? '' : result.errorCode).toBe('timed_out');
    expect(result.content).toMatch(/^Execution timed out after 1 seconds/);
    expect(Number(result.metadata.elapsedMs)).toBeLessThan(1500);
  });

  it('reports the memory limit', async () => {
    const result = await run('x = bytearray(1536 * 1024**2)');
    if (result === undefined) return;
    expect(result.success).toBe(false);
    expect(result.content).toMatch(/^Memory limit exceeded \(512 MiB wasm memory/);
    expect(result.metadata.limit).toBe('memory');
  });
});

describe('pyodide backend starts clean on every call', () => {
  it('keeps nothing written, imported or defined by one call for the next', async () => {
    const first = await run(
      "open('/tmp/state', 'w').write('left over')\nimport sys\nsys.modules['planted'] = sys\nkept = 1\nprint('wrote')",
    );
    const second = await run(
      "import os, sys\nprint(os.path.exists('/tmp/state'), 'planted' in sys.modules, 'kept' in globals())",
    );
    if (first === undefined || second === undefined) return;
    expect(first.content).toContain('wrote');
    expect(second.content).toBe('False False False\n\n[exit status 0]');
  });
});

describe('pyodide backend selection', () => {
  it("is what 'auto' picks when python3 is missing but bubblewrap works", async () => {
    const auto = await selectSandbox({
      pythonPath: '/nonexistent/python3',
      pyodideSnapshotDir: snapshotDir,
    });
    if (!selection.ok) return expect(auto.ok).toBe(false);
    expect(auto.ok && auto.backend.name).toBe('pyodide');
  });

  it("is never picked by 'bwrap', and says why Pyodide cannot be used", async () => {
    const unknown = await selectSandbox({ backend: 'docker' as never });
    expect(unknown).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/accepted: auto, bwrap, pyodide/),
    });
    const bwrapOnly = await selectSandbox({ backend: 'bwrap', pythonPath: '/nonexistent/python3' });
    const unresolved = await selectSandbox({
      backend: 'pyodide',
      pyodideDir: '/nonexistent/pyodide',
    });
    expect([bwrapOnly.ok, unresolved.ok]).toEqual([false, false]);
    // Without a working jail both refusals name bubblewrap or Linux first (the availability test says so).
    if (!selection.ok) return;
    expect(bwrapOnly.ok ? '' : bwrapOnly.reason).toMatch(/^python3 not found/);
    expect(unresolved.ok ? '' : unresolved.reason).toMatch(
      /^the pyodide package cannot be resolved/,
    );
    // The install command names the version package.json pins as the optional peer dependency.
    const manifest = JSON.parse(
      await readFile(new URL('../../../../package.json', import.meta.url), 'utf8'),
    );
    expect(unresolved.ok ? '' : unresolved.reason).toContain(
      `npm install pyodide@${manifest.peerDependencies.pyodide}`,
    );
  });
});

describe('rlm session without python3', () => {
  it('refuses clearly instead of falling back to Pyodide', async () => {
    const opened = await openSandboxSession({
      lifetimeMs: 1000,
      pythonPath: '/nonexistent/python3',
    });
    expect(opened.ok).toBe(false);
    // Without a working jail the refusal names bubblewrap or Linux first (the availability test says so).
    if (!selection.ok) return;
    expect(opened.ok ? '' : opened.reason).toMatch(
      /^the rlm agent needs python3, not found at \/nonexistent\/python3/,
    );
  });
});

/** The shared jail with `slots`, for driving `createPyodideBackend` directly. */
async function jailWith(slots: SandboxSlots): Promise<BwrapJail> {
  const arch = seccompArchOf(process.arch);
  return {
    bwrapPath: '/usr/bin/bwrap',
    prlimitPath: '/usr/bin/prlimit',
    rootEntries: await rootEntries(),
    limits: DEFAULT_SANDBOX_LIMITS,
    seccompFilter: arch ? buildSeccompFilter(arch) : undefined,
    slots,
    clock: systemClock,
  };
}

/** Slots that remember the most runs they ever held at once. */
class CountingSlots extends SandboxSlots {
  most = 0;
  override run<T>(task: () => Promise<T>): Promise<T> {
    return super.run(() => {
      this.most = Math.max(this.most, this.inUse);
      return task();
    });
  }
}

/** A stand-in pyodide package whose `loadPyodide` only makes a tiny snapshot (or fails), so cache tests are fast. */
async function fakePyodide(dir: string, snapshot: string | undefined): Promise<PyodidePackage> {
  const make =
    snapshot === undefined
      ? "throw new Error('fake pyodide cannot boot')"
      : `return new TextEncoder().encode(${JSON.stringify(snapshot)})`;
  await writeFile(join(dir, 'package.json'), '{"name": "pyodide", "version": "0.0.0-fake"}');
  await writeFile(
    join(dir, 'pyodide.mjs'),
    `export async function loadPyodide() { return { makeMemorySnapshot() { ${make}; } }; }\n`,
  );
  return { dir, version: '0.0.0-fake' };
}

/** Runs `test` with a fresh snapshot folder and fake package folder, removed afterwards. */
async function withFolders(test: (cache: string, fake: string) => Promise<void>): Promise<void> {
  const cache = await mkdtemp(join(tmpdir(), 'jarvis-pyodide-cache-'));
  const fake = await mkdtemp(join(tmpdir(), 'jarvis-pyodide-fake-'));
  // Like an installed package: readable by the unprivileged user the jail runs as when we are root.
  await chmod(fake, 0o755);
  try {
    await test(cache, fake);
  } finally {
    await rm(cache, { recursive: true, force: true });
    await rm(fake, { recursive: true, force: true });
  }
}

describe('pyodide snapshot cache', () => {
  const options = async (pyodide: PyodidePackage, snapshotDir: string) => ({
    ...(await jailWith(new SandboxSlots({ limit: 1 }))),
    nodePath: process.execPath,
    pyodide,
    snapshotDir,
  });

  it('rebuilds a corrupt snapshot atomically, then reuses it without booting Pyodide', async () => {
    if (!selection.ok) return;
    await withFolders(async (cache, fake) => {
      const path = join(cache, 'pyodide-0.0.0-fake.snapshot');
      await writeFile(path, 'OJPYSNP1 but not a snapshot');
      const rebuilt = await ensurePyodideSnapshot(
        await options(await fakePyodide(fake, 'v1'), cache),
      );
      expect(rebuilt).toEqual({ ok: true, path });
      const bytes = await readFile(path);
      expect(bytes.subarray(0, 8).toString()).toBe('OJPYSNP1');
      expect(bytes.subarray(40).toString()).toBe('v1');
      expect(await readdir(cache)).toEqual(['pyodide-0.0.0-fake.snapshot']);
      const reused = await ensurePyodideSnapshot(
        await options(await fakePyodide(fake, undefined), cache),
      );
      expect(reused).toEqual({ ok: true, path });
      expect(await readFile(path)).toEqual(bytes);
    });
  });

  it('says why when the snapshot cannot be built, and leaves no file behind', async () => {
    if (!selection.ok) return;
    await withFolders(async (cache, fake) => {
      const failed = await ensurePyodideSnapshot(
        await options(await fakePyodide(fake, undefined), cache),
      );
      expect(failed).toMatchObject({
        ok: false,
        reason: expect.stringMatching(
          /^building the Pyodide snapshot failed: .*fake pyodide cannot boot/,
        ),
      });
      expect(await readdir(cache)).toEqual([]);
    });
  });

  it('refuses a snapshot folder other users can write into', async () => {
    await withFolders(async (cache, fake) => {
      await chmod(cache, 0o777);
      const result = await ensurePyodideSnapshot(
        await options(await fakePyodide(fake, 'v1'), cache),
      );
      expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/is not private/) });
    });
  });
});

describe('pyodide backend slots', () => {
  it('runs at most `limit` calls at once through the shared slots', async () => {
    const pyodide = await resolvePyodidePackage();
    if (!selection.ok || typeof pyodide === 'string') return;
    const slots = new CountingSlots({ limit: 2 });
    const base = { ...(await jailWith(slots)), nodePath: process.execPath, pyodide };
    const snapshot = await ensurePyodideSnapshot({ ...base, snapshotDir });
    if (!snapshot.ok) throw new Error(snapshot.reason);
    const backend = createPyodideBackend({ ...base, snapshotPath: snapshot.path });
    const runs = await Promise.all(
      [1, 2, 3].map((n) => backend.run({ code: `print(${n})`, timeoutMs: 20_000 })),
    );
    expect(runs.map((one) => one.stdout)).toEqual(['1\n', '2\n', '3\n']);
    expect(slots.most).toBe(2);
    expect(slots.inUse).toBe(0);
  }, 60_000);
});
