import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JarvisError } from '../core/index.js';
import { createJarvisServer } from './jarvis-server.js';
import { LOOPBACK_HOST_NAMES } from './request-guards.js';
import type { JarvisServerOptions } from './server-options.js';

/** Options of `startJarvisServer`: the server's, plus where to listen. */
export interface StartJarvisServerOptions extends JarvisServerOptions {
  /** Address to bind (default `127.0.0.1`); any non-loopback address requires `apiKey`. */
  readonly host?: string | undefined;
  /** Port (default 8000; 0 picks a free one). */
  readonly port?: number | undefined;
}

/** A listening server. */
export interface RunningJarvisServer {
  /** `http://<host>:<port>` (the OpenAI base URL is this plus `/v1`). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening and drops open connections (their runs are cancelled); safe to call twice. */
  close(): Promise<void>;
}

/** Default port of `jarvis serve`. */
export const DEFAULT_SERVE_PORT = 8000;

/** Whether `host` is a loopback address (`127.x.x.x`, `::1`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(bare) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(bare)
  );
}

/**
 * Starts the API on `host:port` (127.0.0.1:8000 by default). Listening on any other than a loopback address
 * without an API key is refused: the agents run tools on this machine.
 */
export async function startJarvisServer(
  options: StartJarvisServerOptions,
): Promise<RunningJarvisServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && (options.apiKey ?? '') === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `Refusing to listen on ${host} without an API key: anyone who can reach it could run the agent and its tools. Pass --api-key (or set OPENJARVIS_API_KEY), or listen on 127.0.0.1`,
    });
  }
  const allowedHosts =
    options.allowedHosts ?? (isLoopbackHost(host) ? [...LOOPBACK_HOST_NAMES, host] : undefined);
  const app = createJarvisServer({ ...options, allowedHosts });
  // Loaded when a server starts: @hono/node-server loads node:http2, whose load opens stderr.
  const { createAdaptorServer } = await import('@hono/node-server');
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  await listen(server, host, options.port ?? DEFAULT_SERVE_PORT);
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    close: () => {
      closing ??= closeServer(server);
      return closing;
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
