import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../executor.js';
import { WebSearchTool, type WebSearchToolOptions } from './web-search.js';
import type { FetchLike, FetchLikeInit } from './web-search-provider.js';

interface Recorded {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

type Handler = (response: ServerResponse, request: Recorded) => void;

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

/** A fake provider on 127.0.0.1 that records every request. */
async function serve(handler: Handler): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    incoming.on('end', () => {
      const recorded = {
        method: incoming.method ?? '',
        url: new URL(incoming.url ?? '/', 'http://fake'),
        headers: incoming.headers,
        body,
      };
      requests.push(recorded);
      handler(response, recorded);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

function json(value: unknown, status = 200): Handler {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(typeof value === 'string' ? value : JSON.stringify(value));
  };
}

function html(text: string, status = 200): Handler {
  return (response) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    response.end(text);
  };
}

/** Two results in the markup of html.duckduckgo.com (the parser has its own tests). */
const DDG_PAGE = `<div class="result"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fdocs%3Fa%3D1%26b%3D2&amp;rut=x">Example <b>Domain</b> &amp; Docs</a></h2>
<a class="result__snippet" href="#">Snippet one.</a></div>
<div class="result"><h2><a class="result__a" href="https://second.example/">Second</a></h2></div>`;

const SEARXNG_RESULTS = {
  query: 'q',
  results: [
    { title: 'First <em>hit</em>', url: 'https://one.example/', content: 'About   one.\n' },
    { title: '', url: 'https://two.example/', content: 'Untitled one' },
    { title: 'Duplicate', url: 'https://one.example/', content: 'dup' },
    { title: 'Script', url: 'javascript:alert(1)', content: 'x' },
    'not an object',
    { title: 'Third', url: 'http://three.example/page', content: 42 },
  ],
};

async function search(options: WebSearchToolOptions, args: Record<string, unknown>) {
  return new WebSearchTool(options).execute(args);
}

describe('WebSearchTool: providers', () => {
  it('searches SearXNG with format=json and numbers title, URL and snippet', async () => {
    const fake = await serve(json(SEARXNG_RESULTS));
    const result = await search(
      { provider: 'searxng', baseUrl: `${fake.url}/searx/` },
      { query: 'what is OpenJarvis' },
    );
    expect(result).toMatchObject({
      success: true,
      toolName: 'web_search',
      metadata: { provider: 'searxng', query: 'what is OpenJarvis', num_results: 3 },
    });
    expect(result.content).toBe(
      [
        '1. First hit\n   https://one.example/\n   About one.',
        '2. Untitled\n   https://two.example/\n   Untitled one',
        '3. Third\n   http://three.example/page',
      ].join('\n\n'),
    );
    const request = fake.requests[0];
    expect(request?.url.pathname).toBe('/searx/search');
    expect(Object.fromEntries(request?.url.searchParams ?? [])).toEqual({
      q: 'what is OpenJarvis',
      format: 'json',
    });
  });

  it('honours max_results', async () => {
    const fake = await serve(json(SEARXNG_RESULTS));
    const result = await search(
      { provider: 'searxng', baseUrl: fake.url },
      { query: 'q', max_results: 1 },
    );
    expect(result.metadata).toMatchObject({ num_results: 1 });
    expect(result.content).not.toContain('2.');
  });

  it('posts to Tavily with a bearer key', async () => {
    const fake = await serve(
      json({ results: [{ title: 'T', url: 'https://t.example/', content: 'tavily says' }] }),
    );
    const result = await search(
      { provider: 'tavily', apiKey: 'tvly-secret', baseUrl: fake.url },
      { query: 'news', max_results: 3 },
    );
    expect(result.content).toBe('1. T\n   https://t.example/\n   tavily says');
    const request = fake.requests[0];
    expect(request).toMatchObject({ method: 'POST' });
    expect(request?.url.pathname).toBe('/search');
    expect(request?.headers.authorization).toBe('Bearer tvly-secret');
    expect(JSON.parse(request?.body ?? '')).toEqual({ query: 'news', max_results: 3 });
  });

  it('queries Brave with X-Subscription-Token and strips its markup', async () => {
    const fake = await serve(
      json({
        web: {
          results: [
            {
              title: 'B &amp; B',
              url: 'https://b.example/',
              description: 'A <strong>bold</strong> claim',
            },
          ],
        },
      }),
    );
    const result = await search(
      { provider: 'brave', apiKey: 'brave-key', baseUrl: fake.url },
      { query: 'q' },
    );
    expect(result.content).toBe('1. B & B\n   https://b.example/\n   A bold claim');
    const request = fake.requests[0];
    expect(request?.url.pathname).toBe('/res/v1/web/search');
    expect(request?.url.searchParams.get('count')).toBe('5');
    expect(request?.headers['x-subscription-token']).toBe('brave-key');
    const empty = await serve(json({ query: {} }));
    const none = await search(
      { provider: 'brave', apiKey: 'k', baseUrl: empty.url },
      { query: 'q' },
    );
    expect(none).toMatchObject({ success: true, content: 'No results found.' });
  });

  it('uses the DuckDuckGo HTML endpoint by default', async () => {
    const fake = await serve(html(DDG_PAGE));
    const result = await search({ baseUrl: fake.url }, { query: 'example' });
    expect(result).toMatchObject({
      success: true,
      metadata: { provider: 'duckduckgo', num_results: 2 },
    });
    expect(result.content).toContain(
      '1. Example Domain & Docs\n   https://example.com/docs?a=1&b=2',
    );
    expect(fake.requests[0]?.url.pathname).toBe('/html/');
    expect(fake.requests[0]?.url.searchParams.get('q')).toBe('example');
    expect(fake.requests[0]?.headers['user-agent']).toMatch(/OpenJarvis/);
    const empty = await serve(html('<div class="no-results">No results.</div>'));
    expect((await search({ baseUrl: empty.url }, { query: 'zzz' })).content).toBe(
      'No results found.',
    );
  });

  it('uses an injected fetch for provider calls', async () => {
    const seen: Array<{ url: string; init: FetchLikeInit }> = [];
    const fetch: FetchLike = async (url, init) => {
      seen.push({ url, init });
      return {
        status: 200,
        headers: { get: () => 'application/json' },
        text: async () => JSON.stringify({ results: [{ title: 'F', url: 'https://f.example/' }] }),
      };
    };
    const result = await search(
      { provider: 'searxng', baseUrl: 'https://searx.example', fetch },
      { query: 'q' },
    );
    expect(result.content).toBe('1. F\n   https://f.example/');
    expect(seen[0]?.url).toBe('https://searx.example/search?q=q&format=json');
    expect(seen[0]?.init).toMatchObject({ method: 'GET', redirect: 'manual' });
    expect(seen[0]?.init.signal).toBeInstanceOf(AbortSignal);
  });
});

describe('WebSearchTool: provider failures', () => {
  const failures: Array<[string, WebSearchToolOptions, Handler, RegExp]> = [
    [
      'SearXNG 500',
      { provider: 'searxng' },
      json('{"error":"boom"}', 500),
      /^SearXNG search failed: HTTP 500: \{"error":"boom"\}$/,
    ],
    [
      'SearXNG 403',
      { provider: 'searxng' },
      json('', 403),
      /^SearXNG search failed: HTTP 403: .*search\.formats/,
    ],
    [
      'SearXNG garbage',
      { provider: 'searxng' },
      json('<html>not json'),
      /^SearXNG search failed: the response is not valid JSON/,
    ],
    [
      'SearXNG array',
      { provider: 'searxng' },
      json([1, 2]),
      /^SearXNG search failed: the response is not a JSON object$/,
    ],
    ['SearXNG no results', { provider: 'searxng' }, json({ results: 'nope' }), /no "results" list/],
    [
      'Tavily 401',
      { provider: 'tavily', apiKey: 'k' },
      json({ detail: 'Unauthorized' }, 401),
      /^Tavily search failed: HTTP 401 \(check the API key\)/,
    ],
    [
      'Tavily 429',
      { provider: 'tavily', apiKey: 'k' },
      json('{}', 429),
      /^Tavily search failed: HTTP 429 \(rate limited/,
    ],
    [
      'Tavily redirect',
      { provider: 'tavily', apiKey: 'k' },
      (response) => {
        response.writeHead(302, { location: 'http://10.0.0.1/' });
        response.end();
      },
      /^Tavily search failed: HTTP 302 \(unexpected redirect\)/,
    ],
    [
      'Brave garbage',
      { provider: 'brave', apiKey: 'k' },
      json('{"web":'),
      /^Brave search failed: the response is not valid JSON/,
    ],
    [
      'Brave web shape',
      { provider: 'brave', apiKey: 'k' },
      json({ web: { results: {} } }),
      /no "results" list under "web"/,
    ],
    [
      'DuckDuckGo no results markup',
      {},
      html('<html><body>Unusual traffic</body></html>'),
      /^DuckDuckGo search failed: the page has no search results/,
    ],
    [
      'DuckDuckGo bot check',
      {},
      html('<div class="anomaly-modal"></div>', 202),
      /^DuckDuckGo search failed: HTTP 202/,
    ],
    ['DuckDuckGo 503', {}, html('down', 503), /^DuckDuckGo search failed: HTTP 503: down$/],
  ];

  for (const [name, options, handler, message] of failures) {
    it(`reports ${name} as a failed result`, async () => {
      const fake = await serve(handler);
      const result = await search({ ...options, baseUrl: fake.url }, { query: 'q' });
      expect(result).toMatchObject({ success: false, errorCode: 'tool_error' });
      expect(result.content).toMatch(message);
    });
  }

  it('reports a provider that never answers as a timeout', async () => {
    const fake = await serve(() => {});
    const result = await search(
      { provider: 'searxng', baseUrl: fake.url, timeoutMs: 50 },
      { query: 'q' },
    );
    expect(result).toMatchObject({
      success: false,
      content: 'SearXNG search failed: no answer within 0.05 s',
    });
  });

  it('reports a refused connection', async () => {
    const fake = await serve(json({}));
    const closed = fake.url;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const result = await search({ provider: 'searxng', baseUrl: closed }, { query: 'q' });
    expect(result.content).toBe('SearXNG search failed: connection refused');
  });

  it('reports a throwing fetch and never repeats the API key', async () => {
    const fetch: FetchLike = async () => {
      throw new Error('socket hang up for key sk-very-secret');
    };
    const result = await search(
      { provider: 'tavily', apiKey: 'sk-very-secret', baseUrl: 'https://t.example', fetch },
      { query: 'q' },
    );
    expect(result).toMatchObject({ success: false });
    expect(result.content).toBe('Tavily search failed: socket hang up for key ***');
  });

  it('says which setting is missing before calling anything', async () => {
    expect((await search({ provider: 'tavily' }, { query: 'q' })).content).toBe(
      'No API key configured. Set TAVILY_API_KEY.',
    );
    expect((await search({ provider: 'brave', apiKey: '' }, { query: 'q' })).content).toBe(
      'No API key configured. Set BRAVE_API_KEY.',
    );
    expect((await search({ provider: 'searxng' }, { query: 'q' })).content).toBe(
      'No SearXNG URL configured. Set SEARXNG_URL.',
    );
  });

  it('reports cancellation by the caller', async () => {
    const controller = new AbortController();
    const fake = await serve(() => controller.abort());
    const result = await new WebSearchTool({ provider: 'searxng', baseUrl: fake.url }).execute(
      { query: 'q' },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ success: false, errorCode: 'cancelled' });
  });
});

describe('WebSearchTool: arguments', () => {
  it('searches a query that merely mentions a URL instead of fetching it', async () => {
    const page = await serve(html('<p>secret page</p>'));
    const ddg = await serve(html(DDG_PAGE));
    const query = `summarize ${page.url}/internal for me`;
    const result = await search({ baseUrl: ddg.url, allowPrivateNetwork: true }, { query });
    expect(result.success).toBe(true);
    expect(ddg.requests[0]?.url.searchParams.get('q')).toBe(query);
    expect(page.requests).toEqual([]);
  });

  it('validates arguments itself and through the executor', async () => {
    const tool = new WebSearchTool({ provider: 'searxng', baseUrl: 'http://127.0.0.1:9' });
    for (const args of [{}, { query: '' }, { query: '   ' }, { query: null }]) {
      expect(await tool.execute(args)).toMatchObject({
        success: false,
        errorCode: 'invalid_arguments',
        content: expect.stringMatching(/^No query provided\./),
      });
    }
    for (const max_results of [0, 11, 2.5, 'many']) {
      expect((await tool.execute({ query: 'q', max_results })).content).toMatch(
        /^max_results must be a whole number from 1 to 10/,
      );
    }
    expect((await tool.execute({ query: 7 })).content).toBe('query must be a string, got number.');
    expect((await tool.execute({ query: 'x'.repeat(2_001) })).content).toMatch(/too long/);
    const executor = new ToolExecutor([tool]);
    const refused = await executor.execute({
      name: 'web_search',
      arguments: { query: 'q', max_results: 50 },
    });
    expect(refused).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
  });

  it('has the documented spec and refuses bad options', () => {
    const tool = new WebSearchTool();
    expect(tool.spec).toMatchObject({ name: 'web_search', category: 'search', timeoutMs: 20_000 });
    expect(Object.keys(tool.spec.parameters.properties as object)).toEqual([
      'query',
      'url',
      'max_results',
    ]);
    expect(() => new WebSearchTool({ provider: 'bing' as never })).toThrow(
      /unknown provider "bing"/,
    );
    expect(() => new WebSearchTool({ provider: 'searxng', baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => new WebSearchTool({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
