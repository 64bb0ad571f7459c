import { isPlainObject } from '../../../core/index.js';
import {
  arrayField,
  endpoint,
  expectSuccess,
  hitFrom,
  parseJsonObject,
  requiresApiKey,
  type SearchProvider,
  takeHits,
} from './web-search-provider.js';

/** The Brave Search API: `GET https://api.search.brave.com/res/v1/web/search` with `X-Subscription-Token`. */
export const braveProvider: SearchProvider = {
  label: 'Brave',
  defaultBaseUrl: 'https://api.search.brave.com',
  missingConfiguration: requiresApiKey('BRAVE_API_KEY'),
  async search({ query, maxResults, baseUrl, apiKey, userAgent, http }) {
    const url = endpoint(baseUrl, 'res/v1/web/search');
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(maxResults));
    const response = await http({
      url,
      method: 'GET',
      headers: {
        accept: 'application/json',
        'x-subscription-token': apiKey ?? '',
        'user-agent': userAgent,
      },
    });
    expectSuccess(response);
    const body = parseJsonObject(response.text);
    // A query without web results may come back without the `web` section at all.
    if (body.web === undefined) return [];
    const web = isPlainObject(body.web) ? body.web : {};
    const results = arrayField(web, 'results', ' under "web"');
    return takeHits(
      results.map((raw) => hitFrom(raw, { title: 'title', url: 'url', snippet: 'description' })),
      maxResults,
    );
  },
};
