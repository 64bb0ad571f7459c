import { chmod, cp, lstat, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CodeInterpreterTool } from './code-interpreter.js';
import { resolvePyodidePackage } from './sandbox-pyodide.js';
import { stagePyodideForJail } from './sandbox-pyodide-stage.js';
import { SharedPyodideSnapshot } from './sandbox-test-support.case.test.js';

// When we are root the jail runs as an unprivileged host user, which cannot read a package inside a folder
// closed to others (a checkout under /root, a 0700 temp folder): such a package is staged into a copy.
const NOBODY = { uid: 65534, gid: 65534 } as const;
const onCi = process.env.CI === 'true';
let work = '';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'jarvis-stage-'));
  await chmod(work, 0o755);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A fake package folder (two files and a sub-folder) inside `parent`, with mode `mode` on `parent`. */
async function fakePackage(parent: string, mode: number) {
  const dir = join(parent, 'node_modules', 'pyodide');
  await mkdir(join(dir, 'sub'), { recursive: true });
  await writeFile(join(dir, 'package.json'), '{"version":"0.0.1"}');
  await writeFile(join(dir, 'sub', 'python_stdlib.zip'), 'zip');
  await chmod(parent, mode);
  return { dir, version: '0.0.1' };
}

describe('stagePyodideForJail', () => {
  it('uses a package others can read where it is, and any package when we are not root', async () => {
    const open = await mkdtemp(join(work, 'open-'));
    const pkg = await fakePackage(open, 0o755);
    const staging = await mkdtemp(join(work, 'staging-'));
    expect(await stagePyodideForJail(pkg, NOBODY, staging)).toEqual(pkg);
    const closed = await mkdtemp(join(work, 'closed-'));
    const hidden = await fakePackage(closed, 0o700);
    expect(await stagePyodideForJail(hidden, undefined, staging)).toEqual(hidden);
  });

  it('copies a package in a closed folder once, readable and not writable by others', async () => {
    const closed = await mkdtemp(join(work, 'closed-'));
    const pkg = await fakePackage(closed, 0o700);
    const staging = await mkdtemp(join(work, 'staging-'));
    const first = await stagePyodideForJail(pkg, NOBODY, staging);
    if (typeof first === 'string') throw new Error(first);
    expect(first.dir).not.toBe(pkg.dir);
    expect(dirname(first.dir)).toBe(staging);
    expect(await readFile(join(first.dir, 'sub', 'python_stdlib.zip'), 'utf8')).toBe('zip');
    expect((await stat(first.dir)).mode & 0o777).toBe(0o755);
    expect((await stat(join(first.dir, 'package.json'))).mode & 0o777).toBe(0o644);
    const again = await stagePyodideForJail(pkg, NOBODY, staging);
    expect(again).toEqual(first);
  });

  it('never trusts a staged folder that others can write to', async () => {
    const closed = await mkdtemp(join(work, 'closed-'));
    const pkg = await fakePackage(closed, 0o700);
    const staging = await mkdtemp(join(work, 'staging-'));
    const planted = join(staging, 'openjarvis-pyodide-0.0.1-pkg');
    await mkdir(planted, { mode: 0o777 });
    await chmod(planted, 0o777);
    await writeFile(join(planted, '.openjarvis-staged'), '');
    await writeFile(join(planted, 'package.json'), '{"evil":true}');
    const staged = await stagePyodideForJail(pkg, NOBODY, staging);
    if (typeof staged === 'string') throw new Error(staged);
    expect(await readFile(join(staged.dir, 'package.json'), 'utf8')).toBe('{"version":"0.0.1"}');
    expect((await lstat(staged.dir)).mode & 0o022).toBe(0);
  });
});

describe('the Pyodide backend with its package in a folder closed to others', () => {
  it('runs Python (the package is staged for the jail user when we are root)', async () => {
    const found = await resolvePyodidePackage();
    if (typeof found === 'string') throw new Error(found);
    const closed = await mkdtemp(join(work, 'checkout-'));
    await chmod(closed, 0o700);
    const copy = join(closed, 'pyodide');
    await cp(found.dir, copy, { recursive: true });
    const snapshot = new SharedPyodideSnapshot();
    const select = { backend: 'pyodide', pyodideSnapshotDir: await snapshot.open() } as const;
    onTestFinished(() => snapshot.close());
    const where = await snapshot.selectWith(() => new CodeInterpreterTool({ select }).sandbox());
    if (!where.ok) {
      if (onCi) throw new Error(`CI must run the Pyodide sandbox tests: ${where.reason}`);
      process.stderr.write(`skipped: ${where.reason}\n`);
      return;
    }
    const tool = new CodeInterpreterTool({ select: { ...select, pyodideDir: copy } });
    expect(await tool.sandbox()).toMatchObject({ ok: true });
    const result = await tool.execute({ code: 'print(6 * 7)', timeout_seconds: 30 });
    expect(result.content).toContain('42');
  }, 120_000);
});
