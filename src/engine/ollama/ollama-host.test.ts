import { describe, expect, it } from 'vitest';
import { JarvisError } from '../../core/index.js';
import { OLLAMA_DEFAULT_HOST, resolveOllamaHost } from './ollama-host.js';

describe('resolveOllamaHost', () => {
  it('reads OLLAMA_HOST values the way the ollama CLI does', () => {
    const cases: readonly (readonly [string | undefined, string])[] = [
      [undefined, 'http://127.0.0.1:11434'],
      ['', 'http://127.0.0.1:11434'],
      ['  ', 'http://127.0.0.1:11434'],
      ['127.0.0.1:11435', 'http://127.0.0.1:11435'],
      ['gpu-box', 'http://gpu-box:11434'],
      ['gpu-box:8080', 'http://gpu-box:8080'],
      [':11500', 'http://127.0.0.1:11500'],
      ['http://gpu-box', 'http://gpu-box:80'],
      ['https://ollama.example.com', 'https://ollama.example.com:443'],
      ['HTTPS://ollama.example.com:8443/', 'https://ollama.example.com:8443'],
      ['http://proxy:8080/ollama/', 'http://proxy:8080/ollama'],
      ['[::1]:11434', 'http://[::1]:11434'],
      ['[fe80::1]', 'http://[fe80::1]:11434'],
      ['::1', 'http://[::1]:11434'],
      ['http://127.0.0.1:11434', 'http://127.0.0.1:11434'],
    ];
    for (const [host, expected] of cases)
      expect(resolveOllamaHost(host), String(host)).toBe(expected);
    expect(OLLAMA_DEFAULT_HOST).toBe('http://127.0.0.1:11434');
  });

  it('reaches a listen-everywhere address on loopback', () => {
    expect(resolveOllamaHost('0.0.0.0')).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost('0.0.0.0:9000')).toBe('http://127.0.0.1:9000');
    expect(resolveOllamaHost('[::]:11434')).toBe('http://[::1]:11434');
  });

  it('rejects what it cannot connect to, naming the value and the accepted forms', () => {
    for (const host of ['ftp://box', 'box:port', 'box:70000', 'box:', '[::1', '[::1]x', 'a b:1']) {
      let error: unknown;
      try {
        resolveOllamaHost(host);
      } catch (caught) {
        error = caught;
      }
      expect(error, host).toBeInstanceOf(JarvisError);
      expect((error as JarvisError).code).toBe('invalid_argument');
      expect((error as JarvisError).message).toContain(`'${host}'`);
      expect((error as JarvisError).message).toContain('host:port');
    }
  });
});
