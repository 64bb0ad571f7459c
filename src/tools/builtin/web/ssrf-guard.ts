import { createRequire } from 'node:module';
import { JarvisError, untilAborted } from '../../../core/index.js';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to all of its addresses (the default uses `node:dns` lookup with `all: true`). */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** Options of `resolveAllowedAddress`. */
export interface AddressGuardOptions {
  /** Allow loopback, private and other internal addresses (for tests and trusted setups); off by default. */
  readonly allowPrivateNetwork: boolean;
  readonly lookup?: HostLookup;
  readonly signal?: AbortSignal;
  /** Decides which addresses are internal; defaults to `forbiddenAddressReason`. */
  readonly forbiddenReason?: (address: string) => string | undefined;
}

type Rule = readonly [label: string, network: string, prefix: number];

// Everything that is not plain public unicast, plus the cloud metadata addresses that are.
const IPV4_RULES: readonly Rule[] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['shared (CGNAT)', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local (cloud metadata)', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['reserved (IETF protocol assignments)', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
  ['cloud metadata (Azure)', '168.63.129.16', 32],
];

const IPV6_RULES: readonly Rule[] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['IPv4-compatible (deprecated)', '::', 96],
  ['discard-only', '100::', 64],
  ['Teredo tunnel', '2001::', 32],
  ['documentation', '2001:db8::', 32],
  ['local-use NAT64', '64:ff9b:1::', 48],
  ['unique-local (includes cloud metadata)', 'fc00::', 7],
  ['site-local (deprecated)', 'fec0::', 10],
  ['link-local', 'fe80::', 10],
  ['multicast', 'ff00::', 8],
];

/** `node:net`, loaded on first use (with the block lists): importing the package should not pay for it. */
let netModule: typeof import('node:net') | undefined;
const net = (): typeof import('node:net') => {
  netModule ??= createRequire(import.meta.url)('node:net') as typeof import('node:net');
  return netModule;
};

function compile(rules: readonly Rule[], type: 'ipv4' | 'ipv6') {
  const { BlockList } = net();
  return rules.map(([label, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { label, list };
  });
}

type Lists = ReturnType<typeof compile>;

/** The block lists, compiled on first use: 26 `BlockList`s cost several ms, too much for every import of the package. */
let compiled: { readonly ipv4: Lists; readonly ipv6: Lists } | undefined;

function lists(type: 'ipv4' | 'ipv6'): Lists {
  compiled ??= { ipv4: compile(IPV4_RULES, 'ipv4'), ipv6: compile(IPV6_RULES, 'ipv6') };
  return compiled[type];
}

/**
 * Why an address must not be fetched (`loopback`, `private`, `link-local (cloud metadata)`, …), or undefined
 * for public unicast. IPv4 inside IPv6 (mapped `::ffff:a.b.c.d`, translated, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) is judged by the IPv4 address it carries.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const family = net().isIP(bare);
  if (family === 4) return firstMatch(bare, 'ipv4');
  if (family !== 6) return 'not an IP address';
  const hextets = ipv6Hextets(bare);
  const embedded = hextets === undefined ? undefined : embeddedIpv4(hextets);
  if (embedded !== undefined) {
    const reason = firstMatch(embedded, 'ipv4');
    if (reason !== undefined) return `${reason} (IPv4 ${embedded} inside IPv6)`;
    return undefined;
  }
  return firstMatch(bare, 'ipv6');
}

function firstMatch(address: string, type: 'ipv4' | 'ipv6'): string | undefined {
  return lists(type).find((entry) => entry.list.check(address, type))?.label;
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad is folded in). */
function ipv6Hextets(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad !== null) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined): number[] =>
    part === undefined || part === ''
      ? []
      : part.split(':').map((group) => Number.parseInt(group, 16));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  return [...head, ...new Array<number>(Math.max(missing, 0)).fill(0), ...tail];
}

/** The IPv4 address carried by a mapped, translated, NAT64 or 6to4 IPv6 address. */
function embeddedIpv4(h: readonly number[]): string | undefined {
  const zeros = (from: number, to: number): boolean => h.slice(from, to).every((g) => g === 0);
  const quad = (high: number, low: number): string =>
    `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const [h0 = 0, h1 = 0, h2 = 0, , h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  if (zeros(0, 5) && h5 === 0xffff) return quad(h6, h7);
  if (zeros(0, 4) && h4 === 0xffff && h5 === 0) return quad(h6, h7);
  if (h0 === 0x64 && h1 === 0xff9b && zeros(2, 6)) return quad(h6, h7);
  if (h0 === 0x2002) return quad(h1, h2);
  return undefined;
}

/** Refuses URLs that are not plain http(s) or that carry `user:password@`; returns the problem or undefined. */
export function urlProblem(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'URLs with a user name or password (user:pass@host) are refused';
  }
  if (url.hostname === '') return 'the URL has no host';
  return undefined;
}

/**
 * Resolves a URL's host name (IP literals need no lookup) and checks every address it resolves to; returns
 * the address to connect to, so the connection goes to exactly what was checked. Throws a `JarvisError`
 * (`ssrf_refused`) when any address is internal, or (`dns_failed`) when the name does not resolve.
 */
export async function resolveAllowedAddress(
  hostname: string,
  options: AddressGuardOptions,
): Promise<ResolvedAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const literal = net().isIP(host);
  const addresses =
    literal === 0
      ? await lookupAll(host, options)
      : [{ address: host, family: literal === 4 ? 4 : 6 } as const];
  const first = addresses[0];
  if (first === undefined) {
    throw new JarvisError({ code: 'dns_failed', message: `${host} has no addresses` });
  }
  if (options.allowPrivateNetwork) return first;
  const classify = options.forbiddenReason ?? forbiddenAddressReason;
  for (const { address } of addresses) {
    const reason = classify(address);
    if (reason !== undefined) {
      const target = address === host ? host : `${host} (which resolves to ${address})`;
      throw new JarvisError({
        code: 'ssrf_refused',
        message: `${target} is a ${reason} address; fetching internal network addresses is refused`,
      });
    }
  }
  return first;
}

async function lookupAll(
  host: string,
  options: AddressGuardOptions,
): Promise<readonly ResolvedAddress[]> {
  const lookup = options.lookup ?? systemLookup;
  try {
    // DNS cannot be cancelled: stop waiting for it (its late answer is ignored).
    return await untilAborted(lookup(host), options.signal, (signal) => signal.reason);
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    const code = (cause as { code?: unknown } | null)?.code;
    throw new JarvisError({
      code: 'dns_failed',
      message: `could not resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}`,
      cause,
    });
  }
}

/** `node:dns/promises`, loaded on the first lookup: importing the package should not pay for it. */
const dnsPromises = (): typeof import('node:dns/promises') =>
  createRequire(import.meta.url)('node:dns/promises');

const systemLookup: HostLookup = async (hostname) => {
  const results = await dnsPromises().lookup(hostname, { all: true, verbatim: true });
  return results.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};
