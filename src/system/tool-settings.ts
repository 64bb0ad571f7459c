import type { WebSearchProviderName, WebSearchToolOptions } from '../tools/index.js';
import type { Environment } from './config/index.js';

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

/** Keys of the providers that need one, by provider. */
const API_KEY_VARIABLES: Readonly<Partial<Record<WebSearchProviderName, string>>> = {
  tavily: 'TAVILY_API_KEY',
  brave: 'BRAVE_API_KEY',
};

/**
 * The web_search settings: the provider the config names (its key or address from the config or the
 * environment), else the one the environment selects (`webSearchSettingsFromEnv`).
 */
export function webSearchSettings(
  env: Environment,
  configured: {
    readonly provider?: WebSearchProviderName | undefined;
    readonly baseUrl?: string | undefined;
  },
): WebSearchToolOptions {
  const { provider } = configured;
  if (provider === undefined) return webSearchSettingsFromEnv(env);
  if (provider === 'searxng') {
    const baseUrl = configured.baseUrl ?? env.SEARXNG_URL;
    return baseUrl === undefined ? { provider } : { provider, baseUrl };
  }
  const variable = API_KEY_VARIABLES[provider];
  const apiKey = variable === undefined ? undefined : env[variable];
  return apiKey === undefined ? { provider } : { provider, apiKey };
}
