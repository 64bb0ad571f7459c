import { createRequire } from 'node:module';

let netModule: typeof import('node:net') | undefined;

/** `node:net`'s isIP, `node:net` loaded on first use: importing the package should not pay for it. */
function isIP(input: string): number {
  netModule ??= createRequire(import.meta.url)('node:net') as typeof import('node:net');
  return netModule.isIP(input);
}

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** True for `localhost`, `::1` and any 127.x.y.z address: hosts only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (LOOPBACK_NAMES.has(name)) return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * True when an HTTP `Host` header names this machine: the DNS-rebinding guard of a loopback server (a web
 * page that rebinds its own domain to 127.0.0.1 still sends its domain as the Host).
 */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${header}`).hostname;
  } catch {
    return false;
  }
  return isLoopbackHost(hostname);
}

/** `host:port` as it goes into a URL (IPv6 addresses in brackets). */
export function formatHostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The origins a browser page may call the server from, besides the server's own. */
export interface OriginPolicy {
  /** Exact origins (`scheme://host[:port]`, normalised) allowed besides the server's own. */
  readonly allowed: ReadonlySet<string>;
  /** `'*'` was configured: any origin is allowed. */
  readonly any: boolean;
}

/**
 * Checks and normalises `allowedOrigins` (each `http(s)://host[:port]` without a path, or `'*'` for any):
 * the policy, or a message naming the first bad entry.
 */
export function parseOriginPolicy(origins: readonly string[] | undefined): OriginPolicy | string {
  const allowed = new Set<string>();
  let any = false;
  for (const entry of origins ?? []) {
    if (entry === '*') {
      any = true;
      continue;
    }
    const origin = normaliseOrigin(entry);
    if (origin === undefined) {
      return `allowedOrigins entries must be origins like 'http://localhost:3000' (scheme, host and port, no path) or '*', got ${JSON.stringify(entry)}`;
    }
    allowed.add(origin);
  }
  return { allowed, any };
}

/**
 * True when a request's `Origin` header may reach the server: no Origin (a non-browser client), the
 * server's own origin (`http://127.0.0.1:<port>`, `http://localhost:<port>`, `http://[::1]:<port>` or the
 * bound host), or one the policy allows. Everything else is a page elsewhere, e.g. after DNS rebinding.
 */
export function isAllowedOrigin(
  origin: string | undefined,
  server: { readonly host: string; readonly port: number },
  policy: OriginPolicy,
): boolean {
  if (origin === undefined) return true;
  if (policy.any) return true;
  const normalised = normaliseOrigin(origin);
  if (normalised === undefined) return false;
  if (policy.allowed.has(normalised)) return true;
  return ownOrigins(server).has(normalised);
}

function ownOrigins(server: { readonly host: string; readonly port: number }): Set<string> {
  const hosts = ['127.0.0.1', 'localhost', '::1', server.host];
  return new Set(
    hosts.flatMap((host) => normaliseOrigin(`http://${formatHostPort(host, server.port)}`) ?? []),
  );
}

/** `scheme://host[:port]` as the URL standard serialises it, or undefined when `text` is not a bare origin. */
function normaliseOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return undefined;
  }
  if (url.pathname !== '/') return undefined;
  return url.origin;
}
