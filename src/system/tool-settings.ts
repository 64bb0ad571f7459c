import type { WebSearchToolOptions } from '../tools/index.js';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The web_search provider the environment selects: a self-hosted SearXNG (`SEARXNG_URL`) first, since it is
 * local and keyless; then Tavily (`TAVILY_API_KEY`), then Brave (`BRAVE_API_KEY`); DuckDuckGo otherwise.
 */
export function webSearchSettingsFromEnv(env: Environment): WebSearchToolOptions {
  if (env.SEARXNG_URL) return { provider: 'searxng', baseUrl: env.SEARXNG_URL };
  if (env.TAVILY_API_KEY) return { provider: 'tavily', apiKey: env.TAVILY_API_KEY };
  if (env.BRAVE_API_KEY) return { provider: 'brave', apiKey: env.BRAVE_API_KEY };
  return { provider: 'duckduckgo' };
}
