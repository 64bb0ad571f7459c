import { JarvisError } from '../core/index.js';

/** Why a request to an external MCP server failed. */
export type McpFailureKind =
  /** Starting the server or the handshake failed or took too long. */
  | 'connect_failed'
  /** The server exited or the connection broke while the request was open. */
  | 'connection_lost'
  /** No answer within the timeout; the connection is restarted on the next use. */
  | 'timed_out'
  /** The caller cancelled the request. */
  | 'cancelled'
  /** The server answered with a JSON-RPC error (unknown tool, invalid params, …). */
  | 'remote_error'
  /** `close()` was called on the connection. */
  | 'closed';

/** A failed request to an external MCP server; `kind` says what happened, the message names the server. */
export class McpConnectionError extends JarvisError {
  readonly kind: McpFailureKind;
  /** Name of the server, as configured. */
  readonly server: string;

  constructor(options: {
    readonly kind: McpFailureKind;
    readonly server: string;
    readonly message: string;
    readonly cause?: unknown;
  }) {
    super({ code: `mcp_${options.kind}`, message: options.message, cause: options.cause });
    this.kind = options.kind;
    this.server = options.server;
  }
}
