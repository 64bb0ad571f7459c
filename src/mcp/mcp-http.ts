import type { Server as HttpServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { JarvisError } from '../core/index.js';
import {
  formatHostPort,
  isAllowedOrigin,
  isLoopbackHost,
  type OriginPolicy,
  parseOriginPolicy,
} from './mcp-http-guard.js';
import { MCP_HTTP_PATH, McpHttpSessions } from './mcp-http-sessions.js';
import { loadHttpServerTransport, loadMcpServerSdk } from './mcp-sdk.js';
import type { JarvisMcpServer } from './mcp-server.js';

/** Options of `serveHttp`. */
export interface McpHttpOptions {
  /** Port to listen on; 0 picks a free one (see the handle's `port`). */
  readonly port: number;
  /** Address to bind (default `127.0.0.1`). */
  readonly host?: string;
  /**
   * Allows a host other than loopback. The server has no authentication, so anyone who can reach the
   * address can run the tools; off by default.
   */
  readonly allowNonLoopback?: boolean;
  /** Most MCP sessions open at once (default 32); a new one beyond it closes the least recently used. */
  readonly maxSessions?: number;
  /**
   * Browser origins allowed besides the server's own (`http://127.0.0.1:<port>`, `http://localhost:<port>`,
   * `http://[::1]:<port>`): each `http(s)://host[:port]`, or `'*'` for any. A request with another `Origin`
   * gets 403 (the DNS-rebinding guard the MCP specification asks for); requests without one are allowed.
   */
  readonly allowedOrigins?: readonly string[];
}

/** A running Streamable HTTP server. */
export interface McpHttpHandle {
  /** The bound address. */
  readonly host: string;
  readonly port: number;
  /** The MCP endpoint, e.g. `http://127.0.0.1:8123/mcp`. */
  readonly url: string;
  /** MCP sessions open right now. */
  readonly sessionCount: number;
  /** Ends every session and stops listening; calling it again is harmless. */
  close(): Promise<void>;
}

const DEFAULT_MAX_SESSIONS = 32;

/**
 * Serves `server` over MCP Streamable HTTP at `/mcp`, on 127.0.0.1 unless told otherwise. Loads the MCP SDK
 * before listening; without it, throws `mcp_sdk_missing`.
 */
export async function serveHttp(
  server: JarvisMcpServer,
  options: McpHttpOptions,
): Promise<McpHttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const originPolicy = checkOptions(options, host);
  await Promise.all([loadHttpServerTransport(), loadMcpServerSdk()]);
  const loopback = isLoopbackHost(host);
  const sessions = new McpHttpSessions({
    server,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    checkHost: loopback,
    allowOrigin: (origin) => isAllowedOrigin(origin, boundAddress(http), originPolicy),
  });
  // node:http is loaded here, when a server starts: importing the package should not pay for it.
  const { createServer } = createRequire(import.meta.url)(
    'node:http',
  ) as typeof import('node:http');
  const http = createServer((req, res) => void sessions.handle(req, res));
  await listen(http, options.port, host);
  const address = http.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    url: `http://${formatHostPort(address.address, address.port)}${MCP_HTTP_PATH}`,
    get sessionCount() {
      return sessions.size;
    },
    close() {
      closing ??= shutdown(http, sessions);
      return closing;
    },
  };
}

/** The address the server listens on (requests arrive only while it listens). */
function boundAddress(http: HttpServer): { host: string; port: number } {
  const address = http.address() as AddressInfo;
  return { host: address.address, port: address.port };
}

/** Throws on a bad option; returns the checked origin policy. */
function checkOptions(options: McpHttpOptions, host: string): OriginPolicy {
  const { port, maxSessions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `MCP HTTP port must be an integer from 0 to 65535, got ${String(port)}`,
    });
  }
  if (maxSessions !== undefined && !(Number.isInteger(maxSessions) && maxSessions > 0)) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `maxSessions must be a positive integer, got ${String(maxSessions)}`,
    });
  }
  if (!isLoopbackHost(host) && options.allowNonLoopback !== true) {
    throw new JarvisError({
      code: 'invalid_argument',
      message:
        `Refusing to serve MCP on '${host}': the server has no authentication, so it binds only to ` +
        'loopback (127.0.0.1, ::1, localhost) unless allowNonLoopback is set',
    });
  }
  const policy = parseOriginPolicy(options.allowedOrigins);
  if (typeof policy === 'string') {
    throw new JarvisError({ code: 'invalid_argument', message: policy });
  }
  return policy;
}

function listen(http: HttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      const where = formatHostPort(host, port);
      const message = `Could not serve MCP on ${where}: ${error.message}; pick another port or stop the other server`;
      reject(new JarvisError({ code: 'mcp_listen_failed', message, cause: error }));
    };
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      resolve();
    });
  });
}

async function shutdown(http: HttpServer, sessions: McpHttpSessions): Promise<void> {
  await sessions.closeAll();
  const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeAllConnections();
  await stopped;
}
