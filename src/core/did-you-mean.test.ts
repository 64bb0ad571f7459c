import { describe, expect, it } from 'vitest';
import { closestMatch, didYouMean } from './did-you-mean.js';

describe('didYouMean', () => {
  const tools = ['calculator', 'think', 'retrieval', 'file_read', 'web_search', 'code_interpreter'];

  it('suggests the closest name for a misspelling', () => {
    expect(closestMatch('calculater', tools)).toBe('calculator');
    expect(closestMatch('fileread', tools)).toBe('file_read');
    expect(didYouMean('olama', ['ollama', 'vllm', 'openai'])).toBe(" Did you mean 'ollama'?");
    expect(closestMatch('ORCHESTRATR', ['simple', 'orchestrator'])).toBe('orchestrator');
  });

  it('suggests nothing when no name is close', () => {
    expect(closestMatch('weather', tools)).toBeUndefined();
    expect(didYouMean('x', tools)).toBe('');
    expect(closestMatch('calculator', [])).toBeUndefined();
  });
});
