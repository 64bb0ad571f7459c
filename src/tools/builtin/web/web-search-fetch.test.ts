import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { forbiddenAddressReason, type HostLookup } from './ssrf-guard.js';
import { sendHttpRequest, WEB_FETCH_MAX_BYTES } from './web-fetch.js';
import { WebSearchTool, type WebSearchToolOptions } from './web-search.js';
import { fetchPage } from './web-search-page.js';

type Handler = (response: ServerResponse, request: IncomingMessage) => void;

interface FakeServer {
  readonly url: string;
  readonly port: number;
  readonly requests: IncomingMessage[];
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A page server on a loopback address that records every request it gets. */
async function serve(handler: Handler, host = '127.0.0.1'): Promise<FakeServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    handler(response, request);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, port, requests };
}

function page(body: string | Buffer, headers: Record<string, string> = {}, status = 200): Handler {
  return (response) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    response.end(body);
  };
}

function redirect(location: string, status = 302): Handler {
  return (response) => {
    response.writeHead(status, { location });
    response.end();
  };
}

const ARTICLE =
  '<html><head><title>Article</title><script>track()</script></head><body><nav>Menu</nav><p>Body &amp; soul.</p></body></html>';

function fetchWith(options: WebSearchToolOptions, url: string) {
  return new WebSearchTool({ timeoutMs: 2_000, ...options }).execute({ url });
}

const open: WebSearchToolOptions = { allowPrivateNetwork: true };

describe('web_search url mode', () => {
  it('reads a page as text', async () => {
    const server = await serve(page(ARTICLE));
    const result = await fetchWith(open, `${server.url}/a#frag`);
    expect(result).toMatchObject({
      success: true,
      content: 'Article\n\nBody & soul.',
      metadata: {
        url: `${server.url}/a#frag`,
        final_url: `${server.url}/a`,
        mode: 'fetch',
        status: 200,
        content_type: 'text/html',
        truncated: false,
      },
    });
    expect(server.requests[0]?.headers['user-agent']).toMatch(/OpenJarvis/);
  });

  it('reads a query that is exactly one URL', async () => {
    const server = await serve(page(ARTICLE));
    const result = await new WebSearchTool(open).execute({ query: `  ${server.url}/x  ` });
    expect(result).toMatchObject({ success: true, metadata: { mode: 'fetch' } });
  });

  it('handles plain text, JSON, other charsets, PDFs, binaries and errors', async () => {
    const server = await serve((response, request) => {
      const types: Record<string, [string, string | Buffer, number]> = {
        '/text': ['text/plain', '  plain <b>text</b>  ', 200],
        '/json': ['application/json', '{"a":1}', 200],
        '/latin1': ['text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]), 200],
        '/pdf': ['application/pdf', '%PDF-1.7', 200],
        '/png': ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]), 200],
        '/missing': ['text/html', 'gone', 404],
        '/empty': ['text/html', '<script>only()</script>', 200],
      };
      const [type, body, status] = types[request.url ?? ''] ?? ['text/plain', '', 500];
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    });
    const read = async (path: string) => (await fetchWith(open, `${server.url}${path}`)).content;
    expect(await read('/text')).toBe('plain <b>text</b>');
    expect(await read('/json')).toBe('{"a":1}');
    expect(await read('/latin1')).toBe('café');
    expect(await read('/pdf')).toBe(
      `[This URL points to a PDF file which cannot be read directly. URL: ${server.url}/pdf]`,
    );
    expect(await read('/png')).toBe(
      'Failed to fetch URL: the page is not text (content type image/png)',
    );
    expect(await read('/missing')).toBe('Failed to fetch URL: HTTP 404');
    expect(await read('/empty')).toBe('No content found at URL.');
  });

  it('cuts long pages at maxPageChars and bodies at 2 MiB', async () => {
    const server = await serve(page(`<p>${'word '.repeat(2_000)}</p>`));
    const result = await fetchWith({ ...open, maxPageChars: 100 }, server.url);
    expect(result.content).toBe(`${'word '.repeat(20)}\n\n[Content truncated]`);
    expect(result.metadata).toMatchObject({ truncated: true });
  });

  it('follows up to 5 redirects, relative ones too, and refuses a sixth', async () => {
    const server = await serve((response, request) => {
      const step = Number(request.url?.slice(1));
      if (step > 0) redirect(`/${step - 1}`, step % 2 === 0 ? 301 : 307)(response, request);
      else page('<p>landed</p>')(response, request);
    });
    const five = await fetchWith(open, `${server.url}/5`);
    expect(five).toMatchObject({
      success: true,
      content: 'landed',
      metadata: { final_url: `${server.url}/0` },
    });
    const six = await fetchWith(open, `${server.url}/6`);
    expect(six.content).toBe('Failed to fetch URL: too many redirects (more than 5)');
  });

  it('refuses redirects to other schemes, to credentials, and without a Location', async () => {
    const server = await serve((response, request) => {
      if (request.url === '/file') redirect('file:///etc/passwd')(response, request);
      else if (request.url === '/gopher')
        redirect('gopher://127.0.0.1:6379/_INFO')(response, request);
      else if (request.url === '/creds') redirect('http://user:pw@127.0.0.1/')(response, request);
      else redirect('')(response, request);
    });
    const read = async (path: string) => (await fetchWith(open, `${server.url}${path}`)).content;
    expect(await read('/file')).toBe(
      'Failed to fetch URL: a redirect was refused: only http and https URLs can be fetched, not file',
    );
    expect(await read('/gopher')).toMatch(
      /refused: only http and https URLs can be fetched, not gopher$/,
    );
    expect(await read('/creds')).toMatch(/refused: URLs with a user name or password/);
    expect(await read('/none')).toBe(
      'Failed to fetch URL: HTTP 302 redirect without a Location header',
    );
  });

  it('decodes gzip and caps what a compressed body expands to', async () => {
    const server = await serve((response, request) => {
      const body =
        request.url === '/bomb' ? Buffer.alloc(10 * 1024 * 1024) : Buffer.from('<p>zipped</p>');
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(gzipSync(body));
    });
    expect((await fetchWith(open, `${server.url}/small`)).content).toBe('<p>zipped</p>');
    const bomb = await sendHttpRequest({
      url: new URL(`${server.url}/bomb`),
      signal: AbortSignal.timeout(5_000),
    });
    expect(bomb.body.length).toBe(WEB_FETCH_MAX_BYTES);
    expect(bomb.truncated).toBe(true);
  });

  it('stops reading an endless body at 2 MiB', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const server = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk)) {}
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const result = await fetchWith({ ...open, maxPageChars: 10 }, server.url);
    expect(result).toMatchObject({ success: true, content: 'aaaaaaaaaa\n\n[Content truncated]' });
  });

  it('times out a page that never answers and honours cancellation', async () => {
    const server = await serve(() => {});
    const result = await fetchWith({ ...open, timeoutMs: 50 }, server.url);
    expect(result).toMatchObject({
      success: false,
      content: 'Failed to fetch URL: no answer within 0.05 s',
    });
    const controller = new AbortController();
    const pending = new WebSearchTool(open).execute(
      { url: server.url },
      { signal: controller.signal },
    );
    controller.abort();
    expect(await pending).toMatchObject({ success: false, errorCode: 'cancelled' });
  });

  it('refuses what is not a URL', async () => {
    expect((await fetchWith(open, 'not a url')).content).toBe(
      'Failed to fetch URL: "not a url" is not a valid URL',
    );
  });
});

describe('web_search SSRF protection (allowPrivateNetwork off)', () => {
  it('refuses loopback in every spelling without connecting', async () => {
    const server = await serve(page('<p>internal secret</p>'));
    const { port } = server;
    const lookup: HostLookup = async (hostname) =>
      hostname === '127.0.0.1.nip.io' ? [{ address: '127.0.0.1', family: 4 }] : [];
    const tricks = [
      `http://127.0.0.1:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://2130706433:${port}/`,
      `http://127.1:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://①②⑦.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://[::1]:${port}/`,
      `http://127.0.0.1.nip.io:${port}/`,
      `HTTP://127.0.0.1:${port}/`,
    ];
    for (const url of tricks) {
      const result = await fetchWith({ lookup }, url);
      expect(result.success, url).toBe(false);
      expect(result.content, url).toMatch(
        /^Failed to fetch URL: .* is a loopback( \(IPv4 127\.0\.0\.1 inside IPv6\))? address; fetching internal network addresses is refused$/,
      );
    }
    const localhost = await fetchWith({}, `http://localhost:${port}/`);
    expect(localhost.content).toMatch(
      /^Failed to fetch URL: localhost \(which resolves to .*\) is a loopback/,
    );
    expect(server.requests).toEqual([]);
  });

  it('refuses private, link-local, metadata and other internal addresses', async () => {
    const internal = [
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://168.63.129.16/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://224.0.0.1/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ];
    for (const url of internal) {
      const result = await fetchWith({}, url);
      expect(result.content, url).toMatch(
        /^Failed to fetch URL: .*; fetching internal network addresses is refused$/,
      );
    }
  });

  it('refuses a name when any address it resolves to is internal', async () => {
    const lookup: HostLookup = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.1.1', family: 4 },
    ];
    const result = await fetchWith({ lookup }, 'http://mixed.test/');
    expect(result.content).toBe(
      'Failed to fetch URL: mixed.test (which resolves to 10.1.1.1) is a private address; fetching internal network addresses is refused',
    );
  });

  it('refuses other schemes and credentials in the URL', async () => {
    for (const [url, message] of [
      ['file:///etc/passwd', 'only http and https URLs can be fetched, not file'],
      ['ftp://example.com/x', 'only http and https URLs can be fetched, not ftp'],
      [
        'http://user:pass@example.com/',
        'URLs with a user name or password (user:pass@host) are refused',
      ],
    ] as const) {
      expect((await fetchWith({}, url)).content).toBe(`Failed to fetch URL: ${message}`);
    }
  });

  it('re-checks every redirect hop and refuses one to loopback', async () => {
    const internal = await serve(page('<p>internal secret</p>'));
    const targets = [
      `${internal.url}/`,
      `http://localhost:${internal.port}/`,
      `http://[::ffff:7f00:1]:${internal.port}/`,
      `http://2130706433:${internal.port}/`,
    ];
    // 127.0.0.2 plays a public host here; everything else keeps the real rules.
    const forbiddenReason = (address: string) =>
      address === '127.0.0.2' ? undefined : forbiddenAddressReason(address);
    const outside = await serve((response, request) => {
      const index = Number(request.url?.slice(1));
      redirect(targets[index] ?? '/')(response, request);
    }, '127.0.0.2');
    for (const [index, target] of targets.entries()) {
      const attempt = fetchPage(`${outside.url}/${index}`, {
        allowPrivateNetwork: false,
        lookup: undefined,
        signal: AbortSignal.timeout(2_000),
        maxChars: 1_000,
        userAgent: 'test',
        forbiddenReason,
      });
      await expect(attempt, target).rejects.toThrow(/^after a redirect to .*: .* is a loopback/);
    }
    expect(outside.requests).toHaveLength(targets.length);
    expect(internal.requests).toEqual([]);
  });

  it('connects to the checked address and keeps the host name in the Host header', async () => {
    const server = await serve(page('<p>pinned</p>'));
    const answers = ['127.0.0.1', '10.9.9.9'];
    const asked: string[] = [];
    const lookup: HostLookup = async (hostname) => {
      asked.push(hostname);
      return [{ address: answers[asked.length - 1] ?? '10.9.9.9', family: 4 }];
    };
    const result = await fetchWith({ ...open, lookup }, `http://pinned.test:${server.port}/`);
    expect(result).toMatchObject({ success: true, content: 'pinned' });
    expect(asked).toEqual(['pinned.test']);
    expect(server.requests[0]?.headers.host).toBe(`pinned.test:${server.port}`);
  });
});
