import { createRequire } from 'node:module';
import { JarvisError } from '../../core/index.js';

let netModule: typeof import('node:net') | undefined;

/** `node:net`'s isIP, `node:net` loaded on first use: importing the package or starting the CLI should not pay for it. */
function isIP(input: string): number {
  netModule ??= createRequire(import.meta.url)('node:net') as typeof import('node:net');
  return netModule.isIP(input);
}

/** Where Ollama listens when nothing else is configured. */
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

const DEFAULT_PORT = '11434';
const SCHEME_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };
/** Addresses a server listens on to accept every interface; a client reaches them on loopback. */
const LISTEN_EVERYWHERE: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '::': '::1' };

/**
 * Turns an `OLLAMA_HOST`-style value into a base URL, the way Ollama's own CLI reads it: `host`, `host:port`,
 * `:port`, `[::1]:port` and full `http(s)://host[:port][/path]` URLs are accepted; without a scheme the port
 * defaults to 11434, with `http://` to 80 and with `https://` to 443. A listen-everywhere address (`0.0.0.0`,
 * `::`) becomes loopback. Empty or absent means `http://127.0.0.1:11434`.
 */
export function resolveOllamaHost(host: string | undefined): string {
  const text = host?.trim() ?? '';
  if (text === '') return OLLAMA_DEFAULT_HOST;
  const schemeEnd = text.indexOf('://');
  const scheme = schemeEnd === -1 ? 'http' : text.slice(0, schemeEnd).toLowerCase();
  const schemePort = SCHEME_PORTS[scheme];
  if (schemePort === undefined) throw invalidHost(text, `the scheme '${scheme}' is not supported`);
  const rest = schemeEnd === -1 ? text : text.slice(schemeEnd + 3);
  const slash = rest.indexOf('/');
  const hostPort = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash).replace(/\/+$/, '');
  const split = splitHostPort(hostPort, text);
  const port = split.port ?? (schemeEnd === -1 ? DEFAULT_PORT : schemePort);
  const name = LISTEN_EVERYWHERE[split.host] ?? (split.host === '' ? '127.0.0.1' : split.host);
  const url = `${scheme}://${isIP(name) === 6 ? `[${name}]` : name}:${port}${path}`;
  if (!URL.canParse(url)) throw invalidHost(text, 'it does not form a valid URL');
  return url;
}

interface HostPort {
  readonly host: string;
  readonly port: string | undefined;
}

/** Splits `host:port`, `[v6]:port`, `[v6]`, a bare IPv6 address or a bare name; checks the port. */
function splitHostPort(hostPort: string, original: string): HostPort {
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close === -1) throw invalidHost(original, "an IPv6 address misses its ']'");
    const after = hostPort.slice(close + 1);
    if (after !== '' && !after.startsWith(':'))
      throw invalidHost(original, `unexpected '${after}' after the IPv6 address`);
    return { host: hostPort.slice(1, close), port: checkPort(after.slice(1), after, original) };
  }
  if (isIP(hostPort) === 6) return { host: hostPort, port: undefined };
  const colon = hostPort.lastIndexOf(':');
  if (colon === -1) return { host: hostPort, port: undefined };
  const port = hostPort.slice(colon + 1);
  return { host: hostPort.slice(0, colon), port: checkPort(port, `:${port}`, original) };
}

function checkPort(port: string, written: string, original: string): string | undefined {
  if (written === '') return undefined;
  const value = Number(port);
  if (!/^\d{1,5}$/.test(port) || value > 65_535) {
    throw invalidHost(original, `the port '${port}' is not a number from 0 to 65535`);
  }
  return String(value);
}

function invalidHost(host: string, reason: string): JarvisError {
  return new JarvisError({
    code: 'invalid_argument',
    message: `Invalid Ollama host '${host}': ${reason}; use host, host:port or http(s)://host:port (as OLLAMA_HOST accepts), for example 127.0.0.1:11434`,
  });
}
