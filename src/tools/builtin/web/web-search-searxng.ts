import {
  arrayField,
  endpoint,
  expectSuccess,
  hitFrom,
  parseJsonObject,
  providerError,
  type SearchProvider,
  takeHits,
} from './web-search-provider.js';

/** A self-hosted SearXNG instance (keyless): `GET {baseUrl}/search?q=…&format=json`. */
export const searxngProvider: SearchProvider = {
  label: 'SearXNG',
  defaultBaseUrl: undefined,
  missingConfiguration: ({ baseUrl }) =>
    baseUrl === '' ? 'No SearXNG URL configured. Set SEARXNG_URL.' : undefined,
  async search({ query, maxResults, baseUrl, userAgent, http }) {
    const url = endpoint(baseUrl, 'search');
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const response = await http({
      url,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': userAgent },
    });
    if (response.status === 403) {
      throw providerError(
        'HTTP 403: the instance refuses format=json (enable "json" under search.formats in its settings.yml)',
      );
    }
    expectSuccess(response);
    const results = arrayField(parseJsonObject(response.text), 'results', '');
    return takeHits(
      results.map((raw) => hitFrom(raw, { title: 'title', url: 'url', snippet: 'content' })),
      maxResults,
    );
  },
};
