import { tokenizeHtml } from './web-search-html.js';
import {
  cleanText,
  endpoint,
  expectSuccess,
  providerError,
  type SearchHit,
  type SearchProvider,
  takeHits,
} from './web-search-provider.js';

/** What a DuckDuckGo results page holds. */
export interface DuckDuckGoPage {
  readonly hits: readonly SearchHit[];
  /** The page says there are no results (as opposed to a page that is not a results page at all). */
  readonly noResults: boolean;
}

interface PendingHit {
  readonly url: string | undefined;
  readonly title: string[];
  readonly snippet: string[];
}

interface Capture {
  readonly field: 'title' | 'snippet';
  readonly tag: string;
  depth: number;
}

/** The keyless fallback: DuckDuckGo's HTML endpoint (`https://html.duckduckgo.com/html/?q=…`), parsed without a DOM. */
export const duckDuckGoProvider: SearchProvider = {
  label: 'DuckDuckGo',
  defaultBaseUrl: 'https://html.duckduckgo.com',
  missingConfiguration: () => undefined,
  async search({ query, maxResults, baseUrl, userAgent, http }) {
    const url = endpoint(baseUrl, 'html/');
    url.searchParams.set('q', query);
    const response = await http({
      url,
      method: 'GET',
      headers: { accept: 'text/html', 'user-agent': userAgent },
    });
    if (response.status === 202) {
      throw providerError('HTTP 202: DuckDuckGo answered with a bot check instead of results');
    }
    expectSuccess(response);
    const page = parseDuckDuckGoHtml(response.text);
    if (page.hits.length === 0 && !page.noResults) {
      throw providerError(
        'the page has no search results (DuckDuckGo may have blocked the request or changed its layout)',
      );
    }
    return takeHits(page.hits, maxResults);
  },
};

/** Reads result links (`.result__a`) and snippets (`.result__snippet`) from a DuckDuckGo HTML page. */
export function parseDuckDuckGoHtml(html: string): DuckDuckGoPage {
  const hits: SearchHit[] = [];
  let noResults = false;
  let current: PendingHit | undefined;
  let capture: Capture | undefined;
  const flush = (): void => {
    const hit = current === undefined ? undefined : finishHit(current);
    if (hit !== undefined) hits.push(hit);
  };
  for (const token of tokenizeHtml(html)) {
    if (token.type === 'text') {
      if (capture !== undefined) current?.[capture.field].push(token.text);
    } else if (capture !== undefined) {
      if (token.name === capture.tag) capture.depth += token.type === 'open' ? 1 : -1;
      if (capture.depth === 0) capture = undefined;
    } else if (token.type === 'open') {
      const classes = (token.attributes.get('class') ?? '').split(/\s+/);
      if (classes.includes('no-results')) noResults = true;
      const field = classes.includes('result__a')
        ? 'title'
        : classes.includes('result__snippet') && current !== undefined
          ? 'snippet'
          : undefined;
      if (field === 'title') {
        flush();
        current = {
          url: decodeDuckDuckGoUrl(token.attributes.get('href')),
          title: [],
          snippet: [],
        };
      }
      if (field !== undefined && !token.selfClosing) capture = { field, tag: token.name, depth: 1 };
    }
  }
  flush();
  return { hits, noResults };
}

function finishHit(pending: PendingHit): SearchHit | undefined {
  if (pending.url === undefined) return undefined;
  return {
    title: cleanText(pending.title.join(''), 200) || 'Untitled',
    url: pending.url,
    snippet: cleanText(pending.snippet.join(''), 500),
  };
}

/**
 * The target of a result link: DuckDuckGo wraps it as `//duckduckgo.com/l/?uddg=<encoded URL>`. Links that
 * stay on DuckDuckGo (ads, `y.js`) and anything that is not http(s) give undefined.
 */
export function decodeDuckDuckGoUrl(href: string | undefined): string | undefined {
  if (href === undefined || href.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(href.trim(), 'https://duckduckgo.com/');
  } catch {
    return undefined;
  }
  if (url.hostname === 'duckduckgo.com' || url.hostname.endsWith('.duckduckgo.com')) {
    const target = url.searchParams.get('uddg');
    return target === null ? undefined : httpUrl(target);
  }
  return httpUrl(url.href);
}

function httpUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
