import { describe, expect, it } from 'vitest';
import { webSearchSettings, webSearchSettingsFromEnv } from './tool-settings.js';

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

describe('webSearchSettings', () => {
  const env = { SEARXNG_URL: 'http://127.0.0.1:8888', TAVILY_API_KEY: 't', BRAVE_API_KEY: 'b' };

  it('follows the environment when the config names no provider', () => {
    expect(webSearchSettings(env, {})).toEqual(webSearchSettingsFromEnv(env));
  });

  it("uses the configured provider with its key or address, the config's address first", () => {
    expect(webSearchSettings(env, { provider: 'brave' })).toEqual({
      provider: 'brave',
      apiKey: 'b',
    });
    expect(webSearchSettings({}, { provider: 'tavily' })).toEqual({ provider: 'tavily' });
    expect(webSearchSettings(env, { provider: 'duckduckgo' })).toEqual({ provider: 'duckduckgo' });
    expect(webSearchSettings(env, { provider: 'searxng', baseUrl: 'http://127.0.0.1:9' })).toEqual({
      provider: 'searxng',
      baseUrl: 'http://127.0.0.1:9',
    });
    expect(webSearchSettings(env, { provider: 'searxng' })).toEqual({
      provider: 'searxng',
      baseUrl: 'http://127.0.0.1:8888',
    });
  });
});
