import { describe, expect, it } from 'vitest';
import type { MemoryResult } from '../core/index.js';
import { memoryResultJson } from './memory-result-json.js';

describe('memoryResultJson', () => {
  it('writes the keys of `jarvis memory search --json` in order, relevance relative to the best', () => {
    const result: MemoryResult = {
      id: 'doc-7',
      content: 'Lisbon has trams.',
      score: 1.5,
      source: '/notes/lisbon.md',
      metadata: { chunk_index: 2 },
    };
    expect(JSON.stringify(memoryResultJson(result, 4.5))).toBe(
      '{"id":"doc-7","score":1.5,"relevance":0.3333,"source":"/notes/lisbon.md","content":"Lisbon has trams.","metadata":{"chunk_index":2}}',
    );
  });

  it('gives the best result relevance 1', () => {
    const best: MemoryResult = { id: 'a', content: 'x', score: 2, source: '', metadata: {} };
    expect(memoryResultJson(best, 2).relevance).toBe(1);
  });
});
