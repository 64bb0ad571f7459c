import { isIP } from 'node:net';

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
