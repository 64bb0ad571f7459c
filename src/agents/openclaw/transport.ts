import { JarvisError } from '../../core/index.js';
import type { OpenClawMessage } from './protocol.js';

/** Per-call options of a transport. */
export interface OpenClawSendOptions {
  /** Cancels the exchange; a subprocess transport restarts its child afterwards. */
  readonly signal?: AbortSignal;
}

/**
 * How `OpenClawAgent` reaches an OpenClaw runtime: one request, one reply. Implementations must never hang (a read
 * timeout applies to every exchange) and report failures as `OpenClawTransportError` or `OpenClawProtocolError`.
 */
export interface OpenClawTransport {
  /** A short human description of where the runtime is (used in error messages). */
  readonly description: string;
  /** Why the latest `health()` call returned false, with a hint on how to fix it; undefined after a healthy check. */
  readonly lastHealthFailure?: string | undefined;
  /** Sends one message and resolves with the runtime's reply. */
  send(message: OpenClawMessage, options?: OpenClawSendOptions): Promise<OpenClawMessage>;
  /** True when the runtime answers its health check; never throws. */
  health(options?: OpenClawSendOptions): Promise<boolean>;
  /** Releases the connection or ends the child process; the transport may be used again afterwards. */
  close(): Promise<void>;
}

/** What kind of transport failure happened. */
export type OpenClawTransportFailure =
  | 'timed_out'
  | 'cancelled'
  | 'connection_failed'
  | 'http_status'
  | 'runtime_exited'
  | 'spawn_failed'
  | 'script_not_found'
  | 'closed';

/** A transport could not complete an exchange; `failure` says why, the message says what to do. */
export class OpenClawTransportError extends JarvisError {
  readonly failure: OpenClawTransportFailure;

  constructor(options: {
    readonly failure: OpenClawTransportFailure;
    readonly message: string;
    readonly cause?: unknown;
  }) {
    super({ code: 'openclaw_transport_failed', message: options.message, cause: options.cause });
    this.failure = options.failure;
  }
}

/** Default read timeout of both transports. */
export const OPENCLAW_DEFAULT_TIMEOUT_MS = 30_000;

/** Default longest wait for a health check of both transports (a subprocess's start-up included). */
export const OPENCLAW_HEALTH_TIMEOUT_MS = 5_000;

/** Longest reply accepted by both transports (8 MiB); a longer line or body is a protocol error. */
export const OPENCLAW_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
