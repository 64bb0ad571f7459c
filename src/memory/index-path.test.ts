import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus, JarvisError } from '../core/index.js';
import { type IndexProgress, indexPath } from './index-path.js';
import { SQLiteMemory } from './sqlite-memory.js';

let directory: string;
let docs: string;
let memory: SQLiteMemory;
let bus: EventBus;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'openjarvis-index-'));
  docs = join(directory, 'docs');
  mkdirSync(docs);
  bus = new EventBus({ recordHistory: true });
  memory = new SQLiteMemory({ dbPath: join(directory, 'memory.db'), bus });
});

afterEach(async () => {
  try {
    // Undefined only when the first test could not open the memory.
    await memory?.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

function write(relative: string, content: string | Buffer): string {
  const path = join(docs, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

const PROSE = 'Gardening notes. Tomatoes need sun and water every day. '.repeat(12);

async function idsOf(source: string): Promise<string[]> {
  const results = await memory.retrieve(source.split('/').pop() ?? '', { topK: 100 });
  return results.map((result) => result.id).sort();
}

describe('indexPath', () => {
  it('indexes text, Markdown and code files with path metadata, skipping what it must', async () => {
    const guide = write('guide.md', `# Guide\n\n${PROSE}\n\n## Setup\n\n${PROSE}`);
    const code = write('src/app.ts', 'export function hello() {\n  return "tomatoes";\n}\n');
    write('.hidden/secret.txt', 'hidden tomatoes');
    write('.env', 'API_KEY=tomatoes');
    write('node_modules/pkg/index.js', 'tomatoes');
    write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1: not UTF-8
    write('big.txt', 'x'.repeat(5_000));
    write('empty.txt', '');
    symlinkSync(docs, join(docs, 'src', 'loop'));
    symlinkSync(guide, join(docs, 'alias.md'));

    const summary = await indexPath(memory, docs, {
      chunkSize: 300,
      chunkOverlap: 50,
      maxFileBytes: 4_000,
    });

    expect(summary.files).toBe(2);
    expect(summary.unchanged).toBe(0);
    expect(Object.fromEntries(summary.skipped.map((entry) => [entry.path, entry.reason]))).toEqual({
      [join(docs, '.env')]: 'hidden',
      [join(docs, '.hidden')]: 'hidden',
      [join(docs, 'alias.md')]: 'duplicate',
      [join(docs, 'big.txt')]: 'too_large',
      [join(docs, 'empty.txt')]: 'empty',
      [join(docs, 'image.png')]: 'binary',
      [join(docs, 'latin1.txt')]: 'binary',
      [join(docs, 'node_modules')]: 'ignored_directory',
      [join(docs, 'src', 'loop')]: 'symlink_loop',
    });
    const guideChunks = await memory.sourceMetadata(guide);
    expect(guideChunks.length).toBeGreaterThan(2);
    expect(summary.chunks).toBe(guideChunks.length + 1);
    guideChunks.forEach((metadata, index) => {
      expect(metadata).toMatchObject({
        path: guide,
        chunk_index: index,
        chunk_count: guideChunks.length,
        content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    });
    const [hit] = await memory.retrieve('hello tomatoes');
    expect(hit?.source).toBe(code);
    expect(hit?.content).toContain('export function hello()');
    const stores = bus.history.filter((event) => event.type === 'memory_store');
    expect(stores).toHaveLength(summary.chunks);
  });

  it('leaves an unchanged file alone and replaces the chunks of a changed one', async () => {
    const notes = write('notes.txt', PROSE);
    const other = write('other.txt', 'Cucumbers grow fast.');
    await indexPath(memory, docs, { chunkSize: 200, chunkOverlap: 20 });
    const before = await memory.count();
    const otherIds = await idsOf('cucumbers');
    bus.clearHistory();

    const again = await indexPath(memory, docs, { chunkSize: 200, chunkOverlap: 20 });
    expect(again).toEqual({ files: 2, chunks: 0, unchanged: 2, skipped: [] });
    expect(await memory.count()).toBe(before);
    expect(bus.history.filter((event) => event.type === 'memory_store')).toEqual([]);

    writeFileSync(notes, 'Completely new text about peppers.');
    const changed = await indexPath(memory, docs, { chunkSize: 200, chunkOverlap: 20 });
    expect(changed).toMatchObject({ files: 2, chunks: 1, unchanged: 1 });
    expect(await memory.retrieve('tomatoes')).toEqual([]);
    expect((await memory.retrieve('peppers')).map((result) => result.source)).toEqual([notes]);
    expect(await memory.sourceMetadata(notes)).toHaveLength(1);
    expect(await idsOf('cucumbers')).toEqual(otherIds);
    expect(await memory.count()).toBe(2);
    expect(other).toBe(join(docs, 'other.txt'));
  });

  it('indexes a file whose only line is 1 MB', async () => {
    const long = write('one-line.txt', 'tomato pepper '.repeat(75_000));
    const summary = await indexPath(memory, docs, { chunkSize: 512, chunkOverlap: 64 });
    expect(summary).toMatchObject({ files: 1, skipped: [] });
    expect(summary.chunks).toBeGreaterThan(2_000);
    expect((await memory.sourceMetadata(long)).length).toBe(summary.chunks);
  });

  it('skips a file whose indexing fails, naming it, and indexes the rest', async () => {
    const good = write('a-good.txt', 'Cucumbers grow fast.');
    const bad = write('b-bad.txt', 'Peppers like heat.');
    const later = write('c-later.txt', 'Tomatoes need sun.');
    const failing = {
      sourceMetadata: (source: string) => memory.sourceMetadata(source),
      replaceSource: (source: string, documents: Parameters<SQLiteMemory['replaceSource']>[1]) =>
        source === bad
          ? Promise.reject(new Error('disk said no'))
          : memory.replaceSource(source, documents),
    };
    const summary = await indexPath(failing, docs);
    expect(summary).toEqual({
      files: 2,
      chunks: 2,
      unchanged: 0,
      skipped: [{ path: bad, reason: 'failed', detail: 'disk said no' }],
    });
    expect((await memory.retrieve('cucumbers'))[0]?.source).toBe(good);
    expect((await memory.retrieve('tomatoes'))[0]?.source).toBe(later);
  });

  it('re-chunks an unchanged file when the chunk sizes change', async () => {
    const notes = write('notes.txt', PROSE);
    await indexPath(memory, notes, { chunkSize: 200, chunkOverlap: 0 });
    const small = (await memory.sourceMetadata(notes)).length;
    const summary = await indexPath(memory, notes, { chunkSize: 600, chunkOverlap: 0 });
    expect(summary.unchanged).toBe(0);
    expect((await memory.sourceMetadata(notes)).length).toBeLessThan(small);
  });

  it('removes the chunks of a file that became binary or empty', async () => {
    const notes = write('notes.txt', PROSE);
    await indexPath(memory, docs);
    writeFileSync(notes, Buffer.from([0x00, 0x01, 0x02]));
    const binary = await indexPath(memory, docs);
    expect(binary.skipped).toEqual([{ path: notes, reason: 'binary' }]);
    expect(await memory.count()).toBe(0);
    writeFileSync(notes, PROSE);
    await indexPath(memory, docs);
    writeFileSync(notes, '   \n\n  ');
    const blank = await indexPath(memory, docs);
    expect(blank.skipped).toEqual([{ path: notes, reason: 'empty' }]);
    expect(await memory.count()).toBe(0);
  });

  it('indexes a single file given directly, and reports progress per file', async () => {
    const notes = write('notes.md', '# Title\n\nShort note about basil.');
    const progress: IndexProgress[] = [];
    const summary = await indexPath(memory, notes, { onProgress: (entry) => progress.push(entry) });
    expect(summary).toEqual({ files: 1, chunks: 1, unchanged: 0, skipped: [] });
    expect(progress).toEqual([{ path: notes, status: 'indexed', chunks: 1, filesSeen: 1 }]);
  });

  it('stops between files when aborted, keeping the files already indexed', async () => {
    for (const name of ['a.txt', 'b.txt', 'c.txt']) write(name, `File ${name} mentions parsley.`);
    const controller = new AbortController();
    const seen: string[] = [];
    const run = indexPath(memory, docs, {
      signal: controller.signal,
      onProgress: (entry) => {
        seen.push(entry.path);
        controller.abort(new Error('user cancelled'));
      },
    });
    await expect(run).rejects.toThrow('user cancelled');
    expect(seen).toEqual([join(docs, 'a.txt')]);
    expect(await memory.count()).toBe(1);

    await expect(indexPath(memory, docs, { signal: controller.signal })).rejects.toThrow(
      'user cancelled',
    );
    expect(await memory.count()).toBe(1);
  });

  it('rejects a missing path and bad options with clear errors', async () => {
    const missing = join(directory, 'nope');
    const error = await indexPath(memory, missing).catch((reason: unknown) => reason);
    expect(JarvisError.isInstance(error) && error.message).toContain(`cannot index ${missing}`);
    await expect(indexPath(memory, docs, { maxFileBytes: 0 })).rejects.toThrow('maxFileBytes');
    await expect(indexPath(memory, docs, { chunkSize: 10, chunkOverlap: 10 })).rejects.toThrow(
      'chunkOverlap',
    );
  });

  it('reports a self-referencing symlink as a loop and a dangling one as unreadable', async () => {
    symlinkSync(join(docs, 'self'), join(docs, 'self'));
    symlinkSync(join(docs, 'gone.txt'), join(docs, 'dangling.txt'));
    const summary = await indexPath(memory, docs);
    expect(summary.skipped.map((entry) => [entry.path, entry.reason])).toEqual([
      [join(docs, 'dangling.txt'), 'unreadable'],
      [join(docs, 'self'), 'symlink_loop'],
    ]);
    expect(summary.skipped[0]?.detail).toContain('ENOENT');
  });
});
