import { describe, expect, it } from 'vitest';
import { bearerKeyMatches } from './bearer-auth.js';
import { chunkOf, completionJson, completionOf, usageChunkOf, usageOf } from './chat-response.js';

const identity = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'm' };

describe('OpenAI response shapes', () => {
  it('builds a completion with usage and a length finish on a turn limit', () => {
    const result = {
      content: 'partial',
      toolResults: [],
      turns: 3,
      metadata: {
        max_turns_exceeded: true,
        usage: { promptTokens: 10, completionTokens: 4, totalTokens: 14 },
      },
    };
    expect(completionOf(identity, result)).toEqual({
      ...identity,
      object: 'chat.completion',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'partial' }, finish_reason: 'length' },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
    });
  });

  it('reports zero usage when the agent reported none, and sums a missing total', () => {
    expect(usageOf({ metadata: {} })).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
    });
    expect(usageOf({ metadata: { usage: { promptTokens: 2, completionTokens: 3 } } })).toEqual({
      prompt_tokens: 2,
      completion_tokens: 3,
      total_tokens: 5,
    });
  });

  it('writes the completion as JSON text equal to the completion object, whatever the content holds', () => {
    const results = [
      { content: 'partial', toolResults: [], turns: 3, metadata: { max_turns_exceeded: true } },
      {
        content: 'quote " backslash \\ newline \n tab \t nul \u0000 emoji 😀 lone \ud800 </script>',
        toolResults: [],
        turns: 1,
        metadata: { usage: { promptTokens: 7, completionTokens: Number.NaN, totalTokens: 1e21 } },
      },
    ];
    for (const result of results) {
      const text = completionJson({ ...identity, model: 'a "model"' }, result);
      expect(text).toBe(JSON.stringify(completionOf({ ...identity, model: 'a "model"' }, result)));
    }
  });

  it('builds chunks: usage null on each when usage was asked for, then a usage chunk without choices', () => {
    expect(chunkOf(identity, { content: 'Hi' }, null, true)).toEqual({
      ...identity,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }],
      usage: null,
    });
    expect(chunkOf(identity, {}, 'stop')).not.toHaveProperty('usage');
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    expect(usageChunkOf(identity, usage)).toMatchObject({ choices: [], usage });
  });
});

describe('bearerKeyMatches', () => {
  it('accepts only the exact key as a Bearer token', () => {
    expect(bearerKeyMatches('Bearer sk-1', 'sk-1')).toBe(true);
    expect(bearerKeyMatches('bearer   sk-1 ', 'sk-1')).toBe(true);
    expect(bearerKeyMatches('Bearer sk-2', 'sk-1')).toBe(false);
    expect(bearerKeyMatches('Bearer sk-1x', 'sk-1')).toBe(false);
    expect(bearerKeyMatches('sk-1', 'sk-1')).toBe(false);
    expect(bearerKeyMatches(undefined, 'sk-1')).toBe(false);
    expect(bearerKeyMatches('Bearer ', '')).toBe(false);
  });
});
