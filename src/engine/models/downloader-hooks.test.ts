import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/index.js';
import {
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
