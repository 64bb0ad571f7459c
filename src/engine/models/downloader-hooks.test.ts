import { EventEmitter } from 'node:events';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/index.js';
import {
  coalesceDownloaderWrites,
  completedRanges,
  observeDownloaderWrites,
  preferChunksInOrder,
  throttleDownloaderProgress,
} from './downloader-hooks.js';

/** A clock whose monotonic time the test sets. */
function manualClock(): Clock & { atMs: number } {
  const clock = { atMs: 0, nowMs: () => 0, monotonicMs: () => clock.atMs };
  return clock;
}

/** node-llama-cpp's downloader as the hooks see it: ipull's engine, its per-file engine and writer. */
function fakeDownloader() {
  const fileEngine = new EventEmitter();
  const writes: [number, number][] = [];
  const writeStream = {
    write: async (position: number, bytes: Uint8Array) => {
      writes.push([position, bytes.length]);
      return bytes.length;
    },
  };
  const options: { writeStream: typeof writeStream; programType?: string } = { writeStream };
  const downloader = { _downloader: { _engine: Object.assign(fileEngine, { options }), options } };
  return { downloader, fileEngine, writeStream, writes, options };
}

const active = (transferredBytes: number) => ({
  transferredBytes,
  totalBytes: 100,
  downloadStatus: 'Active',
});

describe('throttleDownloaderProgress', () => {
  it('lets progress through once per interval, and always the end and the last byte', () => {
    const { downloader, fileEngine } = fakeDownloader();
    const seen: unknown[] = [];
    fileEngine.on('progress', (status) => seen.push(status));
    const clock = manualClock();
    expect(throttleDownloaderProgress(downloader, 100, clock)).toBe(true);
    fileEngine.emit('progress', active(1));
    clock.atMs = 50;
    fileEngine.emit('progress', active(2));
    clock.atMs = 100;
    fileEngine.emit('progress', active(3));
    clock.atMs = 120;
    fileEngine.emit('progress', active(100));
    fileEngine.emit('progress', {
      transferredBytes: 50,
      totalBytes: 100,
      downloadStatus: 'Cancelled',
    });
    expect(seen).toEqual([
      active(1),
      active(3),
      active(100),
      { transferredBytes: 50, totalBytes: 100, downloadStatus: 'Cancelled' },
    ]);
  });

  it('changes nothing for a downloader shaped otherwise, or an interval of 0', () => {
    expect(throttleDownloaderProgress({}, 100, manualClock())).toBe(false);
    expect(throttleDownloaderProgress(null, 100, manualClock())).toBe(false);
    const { downloader, fileEngine } = fakeDownloader();
    const seen: unknown[] = [];
    fileEngine.on('progress', (status) => seen.push(status));
    expect(throttleDownloaderProgress(downloader, 0, manualClock())).toBe(false);
    fileEngine.emit('progress', active(1));
    fileEngine.emit('progress', active(2));
    expect(seen).toHaveLength(2);
  });
});

describe('throttleDownloaderProgress on an engine that builds its statuses itself', () => {
  /** ipull's per-file engine as the source throttle sees it: a status built and sent per call. */
  function sendingEngine() {
    const engine = Object.assign(new EventEmitter(), {
      _downloadStatus: 'Active',
      sent: [] as string[],
      _sendProgressDownloadPart(): void {
        engine.sent.push(engine._downloadStatus);
      },
    });
    return { downloader: { _downloader: { _engine: engine } }, engine };
  }

  it('builds a status once per interval while active, and always for a pause, a cancel or the end', () => {
    const { downloader, engine } = sendingEngine();
    const clock = manualClock();
    expect(throttleDownloaderProgress(downloader, 100, clock)).toBe(true);
    engine._sendProgressDownloadPart();
    clock.atMs = 50;
    engine._sendProgressDownloadPart();
    clock.atMs = 100;
    engine._sendProgressDownloadPart();
    clock.atMs = 120;
    engine._sendProgressDownloadPart();
    engine._downloadStatus = 'Paused';
    engine._sendProgressDownloadPart();
    engine._downloadStatus = 'Finished';
    engine._sendProgressDownloadPart();
    expect(engine.sent).toEqual(['Active', 'Active', 'Paused', 'Finished']);
  });
});

/** A writer shaped like ipull's: `write` makes one attempt through `_writeWithoutRetry` on a file opened once. */
function realWriter(path: string) {
  const writer = {
    writevCalls: [] as [number, number[]][],
    file: undefined as Awaited<ReturnType<typeof open>> | undefined,
    async _ensureFileOpen() {
      writer.file ??= await open(path, 'w+');
      const file = writer.file;
      return {
        writev: (buffers: readonly Uint8Array[], position: number) => {
          writer.writevCalls.push([position, buffers.map((b) => b.length)]);
          return file.writev([...buffers], position);
        },
      };
    },
    async _writeWithoutRetry(position: number, bytes: Uint8Array) {
      const file = await writer._ensureFileOpen();
      return (await file.writev([bytes], position)).bytesWritten;
    },
    write(position: number, bytes: Uint8Array): Promise<unknown> {
      return writer._writeWithoutRetry(position, bytes);
    },
    async ftruncate(sizeBytes: number) {
      await writer._ensureFileOpen();
      await writer.file?.truncate(sizeBytes);
    },
  };
  return writer;
}

describe('coalesceDownloaderWrites', () => {
  it('writes each synchronous run of contiguous writes with one writev, and each write waits for it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'jarvis-coalesce-'));
    const path = join(folder, 'file');
    try {
      const writer = realWriter(path);
      const downloader = { _downloader: { options: { writeStream: writer } } };
      expect(coalesceDownloaderWrites(downloader)).toBe(true);
      const bytes = (text: string) => new TextEncoder().encode(text);
      const first = [writer.write(0, bytes('ab')), writer.write(2, bytes('cde'))];
      const apart = writer.write(9, bytes('XY'));
      const next = writer.write(11, bytes('Z'));
      await Promise.all([...first, apart, next]);
      await writer.write(5, bytes('fghi'));
      await writer.file?.close();
      expect(await readFile(path, 'latin1')).toBe('abcdefghiXYZ');
      expect(writer.writevCalls).toEqual([
        [0, [2, 3]],
        [9, [2, 1]],
        [5, [4]],
      ]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('truncates the file only after every write handed over before (a progress record past the end)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'jarvis-coalesce-'));
    const path = join(folder, 'file');
    try {
      const writer = realWriter(path);
      expect(coalesceDownloaderWrites({ _downloader: { options: { writeStream: writer } } })).toBe(
        true,
      );
      const data = writer.write(0, new TextEncoder().encode('data'));
      await data;
      // ipull saves its progress record past the end without waiting, then truncates the finished file.
      void writer.write(4, new TextEncoder().encode('{"record":1}'));
      await writer.ftruncate(4);
      await writer.file?.close();
      expect(await readFile(path, 'latin1')).toBe('data');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('continues a short write with the bytes not written', async () => {
    const pieces: number[][] = [];
    const writer = {
      _ensureFileOpen: async () => ({
        writev: async (buffers: readonly Uint8Array[], position: number) => {
          pieces.push([position, ...buffers.map((b) => b.length)]);
          return {
            bytesWritten: Math.min(
              3,
              buffers.reduce((n, b) => n + b.length, 0),
            ),
          };
        },
      }),
      _writeWithoutRetry: async (_position: number, _bytes: unknown) => 0,
      write(position: number, bytes: Uint8Array): Promise<unknown> {
        return writer._writeWithoutRetry(position, bytes);
      },
      ftruncate: async () => undefined,
    };
    expect(coalesceDownloaderWrites({ _downloader: { options: { writeStream: writer } } })).toBe(
      true,
    );
    await Promise.all([writer.write(0, new Uint8Array(2)), writer.write(2, new Uint8Array(5))]);
    expect(pieces).toEqual([
      [0, 2, 5],
      [3, 4],
      [6, 1],
    ]);
  });

  it('changes nothing for a writer shaped otherwise', () => {
    expect(coalesceDownloaderWrites({})).toBe(false);
    const { downloader } = fakeDownloader();
    expect(coalesceDownloaderWrites(downloader)).toBe(false);
  });
});

describe('observeDownloaderWrites', () => {
  it('reports each write once it has completed, and keeps what the write returns', async () => {
    const { downloader, writeStream, writes } = fakeDownloader();
    const observed: [number, number, number][] = [];
    expect(
      observeDownloaderWrites(downloader, (position, bytes) =>
        observed.push([position, bytes.length, writes.length]),
      ),
    ).toBe(true);
    expect(await writeStream.write(10, new Uint8Array(5))).toBe(5);
    expect(observed).toEqual([[10, 5, 1]]);
  });

  it('reports nothing for a downloader shaped otherwise', () => {
    expect(observeDownloaderWrites({ _downloader: { options: {} } }, () => undefined)).toBe(false);
  });
});

describe('preferChunksInOrder', () => {
  it('sets the in-order chunk program on the per-file engine', () => {
    const { downloader, options } = fakeDownloader();
    expect(preferChunksInOrder(downloader)).toBe(true);
    expect(options.programType).toBe('chunks');
    expect(preferChunksInOrder({ _downloader: {} })).toBe(false);
  });
});

describe('completedRanges', () => {
  it('lists the chunks a resumed download recorded as complete', () => {
    const progress = { part: 0, chunks: [2, 0, 2, 2, 1], chunkSize: 10 };
    const downloader = { _downloader: { _engine: { _progress: progress } } };
    expect(completedRanges(downloader)).toEqual([
      [0, 10],
      [20, 30],
      [30, 40],
    ]);
  });

  it('lists nothing for another part or a downloader shaped otherwise', () => {
    const progress = { part: 1, chunks: [2], chunkSize: 10 };
    expect(completedRanges({ _downloader: { _engine: { _progress: progress } } })).toEqual([]);
    expect(completedRanges({ _downloader: {} })).toEqual([]);
    expect(completedRanges(undefined)).toEqual([]);
  });
});
