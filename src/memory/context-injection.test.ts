import { describe, expect, it } from 'vitest';
import {
  createMessage,
  EventBus,
  type MemoryBackend,
  type MemoryResult,
  type RetrieveOptions,
  Role,
} from '../core/index.js';
import {
  buildContextMessage,
  CONTEXT_HEADER,
  estimateTokens,
  formatContext,
  injectContext,
} from './context-injection.js';
import { SQLiteMemory } from './sqlite-memory.js';

/** A backend that returns fixed results and records what it was asked. */
class FixedBackend implements MemoryBackend {
  readonly backendId = 'fixed';
  readonly calls: { query: string; options: RetrieveOptions | undefined }[] = [];
  constructor(readonly results: readonly MemoryResult[]) {}
  async store(): Promise<string> {
    return 'unused';
  }
  async retrieve(query: string, options?: RetrieveOptions): Promise<readonly MemoryResult[]> {
    this.calls.push({ query, options });
    return this.results;
  }
  async delete(): Promise<boolean> {
    return false;
  }
  async clear(): Promise<void> {}
  async count(): Promise<number> {
    return this.results.length;
  }
  async close(): Promise<void> {}
}

function result(content: string, source = '', score = 1): MemoryResult {
  return { id: content.slice(0, 8), content, source, score, metadata: {} };
}

describe('buildContextMessage', () => {
  it('builds the system message with source attribution, best results first', async () => {
    const memory = new SQLiteMemory({ dbPath: ':memory:' });
    try {
      await memory.store('Basil likes warm weather.', { source: 'herbs/basil.md' });
      await memory.store('Warm weather is good for basil and tomatoes.');
      const message = await buildContextMessage(memory, 'basil warm weather');
      expect(message?.role).toBe(Role.SYSTEM);
      expect(message?.content).toBe(
        `${CONTEXT_HEADER}[Source: herbs/basil.md] Basil likes warm weather.\n\nWarm weather is good for basil and tomatoes.`,
      );
    } finally {
      await memory.close();
    }
  });

  it('gives undefined when nothing is relevant or the store is empty', async () => {
    const memory = new SQLiteMemory({ dbPath: ':memory:' });
    try {
      expect(await buildContextMessage(memory, 'anything')).toBeUndefined();
      await memory.store('unrelated');
      expect(await buildContextMessage(memory, 'basil')).toBeUndefined();
      expect(await buildContextMessage(memory, '   ')).toBeUndefined();
    } finally {
      await memory.close();
    }
  });

  it('skips a result that would overflow the budget and keeps smaller later ones', async () => {
    const huge = result('x'.repeat(4_000), 'huge.md', 9);
    const small = result('small fact', 'small.md', 5);
    const backend = new FixedBackend([huge, small]);
    const message = await buildContextMessage(backend, 'q', { maxContextTokens: 100 });
    expect(message?.content).toBe(`${CONTEXT_HEADER}[Source: small.md] small fact`);
  });

  it('counts tokens as characters / 4, not whitespace words', async () => {
    // One "word" of 1,000 characters is 250 tokens: more than a budget of 100 allows.
    const backend = new FixedBackend([result('y'.repeat(1_000))]);
    expect(await buildContextMessage(backend, 'q', { maxContextTokens: 100 })).toBeUndefined();
    const header = estimateTokens(CONTEXT_HEADER);
    const fits = new FixedBackend([result('z'.repeat(40))]);
    const message = await buildContextMessage(fits, 'q', { maxContextTokens: header + 10 });
    expect(message).toBeDefined();
    expect(estimateTokens(message?.content ?? '')).toBeLessThanOrEqual(header + 10);
    expect(await buildContextMessage(fits, 'q', { maxContextTokens: header + 9 })).toBeUndefined();
  });

  it('passes topK and the signal on, and leaves out results below minScore', async () => {
    const backend = new FixedBackend([result('good', 'a', 3), result('weak', 'b', 0.05)]);
    const signal = new AbortController().signal;
    const message = await buildContextMessage(backend, 'query', { topK: 7, minScore: 0.1, signal });
    expect(message?.content).toBe(`${CONTEXT_HEADER}[Source: a] good`);
    expect(backend.calls).toEqual([{ query: 'query', options: { topK: 7, signal } }]);
  });

  it('publishes memory_retrieve with contextInjection on the given bus', async () => {
    const bus = new EventBus({ recordHistory: true });
    const backend = new FixedBackend([result('fact one', 's')]);
    const message = await buildContextMessage(backend, 'fact', { bus });
    expect(bus.history.map((event) => [event.type, event.data])).toEqual([
      [
        'memory_retrieve',
        {
          contextInjection: true,
          query: 'fact',
          numResults: 1,
          totalTokens: estimateTokens(message?.content ?? ''),
        },
      ],
    ]);
  });

  it('rejects a budget that is not a positive whole number', async () => {
    const backend = new FixedBackend([]);
    for (const maxContextTokens of [0, -5, 2.5, Number.NaN]) {
      await expect(buildContextMessage(backend, 'q', { maxContextTokens })).rejects.toThrow(
        'maxContextTokens must be a whole number of at least 1',
      );
    }
    await expect(buildContextMessage(backend, 'q', { minScore: Number.NaN })).rejects.toThrow(
      'minScore',
    );
  });
});

describe('injectContext', () => {
  it('returns a new list led by the context message, without changing the input', async () => {
    const messages = [createMessage(Role.USER, 'What about basil?')];
    const backend = new FixedBackend([result('Basil is an herb.', 'basil.md')]);
    const injected = await injectContext(backend, 'basil', messages);
    expect(injected).toHaveLength(2);
    expect(injected[0]?.role).toBe(Role.SYSTEM);
    expect(injected[1]).toBe(messages[0]);
    expect(messages).toHaveLength(1);
  });

  it('returns the same list when nothing relevant was found', async () => {
    const messages = [createMessage(Role.USER, 'hi')];
    expect(await injectContext(new FixedBackend([]), 'hi', messages)).toBe(messages);
  });
});

describe('formatContext', () => {
  it('tags results with their source and separates them by blank lines', () => {
    expect(formatContext([])).toBe('');
    expect(formatContext([result('a', 'one.md'), result('b')])).toBe('[Source: one.md] a\n\nb');
  });
});
