import type { Clock } from '../../../core/index.js';
import type { SandboxSelection } from './sandbox-backend.js';
import type { SandboxLimits } from './sandbox-limits.js';

/** Which backend to look for: `auto` (python3 under bubblewrap, else Pyodide when only python3 is missing), or one of them. */
export type SandboxBackendChoice = 'auto' | 'bwrap' | 'pyodide';

/** How to look for a sandbox backend. */
export interface SandboxSelectOptions {
  /** `auto` (default), `bwrap` (python3 under bubblewrap only) or `pyodide` (Pyodide in the jail even when python3 exists). */
  readonly backend?: SandboxBackendChoice;
  readonly bwrapPath?: string;
  readonly pythonPath?: string;
  readonly prlimitPath?: string;
  /** Run code without OS isolation when no sandbox works (off by default; every result then says so). */
  readonly allowUnsandboxed?: boolean;
  /** At most this many sandboxes at once (default 2); further calls queue. */
  readonly maxConcurrent?: number;
  /** Install the seccomp filter (default true; turning it off is for tests of the other layers). */
  readonly seccomp?: boolean;
  readonly limits?: Partial<SandboxLimits>;
  readonly platform?: string;
  readonly arch?: string;
  readonly clock?: Clock;
  /** Node binary of the Pyodide backend (default `process.execPath`). */
  readonly nodePath?: string;
  /** Folder of the pyodide package (default: the one this module resolves). */
  readonly pyodideDir?: string;
  /** Folder caching the Pyodide memory snapshot (default: per version and user under the OS temp folder). */
  readonly pyodideSnapshotDir?: string;
}

export { INSTALL_HINT } from './sandbox-host.js';

/**
 * Chooses the backend once: python3 under bubblewrap when it works, Pyodide in the same jail when only python3
 * is missing (or when asked for), the degraded mode only if allowed, otherwise a reason. The backends' code
 * (sandbox-choose.ts and what it imports) is loaded on the first call: importing the package should not pay for it.
 */
export async function selectSandbox(options: SandboxSelectOptions = {}): Promise<SandboxSelection> {
  const { chooseSandbox } = await import('./sandbox-choose.js');
  return chooseSandbox(options);
}
