import { describe, expect, it } from 'vitest';
import { webSearchSettingsFromEnv } from './tool-settings.js';

describe('webSearchSettingsFromEnv', () => {
  it('prefers a self-hosted SearXNG, then Tavily, then Brave, else DuckDuckGo', () => {
    const all = { SEARXNG_URL: 'http://127.0.0.1:8888', TAVILY_API_KEY: 't', BRAVE_API_KEY: 'b' };
    expect(webSearchSettingsFromEnv(all)).toEqual({
      provider: 'searxng',
      baseUrl: 'http://127.0.0.1:8888',
    });
    expect(webSearchSettingsFromEnv({ TAVILY_API_KEY: 't', BRAVE_API_KEY: 'b' })).toEqual({
      provider: 'tavily',
      apiKey: 't',
    });
    expect(webSearchSettingsFromEnv({ BRAVE_API_KEY: 'b' })).toEqual({
      provider: 'brave',
      apiKey: 'b',
    });
    expect(webSearchSettingsFromEnv({ SEARXNG_URL: '' })).toEqual({ provider: 'duckduckgo' });
  });
});
