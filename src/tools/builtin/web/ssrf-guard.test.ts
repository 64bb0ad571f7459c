import { describe, expect, it } from 'vitest';
import {
  forbiddenAddressReason,
  type HostLookup,
  resolveAllowedAddress,
  urlProblem,
} from './ssrf-guard.js';

describe('forbiddenAddressReason', () => {
  it('refuses every internal, special and metadata address', () => {
    const cases: Array<[string, RegExp]> = [
      ['127.0.0.1', /^loopback$/],
      ['127.255.255.254', /^loopback$/],
      ['10.1.2.3', /^private$/],
      ['172.16.0.1', /^private$/],
      ['172.31.255.255', /^private$/],
      ['192.168.1.1', /^private$/],
      ['169.254.169.254', /link-local/],
      ['100.64.0.1', /CGNAT/],
      ['100.100.100.200', /CGNAT/],
      ['0.0.0.0', /unspecified/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /reserved/],
      ['192.0.0.192', /reserved/],
      ['168.63.129.16', /metadata/],
      ['198.18.0.1', /benchmarking/],
      ['::1', /^loopback$/],
      ['::', /^unspecified$/],
      ['fe80::1', /link-local/],
      ['fe80::1%eth0', /link-local/],
      ['fc00::1', /unique-local/],
      ['fd00:ec2::254', /unique-local/],
      ['ff02::1', /multicast/],
      ['::ffff:127.0.0.1', /loopback \(IPv4 127\.0\.0\.1 inside IPv6\)/],
      ['::ffff:7f00:1', /loopback/],
      ['::FFFF:A9FE:A9FE', /link-local/],
      ['::ffff:0:10.0.0.1', /private/],
      ['64:ff9b::7f00:1', /loopback/],
      ['64:ff9b::a00:1', /private/],
      ['2002:7f00:1::', /loopback/],
      ['2002:c0a8:101::1', /private/],
      ['::127.0.0.1', /IPv4-compatible/],
      ['2001:db8::1', /documentation/],
      ['2001:0:4136:e378::1', /Teredo/],
      ['[::1]', /loopback/],
      ['localhost', /not an IP address/],
    ];
    for (const [address, reason] of cases) {
      expect(forbiddenAddressReason(address), address).toMatch(reason);
    }
  });

  it('allows public unicast addresses, also when carried inside IPv6', () => {
    for (const address of [
      '93.184.215.14',
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '169.255.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect(forbiddenAddressReason(address), address).toBeUndefined();
    }
  });
});

describe('urlProblem', () => {
  it('accepts plain http(s) and refuses other schemes and credentials', () => {
    expect(urlProblem(new URL('https://example.com/a?b=c'))).toBeUndefined();
    expect(urlProblem(new URL('http://example.com:8080/'))).toBeUndefined();
    for (const [url, problem] of [
      ['file:///etc/passwd', /not file/],
      ['ftp://example.com/', /not ftp/],
      ['gopher://127.0.0.1:6379/_INFO', /not gopher/],
      ['data:text/plain,hi', /not data/],
      ['javascript:alert(1)', /not javascript/],
      ['http://user:pass@example.com/', /user name or password/],
      ['http://example.com@127.0.0.1/', /user name or password/],
      ['http://:secret@example.com/', /user name or password/],
    ] as const) {
      expect(urlProblem(new URL(url)), url).toMatch(problem);
    }
  });
});

describe('resolveAllowedAddress', () => {
  const lookupOf =
    (table: Record<string, readonly string[]>): HostLookup =>
    async (hostname) =>
      (table[hostname] ?? []).map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      }));

  it('returns the first address of a public name and does not look up IP literals', async () => {
    const calls: string[] = [];
    const lookup: HostLookup = async (hostname) => {
      calls.push(hostname);
      return [{ address: '93.184.215.14', family: 4 }];
    };
    const options = { allowPrivateNetwork: false, lookup };
    expect(await resolveAllowedAddress('example.com', options)).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(await resolveAllowedAddress('[2606:4700:4700::1111]', options)).toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
    expect(calls).toEqual(['example.com']);
  });

  it('refuses a name when any of its addresses is internal', async () => {
    const lookup = lookupOf({
      'rebind.test': ['93.184.215.14', '127.0.0.1'],
      '127.0.0.1.nip.io': ['127.0.0.1'],
      'meta.test': ['169.254.169.254'],
      'v6.test': ['2606:4700::1', 'fd00::1'],
    });
    for (const host of ['rebind.test', '127.0.0.1.nip.io', 'meta.test', 'v6.test']) {
      await expect(
        resolveAllowedAddress(host, { allowPrivateNetwork: false, lookup }),
      ).rejects.toMatchObject({ code: 'ssrf_refused', message: expect.stringContaining(host) });
    }
    await expect(
      resolveAllowedAddress('rebind.test', { allowPrivateNetwork: true, lookup }),
    ).resolves.toEqual({ address: '93.184.215.14', family: 4 });
  });

  it('reports names that do not resolve and honours the signal', async () => {
    await expect(
      resolveAllowedAddress('nothing.test', { allowPrivateNetwork: false, lookup: lookupOf({}) }),
    ).rejects.toMatchObject({ code: 'dns_failed' });
    const failing: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(
      resolveAllowedAddress('x.test', { allowPrivateNetwork: false, lookup: failing }),
    ).rejects.toThrow('could not resolve x.test (ENOTFOUND)');
    const controller = new AbortController();
    const pending = resolveAllowedAddress('slow.test', {
      allowPrivateNetwork: false,
      lookup: () => new Promise(() => {}),
      signal: controller.signal,
    });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('resolves localhost with the system resolver and refuses it', async () => {
    await expect(
      resolveAllowedAddress('localhost', { allowPrivateNetwork: false }),
    ).rejects.toMatchObject({ code: 'ssrf_refused' });
  });
});
