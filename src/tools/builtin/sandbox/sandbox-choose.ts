import { realpath } from 'node:fs/promises';
import { systemClock } from '../../../core/index.js';
import type { SandboxBackend, SandboxSelection } from './sandbox-backend.js';
import { type BwrapJail, createBwrapBackend, jailIdentityNote } from './sandbox-bwrap.js';
import { INSTALL_HINT, isExecutable, rootEntries } from './sandbox-host.js';
import { DEFAULT_SANDBOX_LIMITS, SandboxSlots } from './sandbox-limits.js';
import {
  createPyodideBackend,
  ensurePyodideSnapshot,
  resolvePyodidePackage,
} from './sandbox-pyodide.js';
import { buildSeccompFilter, seccompArchOf } from './sandbox-seccomp.js';
import type { SandboxBackendChoice, SandboxSelectOptions } from './sandbox-select.js';
import { createUnsandboxedBackend } from './sandbox-unsandboxed.js';

const SANDBOX_BACKEND_CHOICES: readonly string[] = ['auto', 'bwrap', 'pyodide'];

/** Resolved paths and platform of one selection. */
interface SelectPaths {
  readonly bwrapPath: string;
  readonly pythonPath: string;
  readonly prlimitPath: string;
  readonly platform: string;
}

/** Why no bubblewrap jail can be built here (any backend), or undefined when its prerequisites are there. */
async function jailProblem(paths: SelectPaths): Promise<string | undefined> {
  if (paths.platform !== 'linux') return `bubblewrap needs Linux (this is ${paths.platform})`;
  if (!(await isExecutable(paths.bwrapPath))) return `bubblewrap not found at ${paths.bwrapPath}`;
  if (!(await isExecutable(paths.prlimitPath))) return `prlimit not found at ${paths.prlimitPath}`;
  return undefined;
}

/** Why `python3` cannot run in the jail, or undefined when it can. */
async function pythonProblem(pythonPath: string): Promise<string | undefined> {
  if (!(await isExecutable(pythonPath))) return `python3 not found at ${pythonPath}`;
  const real = await realpath(pythonPath);
  if (!real.startsWith('/usr/')) return `${pythonPath} resolves to ${real}, outside /usr`;
  return undefined;
}

/** The jail shared by both backends (mounts, limits, seccomp, slots), or why it cannot be built. */
async function buildJail(
  options: SandboxSelectOptions,
  paths: SelectPaths,
  shared: Pick<BwrapJail, 'limits' | 'slots' | 'clock'>,
): Promise<BwrapJail | string> {
  const problem = await jailProblem(paths);
  if (problem !== undefined) return problem;
  const arch = seccompArchOf(options.arch ?? process.arch);
  const wantSeccomp = options.seccomp ?? true;
  if (wantSeccomp && arch === undefined)
    return `no seccomp filter for ${options.arch ?? process.arch}`;
  return {
    bwrapPath: paths.bwrapPath,
    prlimitPath: paths.prlimitPath,
    rootEntries: await rootEntries(),
    seccompFilter: wantSeccomp && arch ? buildSeccompFilter(arch) : undefined,
    ...shared,
  };
}

/** Runs a trivial program through `backend` and returns it, or why it failed. */
async function probe(backend: SandboxBackend, timeoutMs: number): Promise<SandboxSelection> {
  const result = await backend.run({ code: 'print(6 * 7)', timeoutMs });
  if (result.exitCode === 0 && result.stdout === '42\n') return { ok: true, backend };
  const detail = result.spawnError ?? (result.stderr.trim() || `exit ${result.exitCode}`);
  return {
    ok: false,
    reason: `the ${backend.name} probe failed: ${detail.slice(0, 500)}${jailIdentityNote()}`,
  };
}

/** The Pyodide backend in `jail` (snapshot built or reused, then probed), or why it cannot be used. */
async function tryPyodide(
  jail: BwrapJail,
  options: SandboxSelectOptions,
): Promise<SandboxSelection> {
  const pyodide = await resolvePyodidePackage(options.pyodideDir);
  if (typeof pyodide === 'string') return { ok: false, reason: pyodide };
  const nodePath = options.nodePath ?? process.execPath;
  if (!(await isExecutable(nodePath)))
    return { ok: false, reason: `node not found at ${nodePath}` };
  const base = { ...jail, nodePath: await realpath(nodePath), pyodide };
  const snapshot = await ensurePyodideSnapshot({
    ...base,
    ...(options.pyodideSnapshotDir === undefined
      ? {}
      : { snapshotDir: options.pyodideSnapshotDir }),
  });
  if (!snapshot.ok) return { ok: false, reason: `${snapshot.reason}${jailIdentityNote()}` };
  return probe(createPyodideBackend({ ...base, snapshotPath: snapshot.path }), 30_000);
}

/** Picks the jailed backend for `choice`: python3 when present (unless Pyodide is asked for), else Pyodide. */
async function chooseJailed(
  choice: SandboxBackendChoice,
  jail: BwrapJail,
  options: SandboxSelectOptions,
  pythonPath: string,
): Promise<SandboxSelection> {
  if (choice !== 'pyodide') {
    const missing = await pythonProblem(pythonPath);
    if (missing === undefined) return probe(createBwrapBackend({ ...jail, pythonPath }), 10_000);
    if (choice === 'bwrap') return { ok: false, reason: missing };
    const fallback = await tryPyodide(jail, options);
    return fallback.ok
      ? fallback
      : { ok: false, reason: `${missing}, and the Pyodide fallback failed: ${fallback.reason}` };
  }
  return tryPyodide(jail, options);
}

/** The degraded mode when it is allowed and python3 exists, otherwise the refusal with `reason`. */
async function unsandboxedOrRefusal(
  options: SandboxSelectOptions,
  paths: SelectPaths,
  shared: Pick<BwrapJail, 'limits' | 'slots' | 'clock'>,
  reason: string,
): Promise<SandboxSelection> {
  if (options.allowUnsandboxed === true && (await isExecutable(paths.pythonPath))) {
    const prlimitPath = (await isExecutable(paths.prlimitPath)) ? paths.prlimitPath : undefined;
    const backend = createUnsandboxedBackend({
      pythonPath: paths.pythonPath,
      prlimitPath,
      ...shared,
    });
    return { ok: true, backend };
  }
  return { ok: false, reason: `${reason}; ${INSTALL_HINT}` };
}

/**
 * Chooses the backend once: python3 under bubblewrap when it works, Pyodide in the same jail when only python3
 * is missing (or when asked for), the degraded mode only if allowed, otherwise a reason.
 */
export async function chooseSandbox(options: SandboxSelectOptions): Promise<SandboxSelection> {
  const choice = options.backend ?? 'auto';
  if (!SANDBOX_BACKEND_CHOICES.includes(choice))
    return {
      ok: false,
      reason: `unknown sandbox backend ${JSON.stringify(choice)} (accepted: ${SANDBOX_BACKEND_CHOICES.join(', ')})`,
    };
  const paths: SelectPaths = {
    bwrapPath: options.bwrapPath ?? '/usr/bin/bwrap',
    pythonPath: options.pythonPath ?? '/usr/bin/python3',
    prlimitPath: options.prlimitPath ?? '/usr/bin/prlimit',
    platform: options.platform ?? process.platform,
  };
  const shared = {
    limits: { ...DEFAULT_SANDBOX_LIMITS, ...options.limits },
    slots: new SandboxSlots({ limit: options.maxConcurrent ?? 2 }),
    clock: options.clock ?? systemClock,
  };
  const jail = await buildJail(options, paths, shared);
  const chosen =
    typeof jail === 'string'
      ? ({ ok: false, reason: jail } as const)
      : await chooseJailed(choice, jail, options, paths.pythonPath);
  return chosen.ok ? chosen : unsandboxedOrRefusal(options, paths, shared, chosen.reason);
}
