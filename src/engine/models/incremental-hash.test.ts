import { createHash, randomFillSync } from 'node:crypto';
import { type FileHandle, mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IncrementalFileHash } from './incremental-hash.js';

const SIZE = 3 * 1024 * 1024 + 123;
const CONTENT = randomFillSync(new Uint8Array(SIZE));
const SHA256 = createHash('sha256').update(CONTENT).digest('hex');
/** How long to wait for the hasher to catch up: a worker thread can take seconds to start on a loaded machine. */
const CATCH_UP = { timeout: 15_000, interval: 20 };

let directory = '';
let path = '';
let file: FileHandle | undefined;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'jarvis-hash-'));
  path = join(directory, 'model.gguf.ipull');
  file = await open(path, 'w+');
});

afterEach(async () => {
  await file?.close();
  file = undefined;
  await rm(directory, { recursive: true, force: true });
});

/** Writes bytes [start, end) of `bytes` at `start` and reports the completed write to `hash`. */
async function write(
  hash: IncrementalFileHash,
  start: number,
  end: number,
  bytes: Uint8Array = CONTENT,
): Promise<void> {
  const piece = bytes.subarray(start, end);
  await file?.write(piece, 0, piece.length, start);
  hash.written(start, piece);
}

/** [start, end) pieces of at most `size` bytes covering [from, to) (default the whole file). */
function pieces(size: number, from = 0, to = SIZE): [number, number][] {
  const all: [number, number][] = [];
  for (let start = from; start < to; start += size) all.push([start, Math.min(to, start + size)]);
  return all;
}

/** The 64 kB writes of one chunk [start, end), as ipull writes a chunk's network reads. */
function piecesOf(start: number, end: number): [number, number][] {
  return pieces(65_536, start, end);
}

describe.each([
  { worker: true, name: 'on a worker thread' },
  { worker: false, name: 'on this thread' },
])('IncrementalFileHash $name', ({ worker }) => {
  /** A hash of the test file, of `size` bytes (default the file's). */
  const newHash = (sizeBytes = SIZE, paths = [path], holdBytes?: number) =>
    new IncrementalFileHash({
      paths,
      sizeBytes,
      worker,
      ...(holdBytes === undefined ? {} : { holdBytes }),
    });
  /** A path no file is at: a hash given only this one cannot have read anything back. */
  const gone = () => join(directory, 'gone');

  it('hashes pieces written in order from the written bytes, before finish, never reading the file', async () => {
    const hash = newHash(SIZE, [gone()]);
    for (const [start, end] of pieces(65_536)) await write(hash, start, end);
    await expect.poll(() => hash.hashedBytes, CATCH_UP).toBe(SIZE);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('keeps out-of-order writes in memory until the prefix reaches them, never reading the file', async () => {
    const hash = newHash(SIZE, [gone()]);
    const all = pieces(100_000);
    const order = [...all.slice(10), ...all.slice(2, 10).reverse(), ...all.slice(0, 2)];
    for (const [start, end] of order) await write(hash, start, end);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('reads back from the file the out-of-order writes past its memory limit', async () => {
    const hash = newHash(SIZE, [path], 250_000);
    const all = pieces(100_000);
    const order = [...all.slice(10), ...all.slice(2, 10).reverse(), ...all.slice(0, 2)];
    for (const [start, end] of order) await write(hash, start, end);
    expect(await hash.finish()).toBe(SHA256);
    const blind = newHash(SIZE, [gone()], 250_000);
    for (const [start, end] of order) await write(blind, start, end);
    expect(await blind.finish()).toBeUndefined();
  });

  it('keeps no written bytes with holdBytes 0: reads each grown prefix back from the file', async () => {
    const hash = newHash(SIZE, [path], 0);
    for (const [start, end] of pieces(65_536)) await write(hash, start, end);
    await expect.poll(() => hash.hashedBytes, CATCH_UP).toBe(SIZE);
    expect(await hash.finish()).toBe(SHA256);
    const blind = newHash(SIZE, [gone()], 0);
    for (const [start, end] of pieces(65_536)) await write(blind, start, end);
    expect(await blind.finish()).toBeUndefined();
  });

  it('hashes three streams of chunks interleaved as ipull writes them', async () => {
    const hash = newHash(SIZE, [gone()]);
    const chunks = pieces(512 * 1024);
    for (let first = 0; first < chunks.length; first += 3) {
      const streams = chunks.slice(first, first + 3).map(([start, end]) => piecesOf(start, end));
      for (let step = 0; streams.some((stream) => step < stream.length); step += 1) {
        for (const stream of [...streams].reverse()) {
          const piece = stream[step];
          if (piece !== undefined) await write(hash, piece[0], piece[1]);
        }
      }
    }
    expect(await hash.finish()).toBe(SHA256);
  });

  it('ignores writes past the end of the file (the downloader progress record)', async () => {
    const hash = newHash();
    for (const [start, end] of pieces(1_000_000)) {
      await write(hash, start, end);
      hash.written(SIZE, new TextEncoder().encode('{"part":0}'));
    }
    expect(await hash.finish()).toBe(SHA256);
  });

  it('accepts a range written twice before it is hashed (a stream leftover, then the whole chunk)', async () => {
    const hash = newHash(SIZE, [gone()]);
    await write(hash, 2_000_000, 2_500_000);
    await write(hash, 1_000_000, SIZE);
    await write(hash, 0, 1_000_000);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('hashes the last bytes written where writes ahead of the prefix overlap, as the file has them', async () => {
    const wrong = new Uint8Array(CONTENT);
    wrong.fill(7, 1_000_000, 2_500_000);
    const hash = newHash(SIZE, [gone()]);
    await write(hash, 1_200_000, 1_300_000);
    await write(hash, 1_000_000, 2_500_000, wrong);
    await write(hash, 1_500_000, 1_600_000);
    await write(hash, 2_400_000, SIZE);
    await write(hash, 900_000, 1_100_000);
    await write(hash, 0, 900_000);
    const expected = new Uint8Array(wrong);
    expected.set(CONTENT.subarray(1_500_000, 1_600_000), 1_500_000);
    expected.set(CONTENT.subarray(2_400_000), 2_400_000);
    expected.set(CONTENT.subarray(0, 1_100_000), 0);
    expect(await hash.finish()).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  it('says it cannot tell when a hashed range is written again', async () => {
    const hash = newHash();
    await write(hash, 0, SIZE);
    const other = new Uint8Array(CONTENT);
    other[10] = (other[10] ?? 0) ^ 0xff;
    await write(hash, 0, 100, other);
    expect(await hash.finish()).toBeUndefined();
  });

  it('hashes what was never reported at finish, from the file (a resumed download)', async () => {
    await file?.write(CONTENT.subarray(0, 2_000_000), 0, 2_000_000, 0);
    const hash = newHash(SIZE, [gone(), path]);
    await write(hash, 2_000_000, SIZE);
    expect(hash.hashedBytes).toBe(0);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('hashes ranges a resumed download already has, from the file, while the rest is written', async () => {
    await file?.write(CONTENT.subarray(0, 2_000_000), 0, 2_000_000, 0);
    const hash = newHash();
    hash.present(0, 1_000_000);
    hash.present(1_000_000, 2_000_000);
    await expect.poll(() => hash.hashedBytes, CATCH_UP).toBe(2_000_000);
    await write(hash, 2_000_000, SIZE);
    await expect.poll(() => hash.hashedBytes, CATCH_UP).toBe(SIZE);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('takes a resumed range from the file, not from an earlier write held for it', async () => {
    await file?.write(CONTENT, 0, SIZE, 0);
    const wrong = new Uint8Array(CONTENT);
    wrong.fill(1, 1_000_000, 2_000_000);
    const hash = newHash();
    await write(hash, 1_000_000, 2_000_000, wrong);
    await file?.write(CONTENT.subarray(1_000_000, 2_000_000), 0, 1_000_000, 1_000_000);
    hash.present(1_000_000, 2_000_000);
    await write(hash, 0, 1_000_000);
    await write(hash, 2_000_000, SIZE);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('says it cannot tell when a range reported present was already hashed', async () => {
    const hash = newHash();
    await write(hash, 0, SIZE);
    hash.present(0, 10);
    expect(await hash.finish()).toBeUndefined();
  });

  it('gives a digest that differs from the expected one for a wrong file', async () => {
    const hash = newHash();
    const wrong = new Uint8Array(CONTENT);
    wrong[SIZE - 1] = (wrong[SIZE - 1] ?? 0) ^ 1;
    for (const [start, end] of pieces(500_000)) await write(hash, start, end, wrong);
    const digest = await hash.finish();
    expect(digest).toBe(createHash('sha256').update(wrong).digest('hex'));
    expect(digest).not.toBe(SHA256);
  });

  it('says it cannot tell when the file is shorter than announced', async () => {
    const hash = newHash(SIZE + 10);
    for (const [start, end] of pieces(1_000_000)) await write(hash, start, end);
    expect(await hash.finish()).toBeUndefined();
  });

  it('keeps reading back the file it opened after the downloader renames it', async () => {
    const hash = newHash(SIZE, [path, `${path}.final`], 0);
    await write(hash, 1_000_000, 2_000_000);
    await write(hash, 0, 1_000_000);
    await expect.poll(() => hash.hashedBytes, CATCH_UP).toBe(2_000_000);
    await write(hash, 2_000_000, SIZE);
    await rename(path, `${path}.final`);
    expect(await hash.finish()).toBe(SHA256);
  });

  it('says it cannot tell when the file is not there for a range it must read back', async () => {
    const hash = newHash(SIZE, [gone()]);
    hash.written(0, CONTENT.subarray(0, 2_000_000));
    expect(await hash.finish()).toBeUndefined();
  });

  it('gives nothing once closed (a failed pull), and ignores later writes', async () => {
    const hash = newHash();
    await write(hash, 0, 2_000_000);
    await hash.close();
    await write(hash, 2_000_000, SIZE);
    expect(hash.hashedBytes).toBe(0);
    expect(await hash.finish()).toBeUndefined();
  });
});
