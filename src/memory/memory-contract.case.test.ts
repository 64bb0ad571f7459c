// The contract every full-text memory backend keeps, run against each backend by its own test file (not run
// alone): plain-text queries, best results first with positive scores, atomic writes, events, clear errors.
import { expect, it } from 'vitest';
import { type EventBus, JarvisError, type MemoryBackend } from '../core/index.js';
import {
  DEFAULT_TOP_K,
  MAX_TOP_K,
  type MemoryDocumentInput,
  type SourceDocumentInput,
} from './sqlite-memory.js';

/** A memory backend with the batch and source operations `memory index` uses. */
export interface ContractMemory extends MemoryBackend {
  storeMany(documents: readonly MemoryDocumentInput[]): Promise<readonly string[]>;
  replaceSource(
    source: string,
    documents: readonly SourceDocumentInput[],
  ): Promise<readonly string[]>;
  sourceMetadata(source: string): Promise<readonly Readonly<Record<string, unknown>>[]>;
}

/** What `open` gets from the running test: a backend that cannot run here skips it with the reason. */
export interface ContractTest {
  skip(note?: string): never;
}

/** Options the contract opens a fresh, empty memory with. */
export interface ContractMemoryOptions {
  readonly bus?: EventBus;
  readonly generateId?: () => string;
}

async function rejection(promise: Promise<unknown>): Promise<JarvisError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!JarvisError.isInstance(error))
    throw new Error(`expected a JarvisError, got ${String(error)}`);
  return error;
}

const HOSTILE = [
  '"',
  '""""',
  'NEAR(',
  'NEAR(alpha beta, 5)',
  'alpha*',
  '*',
  '^alpha',
  'content:alpha',
  'alpha AND',
  'OR',
  'NOT alpha',
  '(((alpha',
  'alpha)))',
  '{alpha beta}',
  'alpha\u0000beta',
  '\u0000',
  "alpha'; DROP TABLE memory_documents; --",
  '-alpha +beta',
  'alpha - beta',
  '\\',
  '%_',
  "alpha:* & !beta | 'x'",
  'alpha <-> beta',
];

/** Registers the contract's tests for the backend `open` builds (a fresh, empty memory per call). */
export function memoryContract(
  open: (test: ContractTest, options?: ContractMemoryOptions) => Promise<ContractMemory>,
  bus: () => EventBus,
): void {
  it('stores documents and finds them by word, best first, with positive scores', async (ctx) => {
    const memory = await open(ctx);
    const cats = await memory.store('Cats sleep most of the day.', {
      source: 'cats.md',
      metadata: { topic: 'cats' },
    });
    await memory.store('Dogs and cats can live together; cats first.', { source: 'pets.md' });
    await memory.store('Parrots talk.', { source: 'birds.md' });
    expect(cats).toMatch(/^[0-9a-f]{32}$/);
    expect(await memory.count()).toBe(3);
    const results = await memory.retrieve('cats');
    expect(results.map((result) => result.source).sort()).toEqual(['cats.md', 'pets.md']);
    expect(results.every((result) => result.score > 0)).toBe(true);
    expect(results[0]?.score).toBeGreaterThanOrEqual(results[1]?.score ?? 0);
    expect(results.find((result) => result.id === cats)).toMatchObject({
      content: 'Cats sleep most of the day.',
      metadata: { topic: 'cats' },
    });
  });

  it('stems English words: run finds runs and running', async (ctx) => {
    const memory = await open(ctx);
    await memory.store('She runs every morning.');
    await memory.store('Running shoes for sale.');
    await memory.store('Nothing relevant here.');
    expect(await memory.retrieve('run')).toHaveLength(2);
    expect(await memory.retrieve('RUNNING')).toHaveLength(2);
  });

  it('ranks documents that match only some query words, the better ones first', async (ctx) => {
    const memory = await open(ctx);
    const both = await memory.store('The scheduler retries failed tasks.');
    const one = await memory.store('The scheduler runs every minute.');
    await memory.store('Unrelated text about gardens.');
    const results = await memory.retrieve('scheduler retries');
    expect(results.map((result) => result.id)).toEqual([both, one]);
  });

  it('drops common English words from a query that has other words', async (ctx) => {
    const memory = await open(ctx);
    const wanted = await memory.store('Notes on the telemetry store.');
    await memory.store('This is what it was and the way it is.');
    const results = await memory.retrieve('what is the telemetry');
    expect(results.map((result) => result.id)).toEqual([wanted]);
  });

  it('keeps content, source and metadata exactly: unicode, NUL, SQL-looking text', async (ctx) => {
    const memory = await open(ctx);
    const content = "Ünïcödé 日本語 😀 tab\tNUL\u0000end '; DROP TABLE memory_documents; --";
    const metadata = { nested: { list: [1, 'two', null] }, quote: '"\'', nul: 'a\u0000b' };
    await memory.store(content, { source: 'src/\'quoted".md', metadata });
    const [result] = await memory.retrieve('Ünïcödé');
    expect(result).toMatchObject({ content, source: 'src/\'quoted".md', metadata });
    expect(await memory.retrieve('end')).toHaveLength(1);
    expect(await memory.retrieve('DROP TABLE')).toHaveLength(1);
    expect(await memory.count()).toBe(1);
  });

  it('stores and finds a 1 MB document', async (ctx) => {
    const memory = await open(ctx);
    const filler = 'lorem ipsum dolor sit amet '.repeat(40_000);
    const content = `${filler}needle ${filler}`;
    expect(content.length).toBeGreaterThan(1_000_000);
    await memory.store(content, { source: 'big.txt' });
    await memory.store('a small needle');
    const results = await memory.retrieve('needle');
    expect(results).toHaveLength(2);
    expect(results.find((result) => result.source === 'big.txt')?.content).toBe(content);
  });

  it('uses the injected id generator', async (ctx) => {
    let next = 0;
    const generateId = () => {
      next += 1;
      return `doc-${next}`;
    };
    const memory = await open(ctx, { generateId });
    expect(await memory.store('first')).toBe('doc-1');
    expect(await memory.storeMany([{ content: 'second' }, { content: 'third' }])).toEqual([
      'doc-2',
      'doc-3',
    ]);
  });

  it('deletes one document, clears all, and counts', async (ctx) => {
    const memory = await open(ctx);
    const id = await memory.store('keep this');
    await memory.store('and this');
    expect(await memory.delete(id)).toBe(true);
    expect(await memory.delete(id)).toBe(false);
    expect(await memory.retrieve('keep')).toEqual([]);
    expect(await memory.count()).toBe(1);
    await memory.clear();
    expect(await memory.count()).toBe(0);
    expect(await memory.retrieve('this')).toEqual([]);
  });

  it('never reads query text as search syntax and never throws for it', async (ctx) => {
    const memory = await open(ctx);
    await memory.store('alpha and beta are near each other, not far');
    await memory.store('gamma only');
    for (const query of HOSTILE) {
      const results = await memory.retrieve(query);
      expect(
        results.map((result) => result.content),
        query,
      ).not.toContain('gamma only');
    }
    expect(await memory.retrieve('NEAR(')).toHaveLength(1);
    expect(await memory.retrieve('"alpha')).toHaveLength(1);
    expect(await memory.count()).toBe(2);
  });

  it('returns [] for empty, blank or punctuation-only queries without publishing', async (ctx) => {
    const events = bus();
    const memory = await open(ctx, { bus: events });
    await memory.store('something');
    events.clearHistory();
    for (const query of ['', '   ', '\n\t', '"*^:()', '\u0000'])
      expect(await memory.retrieve(query)).toEqual([]);
    expect(events.history).toEqual([]);
  });

  it('validates topK: a positive whole number, capped at the maximum', async (ctx) => {
    const memory = await open(ctx);
    await memory.storeMany(
      Array.from({ length: MAX_TOP_K + 20 }, () => ({ content: 'same word' })),
    );
    expect(await memory.retrieve('word')).toHaveLength(DEFAULT_TOP_K);
    expect(await memory.retrieve('word', { topK: 1 })).toHaveLength(1);
    expect(await memory.retrieve('word', { topK: 10_000 })).toHaveLength(MAX_TOP_K);
    for (const topK of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await rejection(memory.retrieve('word', { topK }));
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toContain('topK');
    }
  });

  it('rejects a query that is not a string and an aborted signal', async (ctx) => {
    const memory = await open(ctx);
    const error = await rejection(memory.retrieve(42 as unknown as string));
    expect(error.message).toContain('query must be a string');
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(memory.retrieve('x', { signal: controller.signal })).rejects.toThrow('stop now');
  });

  it('publishes memory_store and memory_retrieve on its own bus only', async (ctx) => {
    const events = bus();
    const other = bus();
    const memory = await open(ctx, { bus: events, generateId: () => 'id-1' });
    await memory.store('hello world', { source: 'greeting.txt' });
    await memory.retrieve('hello');
    expect(events.history.map((event) => [event.type, event.data])).toEqual([
      ['memory_store', { backend: memory.backendId, docId: 'id-1', source: 'greeting.txt' }],
      ['memory_retrieve', { backend: memory.backendId, query: 'hello', numResults: 1 }],
    ]);
    expect(other.history).toEqual([]);
  });

  it('publishes nothing for a write that failed', async (ctx) => {
    const events = bus();
    const memory = await open(ctx, { bus: events });
    await expect(
      memory.storeMany([{ content: 'ok' }, { content: 5 as unknown as string }]),
    ).rejects.toThrow('document 1: content must be a string');
    expect(events.history).toEqual([]);
    expect(await memory.count()).toBe(0);
  });

  it('rejects bad documents with a clear error and stores none of the batch', async (ctx) => {
    const memory = await open(ctx);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, string][] = [
      [[{ content: 1 }], 'content must be a string'],
      [[{ content: 'x', source: 3 }], 'source must be a string'],
      [[{ content: 'x', metadata: [] }], 'metadata must be a plain object'],
      [[{ content: 'x', metadata: { big: 1n } }], 'metadata must be JSON-serialisable'],
      [[{ content: 'x', metadata: cyclic }], 'metadata must be JSON-serialisable'],
      [[null], 'must be an object'],
      ['not a list', 'documents must be an array'],
    ];
    for (const [documents, message] of cases) {
      const error = await rejection(memory.storeMany(documents as never));
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toContain(message);
    }
    await expect(memory.replaceSource('a.md', 'text' as never)).rejects.toThrow(
      'documents must be an array',
    );
    await expect(memory.store('x', 'source' as never)).rejects.toThrow('store options');
    await expect(memory.delete(7 as never)).rejects.toThrow('id must be a string');
    expect(await memory.count()).toBe(0);
  });

  it('replaces a source atomically and lists its metadata', async (ctx) => {
    const memory = await open(ctx);
    await memory.replaceSource('a.md', [
      { content: 'old one', metadata: { n: 1 } },
      { content: 'old two', metadata: { n: 2 } },
    ]);
    await memory.store('other source', { source: 'b.md' });
    expect(await memory.sourceMetadata('a.md')).toEqual([{ n: 1 }, { n: 2 }]);
    await expect(
      memory.replaceSource('a.md', [{ content: 'new' }, { content: null as unknown as string }]),
    ).rejects.toThrow('content must be a string');
    expect(await memory.sourceMetadata('a.md')).toHaveLength(2);
    await memory.replaceSource('a.md', [{ content: 'new text' }]);
    expect(await memory.retrieve('old')).toEqual([]);
    expect((await memory.retrieve('new')).map((result) => result.source)).toEqual(['a.md']);
    expect(await memory.count()).toBe(2);
    await memory.replaceSource('a.md', []);
    expect(await memory.count()).toBe(1);
  });

  it('keeps a source as it was when replacing it fails half way', async (ctx) => {
    let calls = 0;
    const memory = await open(ctx, {
      generateId: () => {
        calls += 1;
        return calls === 3 ? '' : `id-${calls}`;
      },
    });
    await memory.replaceSource('a.md', [{ content: 'kept' }]);
    await expect(
      memory.replaceSource('a.md', [{ content: 'new 1' }, { content: 'new 2' }]),
    ).rejects.toThrow('generateId');
    expect((await memory.retrieve('kept')).map((result) => result.content)).toEqual(['kept']);
  });

  it('refuses use after close, and closing twice is harmless', async (ctx) => {
    const memory = await open(ctx);
    await memory.close();
    await memory.close();
    const error = await rejection(memory.count());
    expect(error.code).toBe('memory_closed');
  });
}
