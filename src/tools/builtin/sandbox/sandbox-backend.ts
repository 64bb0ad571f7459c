import type { ChildRunResult } from './sandbox-process.js';

/** Name of the backend a run went through, reported as `metadata.sandbox`. */
export type SandboxName = 'bubblewrap' | 'pyodide' | 'unsandboxed';

/** One piece of code to run. */
export interface SandboxRequest {
  readonly code: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** A way of running Python, chosen once at start-up. */
export interface SandboxBackend {
  readonly name: SandboxName;
  /** True when the seccomp filter is installed on every run. */
  readonly seccomp: boolean;
  /** Runs `request` (waiting for a free slot first) and reports what happened. */
  run(request: SandboxRequest): Promise<ChildRunResult>;
}

/** The outcome of choosing a backend: one that works, or why none does. */
export type SandboxSelection =
  | { readonly ok: true; readonly backend: SandboxBackend }
  | { readonly ok: false; readonly reason: string };
