import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JarvisError } from '../core/index.js';
import { chunkText, DEFAULT_CHUNK_SIZE, resolveChunkSizes, textKindOf } from './chunking.js';

/**
 * Checks that the chunks, in order, cover every non-blank character of `text`: each chunk must occur in the text
 * starting no later than where the covered part ends (skipping blanks); the latest such occurrence is used.
 */
function coversText(text: string, chunks: readonly string[]): boolean {
  let coveredEnd = 0;
  for (const chunk of chunks) {
    let limit = coveredEnd;
    while (limit < text.length && /\s/.test(text.charAt(limit))) limit += 1;
    const at = text.lastIndexOf(chunk, limit);
    if (at < 0) return false;
    coveredEnd = Math.max(coveredEnd, at + chunk.length);
  }
  return text.slice(coveredEnd).trim() === '';
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('chunkText', () => {
  it('keeps a short text whole, trimmed, and gives nothing for blank text', () => {
    expect(chunkText('  hello world \n')).toEqual(['hello world']);
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\n\t ')).toEqual([]);
  });

  it('splits prose at paragraphs and sentences, each chunk within the size, repeating an overlap', () => {
    const sentence = (index: number) => `Sentence number ${index} says something useful here.`;
    const paragraph = (start: number) =>
      Array.from({ length: 5 }, (_, index) => sentence(start + index)).join(' ');
    const text = [paragraph(0), paragraph(5), paragraph(10), paragraph(15)].join('\n\n');
    const chunks = chunkText(text, { chunkSize: 300, chunkOverlap: 60 });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.length <= 300)).toBe(true);
    expect(coversText(text, chunks)).toBe(true);
    for (let index = 1; index < chunks.length; index += 1) {
      const previous = chunks[index - 1] ?? '';
      const head = (chunks[index] ?? '').slice(0, 20);
      expect(
        previous.includes(head),
        `chunk ${index} starts with the end of chunk ${index - 1}`,
      ).toBe(true);
    }
  });

  it('starts Markdown chunks at headings when sections fit', () => {
    const body = 'Some words about it. '.repeat(10);
    const section = (title: string) => `## ${title}\n\n${body}\n`;
    const text = `# Guide\n\n${body}\n\n${section('Install')}\n${section('Configure')}\n${section('Run')}`;
    const chunks = chunkText(text, { chunkSize: 300, chunkOverlap: 0, kind: 'markdown' });
    expect(chunks.map((chunk) => chunk.split('\n')[0])).toEqual([
      '# Guide',
      '## Install',
      '## Configure',
      '## Run',
    ]);
  });

  it('splits code at blank lines between top-level blocks', () => {
    const fn = (name: string) =>
      `function ${name}() {\n  const value = 1;\n\n  return value + ${name.length};\n}\n`;
    const text = [fn('alpha'), fn('beta'), fn('gamma')].join('\n');
    const chunks = chunkText(text, { chunkSize: 80, chunkOverlap: 0, kind: 'code' });
    expect(chunks).toEqual([fn('alpha').trim(), fn('beta').trim(), fn('gamma').trim()]);
  });

  it('cuts a text without separators by characters, never inside a surrogate pair', () => {
    const text = '😀'.repeat(50);
    const chunks = chunkText(text, { chunkSize: 7, chunkOverlap: 2 });
    expect(chunks.every((chunk) => chunk.length <= 7 && chunk.length > 0)).toBe(true);
    expect(chunks.some((chunk) => LONE_SURROGATE.test(chunk))).toBe(false);
    expect(coversText(text, chunks)).toBe(true);
  });

  it('normalises Windows line endings', () => {
    expect(chunkText('one\r\n\r\ntwo', { chunkSize: 5, chunkOverlap: 0 })).toEqual(['one', 'two']);
  });

  it('chunks a 1 MB document quickly and within the size', () => {
    const text = 'word '.repeat(220_000);
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(1_000);
    expect(chunks.every((chunk) => chunk.length <= DEFAULT_CHUNK_SIZE)).toBe(true);
  });

  it('chunks a 1 MB single line of words for every kind of text, in linear time', () => {
    const line = 'alpha be '.repeat(116_509);
    expect(line.length).toBeGreaterThan(1_048_576);
    for (const kind of ['text', 'markdown', 'code'] as const) {
      const chunks = chunkText(line, { chunkSize: 512, chunkOverlap: 64, kind });
      expect(chunks.length).toBeGreaterThan(2_000);
      expect(chunks.every((chunk) => chunk.length > 0 && chunk.length <= 512)).toBe(true);
      expect(chunks[0]?.startsWith('alpha be alpha')).toBe(true);
      expect(coversText(line, chunks)).toBe(true);
    }
    const noSpaces = 'x'.repeat(1_048_576);
    expect(chunkText(noSpaces, { chunkSize: 512, chunkOverlap: 0 })).toHaveLength(2_048);
  });

  it('always gives non-empty chunks within the size that cover the text (property)', () => {
    const texts = fc.string({
      unit: fc.constantFrom('a', 'b', ' ', '\n', '.', '#', '😀', 'é', '\t'),
      maxLength: 400,
    });
    fc.assert(
      fc.property(
        texts,
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom('text', 'markdown', 'code'),
        (text, chunkSize, kind) => {
          const chunkOverlap = Math.floor(chunkSize / 3);
          const chunks = chunkText(text, { chunkSize, chunkOverlap, kind });
          return (
            chunks.every((chunk) => chunk.length > 0 && chunk.length <= chunkSize) &&
            chunks.every((chunk) => chunk === chunk.trim()) &&
            coversText(text, chunks)
          );
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('resolveChunkSizes', () => {
  it('rejects sizes that cannot work, naming the accepted range', () => {
    const bad = [
      { chunkSize: 0 },
      { chunkSize: 1.5 },
      { chunkSize: 100, chunkOverlap: 100 },
      { chunkSize: 100, chunkOverlap: -1 },
      { chunkSize: Number.NaN },
    ];
    for (const options of bad) {
      expect(() => resolveChunkSizes(options)).toThrow(JarvisError);
    }
    expect(() => resolveChunkSizes({ chunkSize: 100, chunkOverlap: 100 })).toThrow(
      'chunkOverlap must be a whole number of characters from 0 to chunkSize - 1 (99; got 100)',
    );
    expect(resolveChunkSizes({ chunkSize: 50 })).toEqual({ chunkSize: 50, chunkOverlap: 49 });
    expect(resolveChunkSizes({})).toEqual({ chunkSize: 1_000, chunkOverlap: 200 });
  });
});

describe('textKindOf', () => {
  it('tells Markdown, code and plain text apart by extension', () => {
    expect(textKindOf('docs/README.MD')).toBe('markdown');
    expect(textKindOf('src/a.ts')).toBe('code');
    expect(textKindOf('main.py')).toBe('code');
    expect(textKindOf('notes.txt')).toBe('text');
    expect(textKindOf('Makefile')).toBe('text');
  });
});
