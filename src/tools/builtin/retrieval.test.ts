import { describe, expect, it } from 'vitest';
import type { MemoryBackend, MemoryResult, RetrieveOptions } from '../../core/index.js';
import { SQLiteMemory } from '../../memory/index.js';
import { ToolExecutor } from '../executor.js';
import { NO_MEMORY_BACKEND_MESSAGE, RetrievalTool } from './retrieval.js';

/** A backend that returns fixed results (or throws) and records the options it got. */
function fixedBackend(
  results: readonly MemoryResult[] | Error,
): MemoryBackend & { calls: RetrieveOptions[] } {
  const calls: RetrieveOptions[] = [];
  return {
    backendId: 'fixed',
    calls,
    store: async () => 'id',
    retrieve: async (_query, options = {}) => {
      calls.push(options);
      if (results instanceof Error) throw results;
      return results;
    },
    delete: async () => false,
    clear: async () => {},
    count: async () => 0,
    close: async () => {},
  };
}

function result(content: string, source: string, score: number): MemoryResult {
  return { id: content, content, source, score, metadata: {} };
}

describe('RetrievalTool', () => {
  it('has the documented spec', () => {
    const tool = new RetrievalTool();
    expect(tool.toolId).toBe('retrieval');
    expect(tool.spec.category).toBe('memory');
    expect(tool.toOpenAIFunction()).toEqual({
      type: 'function',
      function: {
        name: 'retrieval',
        description:
          'Search the knowledge base for relevant information. Returns context with sources.',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Search query to find relevant information.' },
            top_k: {
              type: ['integer', 'null'],
              description: 'Number of results to return (default: 5).',
              minimum: 1,
              maximum: 50,
            },
          },
          required: ['query'],
        },
      },
    });
  });

  it('formats results with their source and relevance relative to the best', async () => {
    const tool = new RetrievalTool({
      backend: fixedBackend([
        result('First answer.', 'docs/a.md', 7.2149),
        result('Second answer.', '', 0.5),
      ]),
    });
    const outcome = await tool.execute({ query: 'answer' });
    expect(outcome).toMatchObject({
      success: true,
      content:
        '[1] (source: docs/a.md, relevance: 100%)\nFirst answer.\n\n[2] (relevance: 7%)\nSecond answer.',
      metadata: { num_results: 2 },
    });
  });

  it('answers "No relevant results found." (a success) for an empty memory', async () => {
    const memory = new SQLiteMemory({ dbPath: ':memory:' });
    try {
      const outcome = await new RetrievalTool({ backend: memory }).execute({ query: 'anything' });
      expect(outcome).toMatchObject({ success: true, content: 'No relevant results found.' });
    } finally {
      await memory.close();
    }
  });

  it('fails clearly, saying how to enable memory, without a backend', async () => {
    const outcome = await new RetrievalTool().execute({ query: 'x' });
    expect(outcome.success).toBe(false);
    expect(outcome.content).toBe(NO_MEMORY_BACKEND_MESSAGE);
    expect(outcome.content).toMatch(
      /^No memory backend configured: .*new RetrievalTool\(\{ backend \}\)/,
    );
  });

  it('uses its default top_k for a missing or null top_k, and the given one otherwise', async () => {
    const backend = fixedBackend([]);
    const tool = new RetrievalTool({ backend, topK: 3 });
    await tool.execute({ query: 'q' });
    await tool.execute({ query: 'q', top_k: null });
    await tool.execute({ query: 'q', top_k: 8 });
    await tool.execute({ query: 'q', top_k: '2' });
    expect(backend.calls.map((options) => options.topK)).toEqual([3, 3, 8, 2]);
    expect(tool.spec.parameters).toMatchObject({
      properties: { top_k: { description: 'Number of results to return (default: 3).' } },
    });
  });

  it('rejects a top_k outside 1..50 and a missing or blank query', async () => {
    const tool = new RetrievalTool({ backend: fixedBackend([]) });
    for (const top_k of [0, 51, 1.5, 'many', true]) {
      const outcome = await tool.execute({ query: 'q', top_k });
      expect(outcome).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
      expect(outcome.content).toContain('top_k must be a whole number from 1 to 50');
    }
    for (const query of [undefined, '', '   ', 42]) {
      const outcome = await tool.execute({ query });
      expect(outcome).toMatchObject({
        success: false,
        content: expect.stringContaining('No query'),
      });
    }
  });

  it('reports backend errors as a failed result and passes the call signal on', async () => {
    const broken = new RetrievalTool({ backend: fixedBackend(new Error('disk on fire')) });
    const signal = new AbortController().signal;
    expect(await broken.execute({ query: 'q' }, { signal })).toMatchObject({
      success: false,
      content: 'Retrieval error: disk on fire',
    });
    const backend = fixedBackend([]);
    await new RetrievalTool({ backend }).execute({ query: 'q' }, { signal });
    expect(backend.calls[0]?.signal).toBe(signal);
  });

  it('rejects a bad default topK or a backend without retrieve()', () => {
    expect(() => new RetrievalTool({ topK: 0 })).toThrow(
      'topK must be a whole number from 1 to 50',
    );
    expect(() => new RetrievalTool({ backend: {} as MemoryBackend })).toThrow('memory backend');
  });

  it('runs through the ToolExecutor against a real SQLite memory, explicit null top_k included', async () => {
    const memory = new SQLiteMemory({ dbPath: ':memory:' });
    try {
      await memory.store('The scheduler retries failed tasks.', { source: 'docs/scheduler.md' });
      const executor = new ToolExecutor([new RetrievalTool({ backend: memory })]);
      const outcome = await executor.execute({
        id: 'call_1',
        name: 'retrieval',
        arguments: '{"query": "scheduler \\"retries\\" NEAR(", "top_k": null}',
      });
      expect(outcome.success).toBe(true);
      expect(outcome.content).toMatch(
        /^\[1\] \(source: docs\/scheduler\.md, relevance: 100%\)\nThe scheduler retries failed tasks\.$/,
      );
    } finally {
      await memory.close();
    }
  });
});
