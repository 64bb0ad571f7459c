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

/** The Tavily search API: `POST https://api.tavily.com/search` with a bearer key. */
export const tavilyProvider: SearchProvider = {
  label: 'Tavily',
  defaultBaseUrl: 'https://api.tavily.com',
  missingConfiguration: requiresApiKey('TAVILY_API_KEY'),
  async search({ query, maxResults, baseUrl, apiKey, userAgent, http }) {
    const response = await http({
      url: endpoint(baseUrl, 'search'),
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${apiKey ?? ''}`,
        'user-agent': userAgent,
      },
      body: JSON.stringify({ query, max_results: maxResults }),
    });
    expectSuccess(response);
    const results = arrayField(parseJsonObject(response.text), 'results', '');
    return takeHits(
      results.map((raw) => hitFrom(raw, { title: 'title', url: 'url', snippet: 'content' })),
      maxResults,
    );
  },
};
