import {
  createToolSpec,
  JarvisError,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../../../core/index.js';
import { BaseTool } from '../../base-tool.js';
import type { HostLookup } from './ssrf-guard.js';
import { braveProvider } from './web-search-brave.js';
import { duckDuckGoProvider } from './web-search-duckduckgo.js';
import { describeWebError } from './web-search-errors.js';
import { fetchPage } from './web-search-page.js';
import {
  createProviderHttp,
  type FetchLike,
  formatHits,
  type SearchProvider,
} from './web-search-provider.js';
import { searxngProvider } from './web-search-searxng.js';
import { tavilyProvider } from './web-search-tavily.js';

/** The search backends `web_search` can use; the caller chooses one. */
export type WebSearchProviderName = 'searxng' | 'tavily' | 'brave' | 'duckduckgo';

/** Options of a `WebSearchTool`. */
export interface WebSearchToolOptions {
  /** Default `duckduckgo` (keyless). `searxng` needs `baseUrl`; `tavily` and `brave` need `apiKey`. */
  readonly provider?: WebSearchProviderName;
  /** The provider's endpoint: a SearXNG instance, or another address for the others (tests point it at 127.0.0.1). */
  readonly baseUrl?: string;
  readonly apiKey?: string;
  /** Let `url` fetches reach loopback, private and other internal addresses; off by default. */
  readonly allowPrivateNetwork?: boolean;
  /** Time limit of one call, redirects included (default 15 s). */
  readonly timeoutMs?: number;
  /** Used for provider API calls instead of `node:http(s)`; page fetches always use the guarded client. */
  readonly fetch?: FetchLike;
  /** Results when the model does not say (default 5, at most 10). */
  readonly maxResults?: number;
  /** Longest page text returned by a `url` fetch (default 6,000 characters). */
  readonly maxPageChars?: number;
  /** Resolves host names for `url` fetches (default: `node:dns` lookup with `all: true`). */
  readonly lookup?: HostLookup;
  readonly userAgent?: string;
}

type WebRequest =
  | { readonly mode: 'fetch'; readonly url: string }
  | { readonly mode: 'search'; readonly query: string; readonly maxResults: number };

const PROVIDERS: ReadonlyMap<WebSearchProviderName, SearchProvider> = new Map([
  ['searxng', searxngProvider],
  ['tavily', tavilyProvider],
  ['brave', braveProvider],
  ['duckduckgo', duckDuckGoProvider],
]);
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_RESULTS_LIMIT = 10;
const MAX_QUERY_CHARS = 2_000;
const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (compatible; OpenJarvis/1.0; +https://github.com/openjarvis)';
const WHOLE_URL = /^https?:\/\/\S+$/i;

/**
 * Searches the web through SearXNG, Tavily, Brave or DuckDuckGo (numbered title, URL and snippet per result),
 * or reads one page as text when given `url`, with SSRF protection. Every failure is a result naming the
 * provider or the refusal, never a throw.
 */
export class WebSearchTool extends BaseTool {
  readonly toolId = 'web_search';
  readonly spec: ToolSpec;
  readonly #providerName: WebSearchProviderName;
  readonly #provider: SearchProvider;
  readonly #options: WebSearchToolOptions;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxResults: number;

  constructor(options: WebSearchToolOptions = {}) {
    super();
    const { provider, name } = pickProvider(options.provider);
    this.#providerName = name;
    this.#provider = provider;
    this.#options = options;
    this.#baseUrl = checkBaseUrl(options.baseUrl ?? provider.defaultBaseUrl ?? '');
    this.#timeoutMs = positive('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.#maxResults = Math.min(positive('maxResults', options.maxResults, 5), MAX_RESULTS_LIMIT);
    positive('maxPageChars', options.maxPageChars, 1);
    this.spec = createWebSearchSpec(name, this.#timeoutMs);
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    const request = parseRequest(params, this.#maxResults);
    if (typeof request === 'string') return this.failure(request, 'invalid_arguments');
    if (request.mode === 'search') {
      const missing = this.#provider.missingConfiguration({
        apiKey: this.#options.apiKey,
        baseUrl: this.#baseUrl,
      });
      if (missing !== undefined) return this.failure(missing);
    }
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = context === undefined ? timeout : AbortSignal.any([context.signal, timeout]);
    try {
      return request.mode === 'fetch'
        ? await this.#fetch(request.url, signal)
        : await this.#search(request.query, request.maxResults, signal);
    } catch (error) {
      if (context?.signal.aborted) return this.failure('web_search was cancelled.', 'cancelled');
      const detail = describeWebError(error, {
        timedOut: timeout.aborted,
        timeoutMs: this.#timeoutMs,
        secret: this.#options.apiKey,
      });
      return this.failure(
        request.mode === 'fetch'
          ? `Failed to fetch URL: ${detail}`
          : `${this.#provider.label} search failed: ${detail}`,
      );
    }
  }

  async #search(query: string, maxResults: number, signal: AbortSignal): Promise<ToolResult> {
    const hits = await this.#provider.search({
      query,
      maxResults,
      baseUrl: this.#baseUrl,
      apiKey: this.#options.apiKey,
      userAgent: this.#options.userAgent ?? DEFAULT_USER_AGENT,
      http: createProviderHttp({ fetch: this.#options.fetch, signal }),
    });
    const metadata = { provider: this.#providerName, query, num_results: hits.length };
    return this.success(hits.length === 0 ? 'No results found.' : formatHits(hits), { metadata });
  }

  async #fetch(url: string, signal: AbortSignal): Promise<ToolResult> {
    const page = await fetchPage(url, {
      allowPrivateNetwork: this.#options.allowPrivateNetwork === true,
      lookup: this.#options.lookup,
      signal,
      maxChars: this.#options.maxPageChars ?? 6_000,
      userAgent: this.#options.userAgent ?? DEFAULT_USER_AGENT,
    });
    return this.success(page.text === '' ? 'No content found at URL.' : page.text, {
      metadata: {
        url,
        final_url: page.finalUrl,
        mode: 'fetch',
        status: page.status,
        content_type: page.contentType,
        truncated: page.truncated,
      },
    });
  }
}

function createWebSearchSpec(provider: WebSearchProviderName, timeoutMs: number): ToolSpec {
  return createToolSpec({
    name: 'web_search',
    description:
      'Search the web for current information. Returns relevant search results. Give url instead of query to read one web page as text.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Search query.' },
        url: {
          type: 'string',
          description: 'An http(s) URL to read as text instead of searching.',
        },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_RESULTS_LIMIT,
          description: 'Maximum results to return (1-10, default 5).',
        },
      },
    },
    category: 'search',
    // The tool enforces its own limit; the executor's is a little longer so the clearer message wins.
    timeoutMs: timeoutMs + 5_000,
    metadata: { provider },
  });
}

/** The request the arguments describe, or why they describe none. */
function parseRequest(params: ToolArguments, defaultMaxResults: number): WebRequest | string {
  const { query, url } = params;
  if (url !== undefined && url !== null && url !== '') {
    if (typeof url !== 'string') return `url must be a string, got ${typeof url}.`;
    return { mode: 'fetch', url: url.trim() };
  }
  if (query === undefined || query === null || (typeof query === 'string' && query.trim() === '')) {
    return 'No query provided. Give query to search the web, or url to read one page.';
  }
  if (typeof query !== 'string') return `query must be a string, got ${typeof query}.`;
  const trimmed = query.trim();
  // A query that IS one URL reads that page (as upstream did); a query that merely mentions one is searched.
  if (WHOLE_URL.test(trimmed)) return { mode: 'fetch', url: trimmed };
  if (trimmed.length > MAX_QUERY_CHARS) {
    return `query is too long (${trimmed.length} characters; at most ${MAX_QUERY_CHARS}).`;
  }
  const maxResults = parseMaxResults(params.max_results, defaultMaxResults);
  if (typeof maxResults === 'string') return maxResults;
  return { mode: 'search', query: trimmed, maxResults };
}

function parseMaxResults(value: unknown, fallback: number): number | string {
  if (value === undefined || value === null) return fallback;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (
    typeof number === 'number' &&
    Number.isInteger(number) &&
    number >= 1 &&
    number <= MAX_RESULTS_LIMIT
  ) {
    return number;
  }
  return `max_results must be a whole number from 1 to ${MAX_RESULTS_LIMIT}, got ${JSON.stringify(value)}.`;
}

function pickProvider(name: WebSearchProviderName | undefined): {
  provider: SearchProvider;
  name: WebSearchProviderName;
} {
  const chosen = name ?? 'duckduckgo';
  const provider = PROVIDERS.get(chosen);
  if (provider === undefined) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `WebSearchTool: unknown provider ${JSON.stringify(name)} (accepted: ${[...PROVIDERS.keys()].join(', ')})`,
    });
  }
  return { provider, name: chosen };
}

function checkBaseUrl(baseUrl: string): string {
  if (baseUrl === '') return '';
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `WebSearchTool: baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`,
    });
  }
  return baseUrl.replace(/\/+$/, '');
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `WebSearchTool: ${name} must be a positive number, got ${String(value)}`,
    });
  }
  return value;
}
