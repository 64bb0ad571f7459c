import type { Clock } from '../core/index.js';
import type { Jarvis } from '../sdk/index.js';
import type { JarvisSystem } from '../system/index.js';
import type { ChatRunSettings } from './chat-run.js';

/** Options of `createJarvisServer`: the system (or SDK) answering, its agent and tools, and the limits. */
export interface JarvisServerOptions extends ChatRunSettings {
  /** The system that runs the agents (closed by whoever built it, not by the server). */
  readonly system?: JarvisSystem | undefined;
  /** The SDK whose system runs the agents (used when `system` is not given). */
  readonly jarvis?: Jarvis | undefined;
  /** When set, every `/v1/*` request needs `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string | undefined;
  /** The model id the server answers as (listed by `/v1/models`); default the engine's model. */
  readonly model?: string | undefined;
  /** Largest request body in bytes (default 1 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number | undefined;
  /** Longest a request may run (default 10 minutes); then 504, or an SSE error event when streaming. */
  readonly requestTimeoutMs?: number | undefined;
  /** Most runs at once (default 4); one more gets 429 with `Retry-After`. */
  readonly maxConcurrentRuns?: number | undefined;
  /** The `Retry-After` seconds of a 429 (default 1). */
  readonly retryAfterSeconds?: number | undefined;
  /**
   * `Host` names answered (port aside); others get 403, a guard against DNS rebinding. Default: any host, but
   * `startJarvisServer` on a loopback address answers only `localhost`, `127.0.0.1`, `[::1]` and its address.
   */
  readonly allowedHosts?: readonly string[] | undefined;
  /** Origins allowed by CORS; none (the default) sends no CORS headers at all. */
  readonly corsOrigins?: readonly string[] | undefined;
  /** Where `created` comes from (default the system clock). */
  readonly clock?: Clock | undefined;
  /** Makes the unique part of completion ids (default a random UUID). */
  readonly newId?: (() => string) | undefined;
  /** Told of failed runs (already redacted); default: nothing is logged. */
  readonly log?: ((line: string) => void) | undefined;
}

/** Default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default per-request time limit: 10 minutes. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;
/** Default number of runs at once. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4;
