import type { Clock } from '../../core/index.js';

/** A progress listener as ipull registers it. */
type ProgressListener = (status: unknown) => unknown;

/** The eventemitter3 methods of ipull's per-file engine that the throttle uses. */
interface ProgressEmitter {
  listeners(event: 'progress'): ProgressListener[];
  off(event: 'progress', listener: ProgressListener): unknown;
  on(event: 'progress', listener: ProgressListener): unknown;
}

/** What a progress status of ipull's per-file engine says that the throttle looks at. */
interface FileStatus {
  readonly transferredBytes?: unknown;
  readonly totalBytes?: unknown;
  readonly downloadStatus?: unknown;
}

// node-llama-cpp's `ModelDownloader` keeps ipull's download engine in `_downloader` (internal to it); that engine
// keeps its per-file engine in `_engine` and its file writer in `options.writeStream`. Each hook checks the shape
// it needs at run time and does nothing when a version of either library is shaped otherwise: the pull then
// works as before, only slower.

/** ipull's download engine inside node-llama-cpp's downloader, if there is one. */
function ipullEngineOf(downloader: unknown): unknown {
  return (downloader as { _downloader?: unknown } | null)?._downloader;
}

/** ipull's per-file engine (the one that reports progress on every network read). */
function fileEngineOf(downloader: unknown): ProgressEmitter | undefined {
  const engine = (ipullEngineOf(downloader) as { _engine?: unknown } | null | undefined)?._engine;
  const candidate = engine as Partial<ProgressEmitter> | null | undefined;
  if (
    typeof candidate?.listeners !== 'function' ||
    typeof candidate.off !== 'function' ||
    typeof candidate.on !== 'function'
  )
    return undefined;
  return candidate as ProgressEmitter;
}

/** A status that must always get through: the end, a cancel or pause, or the last byte. */
function isMilestone(status: FileStatus | null | undefined): boolean {
  if (status?.downloadStatus !== 'Active') return true;
  const { transferredBytes, totalBytes } = status;
  return typeof totalBytes === 'number' && totalBytes > 0 && transferredBytes === totalBytes;
}

/**
 * Lets ipull's per-file progress through to its statistics at most once per `intervalMs` (the end, a cancel and
 * the last byte always). ipull reports progress on every network read (64 kB on loopback) and formats every
 * report with `Intl` (speed, sizes, percentage, time left): that formatting was most of a pull's CPU time.
 * Returns false when the downloader is not shaped as expected (nothing changed; progress stays per read).
 */
export function throttleDownloaderProgress(
  downloader: unknown,
  intervalMs: number,
  clock: Clock,
): boolean {
  const engine = fileEngineOf(downloader);
  if (engine === undefined || intervalMs <= 0) return false;
  for (const listener of engine.listeners('progress')) {
    let lastMs = Number.NEGATIVE_INFINITY;
    engine.off('progress', listener);
    engine.on('progress', (status) => {
      const nowMs = clock.monotonicMs();
      if (nowMs - lastMs < intervalMs && !isMilestone(status as FileStatus | null)) return;
      lastMs = nowMs;
      return listener(status);
    });
  }
  return true;
}

/** ipull's file writer: `write(position, bytes)` resolves once the bytes are written. */
interface FileWriter {
  write(position: number, bytes: Uint8Array): Promise<unknown>;
}

/**
 * Calls `onWritten(position, bytes)` each time ipull's file writer has completed a write (including its own
 * progress record, written past the end of the file). Returns false when the downloader is not shaped as
 * expected (nothing is observed).
 */
export function observeDownloaderWrites(
  downloader: unknown,
  onWritten: (position: number, bytes: Uint8Array) => void,
): boolean {
  const options = (ipullEngineOf(downloader) as { options?: unknown } | null | undefined)?.options;
  const writer = (options as { writeStream?: unknown } | null | undefined)?.writeStream as
    | Partial<FileWriter>
    | null
    | undefined;
  if (writer === null || writer === undefined || typeof writer.write !== 'function') return false;
  const write = writer.write.bind(writer);
  writer.write = async (position: number, bytes: Uint8Array) => {
    const written = await write(position, bytes);
    onWritten(position, bytes);
    return written;
  };
  return true;
}

/**
 * Has ipull fetch the file's chunks in order (`programType: 'chunks'`: each stream takes the first chunk not
 * started) instead of splitting what is left in halves, which leaves the file's first bytes for last: in order,
 * the file's prefix grows during the download and can be hashed as it does. Returns false when the downloader is
 * not shaped as expected (ipull keeps its own order).
 */
export function preferChunksInOrder(downloader: unknown): boolean {
  const engine = (ipullEngineOf(downloader) as { _engine?: unknown } | null | undefined)?._engine;
  const options = (engine as { options?: unknown } | null | undefined)?.options as
    | { programType?: unknown }
    | null
    | undefined;
  if (options === null || typeof options !== 'object') return false;
  options.programType = 'chunks';
  return true;
}

/** What ipull has recorded about a download's chunks (restored from its `.ipull` file on a resume). */
interface SavedProgress {
  readonly part?: unknown;
  readonly chunks?: unknown;
  readonly chunkSize?: unknown;
}

/** ipull's status of a chunk that is downloaded and written. */
const CHUNK_COMPLETE = 2;

/**
 * The byte ranges, as [start, end), that a resumed download already has (chunks ipull recorded as complete;
 * it never writes them again), so they can be hashed while the rest downloads. Empty for a fresh download or a
 * downloader shaped otherwise.
 */
export function completedRanges(downloader: unknown): [number, number][] {
  const engine = (ipullEngineOf(downloader) as { _engine?: unknown } | null | undefined)?._engine;
  const saved = (engine as { _progress?: unknown } | null | undefined)?._progress as
    | SavedProgress
    | null
    | undefined;
  const { part, chunks, chunkSize } = saved ?? {};
  if (part !== 0 || !Array.isArray(chunks) || typeof chunkSize !== 'number' || chunkSize <= 0)
    return [];
  const ranges: [number, number][] = [];
  chunks.forEach((status, index) => {
    if (status === CHUNK_COMPLETE) ranges.push([index * chunkSize, (index + 1) * chunkSize]);
  });
  return ranges;
}
