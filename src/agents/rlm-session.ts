import type { JsonValue } from '../core/index.js';

/** How one interpreter step ended (mirrors the sandbox session of the tools layer). */
export type RlmStepEnd = 'completed' | 'timeout' | 'aborted' | 'crashed';

/** What one interpreter step did. */
export interface RlmStepResult {
  readonly ok: boolean;
  readonly output: string;
  readonly droppedChars: number;
  readonly error: string | undefined;
  readonly end: RlmStepEnd;
  readonly elapsedMs: number;
}

/** Options of one interpreter step. */
export interface RlmStepOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Answers `host_call(name, payload)` from inside the code. */
  readonly onCall?: (name: string, payload: JsonValue) => Promise<JsonValue>;
}

/** A persistent sandboxed Python interpreter, as `openSandboxSession` of the tools layer provides. */
export interface RlmInterpreter {
  readonly pid: number | undefined;
  readonly alive: boolean;
  exec(code: string, options: RlmStepOptions): Promise<RlmStepResult>;
  close(): Promise<void>;
}

/** Opens an interpreter whose CPU budget is `lifetimeMs`, or says why none is available. */
export type RlmInterpreterFactory = (options: {
  readonly lifetimeMs: number;
}) => Promise<
  | { readonly ok: true; readonly session: RlmInterpreter }
  | { readonly ok: false; readonly reason: string }
>;
