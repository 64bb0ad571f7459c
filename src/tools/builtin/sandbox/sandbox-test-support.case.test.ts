// Shared by the sandbox test files (code_interpreter on bubblewrap, Pyodide): the canaries hostile code must
// not reach, and the records that prove nothing was left running. Not a test file itself.
import { execFile } from 'node:child_process';
import {
  chmod,
  chown,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { expect } from 'vitest';
import type { ToolResult } from '../../../core/index.js';
import type { AsUserReport, AsUserRequest } from './sandbox-as-user.fixture.js';
import type { SandboxBackend, SandboxSelection } from './sandbox-backend.js';
import { HostKnobGuard } from './sandbox-host-knobs.case.test.js';

/** One hostile snippet and what its result must show. */
export interface Hostile {
  readonly name: string;
  readonly code: () => string;
  readonly timeoutSeconds?: number;
  readonly check: (result: ToolResult) => void | Promise<void>;
}

/** How a backend's test file checks a result (its `metadata.sandbox` and its limit messages differ). */
export interface LimitChecks {
  readonly failedWith: (pattern: RegExp) => (result: ToolResult) => void;
  readonly timedOutWithin: (limitSeconds: number) => (result: ToolResult) => void;
}

/** The resource-limit snippets every backend must stop the same way: loops, sleeps, floods of output. */
export function limitHostiles({ failedWith, timedOutWithin }: LimitChecks): Hostile[] {
  return [
    {
      name: 'infinite loop',
      code: () => 'while True:\n    pass',
      timeoutSeconds: 1,
      check: timedOutWithin(1),
    },
    {
      name: 'sleep past the limit',
      code: () => 'import time\ntime.sleep(100)',
      timeoutSeconds: 1,
      check: timedOutWithin(1),
    },
    {
      name: '50 MB of output',
      code: () => "import sys\nsys.stdout.write('x' * 50_000_000)",
      check: (result) => {
        failedWith(/Output limit exceeded/)(result);
        expect(result.content.length).toBeLessThan(10_300);
        expect(result.content).toContain('[output truncated');
      },
    },
    {
      name: 'endless stderr',
      code: () => "import sys\nwhile True:\n    sys.stderr.write('y' * 1000)",
      check: (result) => {
        failedWith(/Output limit exceeded/)(result);
        expect(result.content.length).toBeLessThan(10_300);
      },
    },
  ];
}

/**
 * What sandboxed code must never see: a random token in the environment (`JARVIS_SANDBOX_CANARY`), in a file
 * outside the sandbox, and served by a loopback TCP server that counts its connections.
 */
export class Canaries {
  readonly token = `canary-${process.pid}-${Math.random().toString(36).slice(2)}`;
  file = '';
  port = 0;
  connections = 0;
  dir = '';
  #server: Server | undefined;

  /** Plants the token in the environment and a file, and starts the loopback server. */
  async plant(): Promise<void> {
    process.env.JARVIS_SANDBOX_CANARY = this.token;
    this.dir = await mkdtemp(join(tmpdir(), 'jarvis-canary-'));
    this.file = join(this.dir, 'secret.txt');
    await writeFile(this.file, this.token);
    const server = createServer((socket) => {
      this.connections += 1;
      socket.end(this.token);
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  /** Removes the token, the file and the server. */
  async remove(): Promise<void> {
    delete process.env.JARVIS_SANDBOX_CANARY;
    const server = this.#server;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Records the bwrap pid of every run so the tests can check that no process or process group outlives it. */
export class PidRecorder {
  readonly pids: number[] = [];

  /** Wraps a selected backend so that each run's pid is recorded. */
  recording(chosen: SandboxSelection): SandboxSelection {
    if (!chosen.ok) return chosen;
    const inner = chosen.backend;
    const backend: SandboxBackend = {
      name: inner.name,
      seccomp: inner.seccomp,
      run: async (request) => {
        const result = await inner.run(request);
        if (result.pid !== undefined) this.pids.push(result.pid);
        return result;
      },
    };
    return { ok: true, backend };
  }

  /** The recorded pids whose process or process group still exists. */
  survivors(): number[] {
    return this.pids.filter((pid) => alive(pid) || alive(-pid));
  }
}

/** Command lines of every process on the host. */
export async function hostCommandLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      lines.push((await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' '));
    } catch {
      // The process exited while we looked.
    }
  }
  return lines;
}

/** True when a process (or, with a negative pid, a process group) still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The ordinary (not root, not `nobody`) host user the tests run the sandbox as when they themselves are root. */
export const ORDINARY_UID = 4242;

/** What the ordinary-user run needs: the backend, and for Pyodide the package and a snapshot to seed. */
export interface OrdinaryUserRun {
  readonly backend: 'bwrap' | 'pyodide';
  readonly pyodideDir?: string;
  /** A valid snapshot file to copy into the user's own cache (saves booting Pyodide again, ~5 s). */
  readonly seedSnapshot?: string;
}

/** The fixture's report, with the uid it ran as and the host knobs it changed (restored before returning). */
export interface OrdinaryUserOutcome {
  readonly uid: number;
  readonly report: AsUserReport;
  readonly markerPath: string;
  readonly changedKnobs: readonly string[];
}

/**
 * Runs code_interpreter from a child Node process started as an ordinary user (uid 4242 when we are root,
 * otherwise ourselves). The fixture is bundled into a fresh world-readable folder, and for Pyodide the package
 * is copied there too, so the run does not depend on who may read this checkout.
 */
export async function runAsOrdinaryUser(run: OrdinaryUserRun): Promise<OrdinaryUserOutcome> {
  const root = process.geteuid?.() === 0;
  const uid = root ? ORDINARY_UID : (process.geteuid?.() ?? -1);
  const dir = await mkdtemp(join(tmpdir(), 'jarvis-as-user-'));
  const guard = new HostKnobGuard();
  await guard.record();
  try {
    await chmod(dir, 0o755);
    const request = await prepareUserFolder(dir, run, root);
    const script = join(dir, 'fixture.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./sandbox-as-user.fixture.ts', import.meta.url))],
      ...{ bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: script },
      logLevel: 'silent',
    });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [script, JSON.stringify(request)],
      {
        ...{ cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } },
        ...(root ? { uid, gid: uid } : {}),
        timeout: 120_000,
        maxBuffer: 1024 * 1024,
      },
    );
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as AsUserReport;
    return {
      uid,
      report,
      markerPath: request.markerPath,
      changedKnobs: await guard.restoreChanged(),
    };
  } finally {
    await guard.restoreChanged();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Copies what the run needs into `dir` (the pyodide package, a snapshot cache owned by the user) and says where. */
async function prepareUserFolder(
  dir: string,
  run: OrdinaryUserRun,
  root: boolean,
): Promise<AsUserRequest> {
  const request: AsUserRequest = { backend: run.backend, markerPath: join(dir, 'core-marker') };
  if (run.backend !== 'pyodide') return request;
  const pyodideDir = join(dir, 'pyodide');
  const snapshotDir = join(dir, 'snapshots');
  if (run.pyodideDir !== undefined) await cp(run.pyodideDir, pyodideDir, { recursive: true });
  await mkdir(snapshotDir, { mode: 0o700 });
  if (run.seedSnapshot !== undefined) {
    const seeded = join(snapshotDir, basename(run.seedSnapshot));
    await cp(run.seedSnapshot, seeded);
    if (root) await chown(seeded, ORDINARY_UID, ORDINARY_UID);
  }
  if (root) await chown(snapshotDir, ORDINARY_UID, ORDINARY_UID);
  return { ...request, pyodideDir, snapshotDir };
}

/** The longest a file waits for another one building the shared snapshot before it builds its own. */
const SNAPSHOT_LOCK_WAIT_MS = 180_000;

/** True when `error` is a Node error with `code`. */
const hasCode = (error: unknown, code: string): boolean =>
  error instanceof Error && (error as NodeJS.ErrnoException).code === code;

/**
 * A Pyodide snapshot folder shared by the sandbox test files of one vitest run: inside the run's test build
 * (`OPENJARVIS_TEST_BUILD`, set by the global setup and removed by its teardown), so a run boots Pyodide from
 * scratch once instead of once per file (each boot is seconds of CPU). Selecting (which builds or reuses the
 * snapshot) runs under a lock folder, so two files never build it at the same time. Without a run folder the
 * snapshot folder is this file's own, removed by `close`.
 */
export class SharedPyodideSnapshot {
  dir = '';
  #owned = false;

  /** Creates (or finds) the folder and returns it. */
  async open(): Promise<string> {
    const run = process.env.OPENJARVIS_TEST_BUILD;
    this.#owned = run === undefined;
    if (run === undefined) this.dir = await mkdtemp(join(tmpdir(), 'jarvis-pyodide-snapshot-'));
    else {
      this.dir = join(run, 'pyodide-snapshot');
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
    }
    return this.dir;
  }

  /** Runs `select` (a sandbox selection using this folder) while no other file is selecting with it. */
  async selectWith<T>(select: () => Promise<T>): Promise<T> {
    const lock = join(this.dir, '.selecting');
    const locked = await this.#acquire(lock);
    try {
      return await select();
    } finally {
      if (locked) await rm(lock, { recursive: true, force: true });
    }
  }

  /** Removes the folder when it is this file's own (the run's is removed with the test build). */
  async close(): Promise<void> {
    if (this.#owned) await rm(this.dir, { recursive: true, force: true });
  }

  /** Takes the lock folder (false when it waited too long and goes ahead without it). */
  async #acquire(lock: string): Promise<boolean> {
    for (let waitedMs = 0; waitedMs < SNAPSHOT_LOCK_WAIT_MS; waitedMs += 50) {
      try {
        await mkdir(lock);
        return true;
      } catch (error) {
        if (!hasCode(error, 'EEXIST')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return false;
  }
}
