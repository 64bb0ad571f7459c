import { EventEmitter } from 'node:events';
import { mkdtemp, open, readdir, readFile, readlink, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/index.js';
import {
  coalesceDownloaderWrites,
  completedRanges,
  finishWritesBeforeClosing,
  observeDownloaderWrites,
  oneStreamUnlessResuming,
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

/**
 * A writer shaped like ipull's: `write` makes one attempt through `_writeWithoutRetry` on a file opened once (under
 * a lock, as ipull does: two writes starting together share one open), and a write after `close` opens it again.
 */
function realWriter(path: string) {
  let opening: ReturnType<typeof open> | undefined;
  const writer = {
    writevCalls: [] as [number, number[]][],
    async _ensureFileOpen() {
      // Opened again after a close, the file keeps what it has; a missing one is created (ipull's ensureFile).
      opening ??= open(path, 'r+').catch(() => open(path, 'w+'));
      const file = await opening;
      return {
        writev: (buffers: readonly Uint8Array[], position: number) => {
          writer.writevCalls.push([position, buffers.map((b) => b.length)]);
          return file.writev([...buffers], position);
        },
        truncate: (sizeBytes: number) => file.truncate(sizeBytes),
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
      await (await writer._ensureFileOpen()).truncate(sizeBytes);
    },
    async close() {
      const file = await opening;
      opening = undefined;
      await file?.close();
    },
  };
  return writer;
}

/** node-llama-cpp's downloader around a writer, with ipull's step that renames the file when it is closed. */
function downloaderWith(
  writer: object,
  onCloseAsync: () => Promise<unknown> = async () => undefined,
) {
  return {
    _downloader: { options: { writeStream: writer }, _engine: { options: { onCloseAsync } } },
  };
}

/** Files under `folder` this process holds open (Linux lists them in /proc/self/fd). */
async function openFilesUnder(folder: string): Promise<string[]> {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target.startsWith(`${folder}/`));
}

const text = (value: string) => new TextEncoder().encode(value);

describe('coalesceDownloaderWrites', () => {
  it('writes each synchronous run of contiguous writes with one writev, and each write waits for it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'jarvis-coalesce-'));
    const path = join(folder, 'file');
    try {
      const writer = realWriter(path);
      expect(coalesceDownloaderWrites(downloaderWith(writer))).toBe(true);
      const first = [writer.write(0, text('ab')), writer.write(2, text('cde'))];
      const apart = writer.write(9, text('XY'));
      const next = writer.write(11, text('Z'));
      await Promise.all([...first, apart, next]);
      await writer.write(5, text('fghi'));
      await writer.close();
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

describe('finishWritesBeforeClosing', () => {
  /** A folder with ipull's writer on `<folder>/file.ipull`, hooked as a pull hooks it, renamed on close. */
  async function hookedWriter() {
    const folder = await mkdtemp(join(tmpdir(), 'jarvis-finish-'));
    const partial = join(folder, 'file.ipull');
    const writer = realWriter(partial);
    const renamed: string[] = [];
    // ipull's close renames the partial file to its final name first, then closes the writer.
    const onClose = async () => {
      await rename(partial, join(folder, 'file'));
      renamed.push('file');
    };
    const downloader = downloaderWith(writer, onClose);
    expect(coalesceDownloaderWrites(downloader)).toBe(true);
    expect(finishWritesBeforeClosing(downloader)).toBe(true);
    const engineOptions = downloader._downloader._engine.options;
    // ipull's engine close: the rename step, then the writer's close (skipped when the rename throws).
    const closeEngine = async () => {
      await engineOptions.onCloseAsync();
      await writer.close();
    };
    return { folder, partial, writer, renamed, closeEngine };
  }

  it('truncates the file only after every write handed over before (a progress record past the end)', async () => {
    const { folder, partial, writer } = await hookedWriter();
    try {
      await writer.write(0, text('data'));
      // ipull saves its progress record past the end without waiting, then truncates the finished file.
      void writer.write(4, text('{"record":1}'));
      await writer.ftruncate(4);
      await writer.close();
      expect(await readFile(partial, 'latin1')).toBe('data');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('closes the file after the writes handed over before the close, and opens it no more after', async () => {
    const { folder, writer } = await hookedWriter();
    try {
      // The write's batch starts a microtask later: the close comes first and must still find it.
      const pending = writer.write(0, text('data'));
      await writer.close();
      await pending;
      expect(await openFilesUnder(folder)).toEqual([]);
      // A progress record saved after the close is dropped: nothing opens the file again.
      await writer.write(4, text('{"record":1}'));
      expect(await openFilesUnder(folder)).toEqual([]);
      expect(await readFile(join(folder, 'file.ipull'), 'latin1')).toBe('data');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('renames and closes a download cancelled before its first write reached the disk', async () => {
    const { folder, writer, renamed, closeEngine } = await hookedWriter();
    try {
      // Before the hook, the rename found no file yet (ENOENT), the writer was never closed, and the write that
      // followed created the file and kept it open.
      const pending = writer.write(0, text('data'));
      await closeEngine();
      await pending;
      expect(renamed).toEqual(['file']);
      expect(await openFilesUnder(folder)).toEqual([]);
      expect(await readdir(folder)).toEqual(['file']);
      expect(await readFile(join(folder, 'file'), 'latin1')).toBe('data');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('closes a download that wrote nothing without failing on the missing file, and closes after other failures', async () => {
    const { folder, closeEngine } = await hookedWriter();
    try {
      await closeEngine();
      expect(await readdir(folder)).toEqual([]);
      expect(await openFilesUnder(folder)).toEqual([]);
      const failing = realWriter(join(folder, 'other.ipull'));
      const downloader = downloaderWith(failing, async () => {
        throw Object.assign(new Error('disk gone'), { code: 'EIO' });
      });
      expect(finishWritesBeforeClosing(downloader)).toBe(true);
      await failing.write(0, text('data'));
      await expect(downloader._downloader._engine.options.onCloseAsync()).rejects.toThrow(
        'disk gone',
      );
      expect(await openFilesUnder(folder)).toEqual([]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('changes nothing for a downloader shaped otherwise', () => {
    expect(finishWritesBeforeClosing({})).toBe(false);
    expect(finishWritesBeforeClosing({ _downloader: { options: { writeStream: {} } } })).toBe(
      false,
    );
    const writer = realWriter('/nonexistent/file');
    expect(finishWritesBeforeClosing({ _downloader: { options: { writeStream: writer } } })).toBe(
      false,
    );
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

describe('oneStreamUnlessResuming', () => {
  /** ipull's per-file engine with its configured stream count and recorded progress (0 = not started, 2 = complete). */
  const withProgress = (chunks: number[], parallelStreams: number, configured = 3) => {
    const progress = { part: 0, chunks, chunkSize: 10, parallelStreams };
    const downloader = {
      _downloader: { _engine: { options: { parallelStreams: configured }, _progress: progress } },
    };
    return { downloader, progress };
  };

  it('fetches a download with no complete chunk as one stream', () => {
    const fresh = withProgress([0, 0, 0], 3);
    expect(oneStreamUnlessResuming(fresh.downloader)).toBe(true);
    expect(fresh.progress.parallelStreams).toBe(1);
    // Chunks left in progress by an interrupted pull are started over by ipull: still nothing complete.
    const interrupted = withProgress([1, 0, 0], 1);
    expect(oneStreamUnlessResuming(interrupted.downloader)).toBe(true);
    expect(interrupted.progress.parallelStreams).toBe(1);
  });

  it('keeps parallel streams for a resume, and gives a resume saved with one stream the configured count', () => {
    const resumed = withProgress([2, 0, 2], 3);
    expect(oneStreamUnlessResuming(resumed.downloader)).toBe(true);
    expect(resumed.progress.parallelStreams).toBe(3);
    const savedWithOne = withProgress([2, 2, 0], 1, 4);
    expect(oneStreamUnlessResuming(savedWithOne.downloader)).toBe(true);
    expect(savedWithOne.progress.parallelStreams).toBe(4);
    const configuredOne = withProgress([2, 0, 0], 1, 1);
    expect(oneStreamUnlessResuming(configuredOne.downloader)).toBe(true);
    expect(configuredOne.progress.parallelStreams).toBe(3);
  });

  it('changes nothing on a downloader shaped otherwise', () => {
    expect(oneStreamUnlessResuming({ _downloader: {} })).toBe(false);
    expect(oneStreamUnlessResuming(undefined)).toBe(false);
    const noCount = { _downloader: { _engine: { options: {}, _progress: { chunks: [0] } } } };
    expect(oneStreamUnlessResuming(noCount)).toBe(false);
  });
});
