/**
 * What an HTTP engine reports about each request it sends, for `--verbose` / `OPENJARVIS_LOG=debug`: the
 * method, the address (secrets removed), the status, the time it took, and the error when it failed.
 */

/** One finished step of one request: an attempt that got its answer (or failed), or a streamed body that ended. */
export interface EngineRequestLogEntry {
  /** The engine that sent it (`vllm`, `ollama`, …). */
  readonly engineId: string;
  readonly method: string;
  /** The full address, with known secrets and secret-shaped text replaced by `[REDACTED]`. */
  readonly url: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
  /**
   * `response`: the attempt ended (a JSON answer read, the first bytes of a stream arrived, or a failure);
   * `stream_end`: the body of a streamed answer ended (complete, failed, or cancelled by the reader).
   */
  readonly phase: 'response' | 'stream_end';
  /** HTTP status, when the server answered with one. */
  readonly status?: number;
  /** Milliseconds from the start of the attempt to this moment. */
  readonly durationMs: number;
  /** What went wrong, redacted; absent when the step succeeded. */
  readonly error?: string;
}

/** Receives one entry per request step; it must return quickly and its errors are ignored. */
export type EngineRequestLog = (entry: EngineRequestLogEntry) => void;

/** Calls the request log when there is one, never letting it disturb the request. */
export function reportRequest(
  log: EngineRequestLog | undefined,
  entry: EngineRequestLogEntry,
): void {
  if (log === undefined) return;
  try {
    log(entry);
  } catch {
    // A broken log callback must not fail a model call.
  }
}
