import { isPlainObject, JarvisError } from '../../../core/index.js';
import { sendHttpRequest, WEB_FETCH_MAX_BYTES } from './web-fetch.js';
import { decodeEntities } from './web-search-entities.js';

/** One search result. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/** The response of a fetch-like function: what `web_search` reads of it. */
export interface FetchLikeResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** What `web_search` passes to a fetch-like function (compatible with the global `fetch`). */
export interface FetchLikeInit {
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal: AbortSignal;
  readonly redirect: 'manual';
}

/** A `fetch`-compatible function used for calls to the search provider's API (never for `url` fetches). */
export type FetchLike = (url: string, init: FetchLikeInit) => Promise<FetchLikeResponse>;

/** One call to a provider's API. */
export interface ProviderHttpRequest {
  readonly url: URL;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A provider's answer, decoded as text. */
export interface ProviderHttpResponse {
  readonly status: number;
  readonly text: string;
}

/** Everything a provider needs for one search. */
export interface ProviderSearch {
  readonly query: string;
  readonly maxResults: number;
  /** The provider's endpoint base, without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly userAgent: string;
  readonly http: (request: ProviderHttpRequest) => Promise<ProviderHttpResponse>;
}

/** A search backend: how to call it and how to read its answer. */
export interface SearchProvider {
  /** How messages name it (`SearXNG`, `Tavily`, …). */
  readonly label: string;
  readonly defaultBaseUrl: string | undefined;
  /** What the configuration is missing, when it is; checked before any request. */
  readonly missingConfiguration: (
    search: Pick<ProviderSearch, 'apiKey' | 'baseUrl'>,
  ) => string | undefined;
  readonly search: (search: ProviderSearch) => Promise<readonly SearchHit[]>;
}

/** A `missingConfiguration` for a provider that needs an API key (read from `variable` by the system layer). */
export function requiresApiKey(variable: string): SearchProvider['missingConfiguration'] {
  return ({ apiKey }) =>
    apiKey === undefined || apiKey === '' ? `No API key configured. Set ${variable}.` : undefined;
}

/** A provider answered, but not with something usable; the message says what was wrong. */
export function providerError(message: string): JarvisError {
  return new JarvisError({ code: 'web_search_provider_error', message });
}

/** Options of `createProviderHttp`. */
export interface ProviderHttpOptions {
  readonly fetch: FetchLike | undefined;
  readonly signal: AbortSignal;
}

/**
 * Calls a provider's API with the injected fetch, or with `node:http(s)` (2 MiB cap, no redirects). The
 * provider endpoint is configuration, not model input, so a self-hosted instance on the local network works.
 */
export function createProviderHttp(
  options: ProviderHttpOptions,
): (request: ProviderHttpRequest) => Promise<ProviderHttpResponse> {
  const { fetch, signal } = options;
  if (fetch !== undefined) {
    return async (request) => {
      const response = await fetch(request.url.href, {
        method: request.method,
        headers: { ...request.headers },
        ...(request.body === undefined ? {} : { body: request.body }),
        signal,
        redirect: 'manual',
      });
      return { status: response.status, text: await response.text() };
    };
  }
  return async (request) => {
    const response = await sendHttpRequest({ ...request, signal, maxBytes: WEB_FETCH_MAX_BYTES });
    if (response.truncated) throw providerError('the response was larger than 2 MiB');
    return { status: response.status, text: response.body.toString('utf8') };
  };
}

/** Throws a provider error for any status but 2xx, with a hint for the usual ones. */
export function expectSuccess(response: ProviderHttpResponse): void {
  const { status } = response;
  if (status >= 200 && status < 300) return;
  const hint =
    status === 401 || status === 403
      ? ' (check the API key)'
      : status === 429
        ? ' (rate limited; try again later)'
        : status >= 300 && status < 400
          ? ' (unexpected redirect)'
          : '';
  const body = response.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  throw providerError(`HTTP ${status}${hint}${body === '' ? '' : `: ${body}`}`);
}

/** Parses a JSON object body; garbage or a non-object is a provider error. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw providerError(
      `the response is not valid JSON (starts with ${JSON.stringify(text.slice(0, 40))})`,
    );
  }
  if (!isPlainObject(value)) throw providerError('the response is not a JSON object');
  return value;
}

/** The array at `key` of a parsed response, or a provider error naming the key. */
export function arrayField(object: Record<string, unknown>, key: string, where: string): unknown[] {
  const value = object[key];
  if (!Array.isArray(value)) throw providerError(`the response has no "${key}" list${where}`);
  return value;
}

/** A hit from an untrusted result object: strings only, markup stripped, http(s) URLs only. */
export function hitFrom(
  raw: unknown,
  keys: { title: string; url: string; snippet: string },
): SearchHit | undefined {
  if (!isPlainObject(raw)) return undefined;
  const url = typeof raw[keys.url] === 'string' ? (raw[keys.url] as string).trim() : '';
  if (!/^https?:\/\//i.test(url)) return undefined;
  return {
    title: cleanText(raw[keys.title], 200) || 'Untitled',
    url,
    snippet: cleanText(raw[keys.snippet], 500),
  };
}

/** Text for the model: markup removed, entities decoded, control characters and runs of space collapsed, capped. */
export function cleanText(value: unknown, maxChars: number): string {
  if (typeof value !== 'string') return '';
  const text = decodeEntities(value.replace(/<[^<>]{0,200}>/g, ''))
    // The control characters (\p{Cc}) written as their two ranges: V8 builds a Unicode class's ranges when it parses
    // the file, at every import of the package, whether or not this line runs.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
    .replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ')
    .trim();
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** The first `maxResults` hits with distinct URLs. */
export function takeHits(hits: Iterable<SearchHit | undefined>, maxResults: number): SearchHit[] {
  const seen = new Set<string>();
  const taken: SearchHit[] = [];
  for (const hit of hits) {
    if (hit === undefined || seen.has(hit.url)) continue;
    seen.add(hit.url);
    taken.push(hit);
    if (taken.length >= maxResults) break;
  }
  return taken;
}

/** Numbered results: title, URL and snippet of each, separated by blank lines. */
export function formatHits(hits: readonly SearchHit[]): string {
  return hits
    .map((hit, index) => {
      const lines = [`${index + 1}. ${hit.title}`, `   ${hit.url}`];
      if (hit.snippet !== '') lines.push(`   ${hit.snippet}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/** `base` + `path` without doubled or missing slashes (a base may carry a path prefix). */
export function endpoint(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
}
