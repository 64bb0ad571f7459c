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

/** ipull's per-file engine where it builds and sends a progress status (on every network read). */
interface ProgressSource {
  _sendProgressDownloadPart(): unknown;
  readonly _downloadStatus?: unknown;
}

// node-llama-cpp's `ModelDownloader` keeps ipull's download engine in `_downloader` (internal to it); that engine
// keeps its per-file engine in `_engine` and its file writer in `options.writeStream`. Each hook checks the shape
// it needs at run time and does nothing when a version of either library is shaped otherwise: the pull then
// works as before, only slower.

/** ipull's download engine inside node-llama-cpp's downloader, if there is one. */
function ipullEngineOf(downloader: unknown): unknown {
  return (downloader as { _downloader?: unknown } | null)?._downloader;
}

/** ipull's per-file engine (the one that reports progress on every network read), unchecked. */
export function rawFileEngineOf(downloader: unknown): unknown {
  return (ipullEngineOf(downloader) as { _engine?: unknown } | null | undefined)?._engine;
}

/** ipull's per-file engine as an event emitter, if it is one. */
function fileEngineOf(downloader: unknown): ProgressEmitter | undefined {
  const candidate = rawFileEngineOf(downloader) as Partial<ProgressEmitter> | null | undefined;
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
 * Where it can, the throttle sits where ipull builds a status, so a read that is not reported builds none; else it
 * sits in front of the progress listeners. Returns false when the downloader is not shaped as expected (nothing
 * changed; progress stays per read).
 */
export function throttleDownloaderProgress(
  downloader: unknown,
  intervalMs: number,
  clock: Clock,
): boolean {
  if (intervalMs <= 0) return false;
  return (
    throttleProgressSource(rawFileEngineOf(downloader), intervalMs, clock) ||
    throttleProgressListeners(fileEngineOf(downloader), intervalMs, clock)
  );
}

/**
 * Throttles the per-file engine's `_sendProgressDownloadPart`, which builds a status object (and sums what every
 * stream has transferred) for each network read before any listener sees it. Only an active download is
 * throttled: a pause, a cancel and the end always get through, and the end reports every byte.
 */
function throttleProgressSource(engine: unknown, intervalMs: number, clock: Clock): boolean {
  const source = engine as Partial<ProgressSource> | null | undefined;
  if (
    typeof source?._sendProgressDownloadPart !== 'function' ||
    typeof source._downloadStatus !== 'string'
  )
    return false;
  const send = source._sendProgressDownloadPart.bind(source);
  let lastMs = Number.NEGATIVE_INFINITY;
  source._sendProgressDownloadPart = () => {
    const nowMs = clock.monotonicMs();
    if (nowMs - lastMs < intervalMs && source._downloadStatus === 'Active') return;
    lastMs = nowMs;
    return send();
  };
  return true;
}

/** Throttles each progress listener of the per-file engine (for an engine without the method above). */
function throttleProgressListeners(
  engine: ProgressEmitter | undefined,
  intervalMs: number,
  clock: Clock,
): boolean {
  if (engine === undefined) return false;
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

/** ipull's file writer, if the downloader has one. */
function writerOf(downloader: unknown): Partial<FileWriter> | undefined {
  const options = (ipullEngineOf(downloader) as { options?: unknown } | null | undefined)?.options;
  const writer = (options as { writeStream?: unknown } | null | undefined)?.writeStream;
  return typeof writer === 'object' && writer !== null
    ? (writer as Partial<FileWriter>)
    : undefined;
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
  const writer = writerOf(downloader);
  if (typeof writer?.write !== 'function') return false;
  const write = writer.write.bind(writer);
  writer.write = async (position: number, bytes: Uint8Array) => {
    const written = await write(position, bytes);
    onWritten(position, bytes);
    return written;
  };
  return true;
}

/** The part of a file handle a batch of writes needs (`FileHandle.writev`). */
interface VectorWritable {
  writev(
    buffers: readonly Uint8Array[],
    position: number,
  ): Promise<{ readonly bytesWritten: number }>;
}

/**
 * ipull's file writer with the step under `write` (one attempt at a write) and the file it opens once (and again
 * after a close, creating it when it is gone).
 */
interface BatchableWriter extends FileWriter {
  _ensureFileOpen(): Promise<VectorWritable>;
  _writeWithoutRetry(position: number, bytes: unknown): Promise<unknown>;
}

/** Writes handed to ipull's writer in one synchronous run, each starting where the one before ended. */
class WriteBatch {
  readonly pieces: Uint8Array[] = [];
  endBytes: number;
  /** Settles with the batch's one write. */
  done: Promise<unknown> = Promise.resolve();

  constructor(readonly startBytes: number) {
    this.endBytes = startBytes;
  }

  add(bytes: Uint8Array): void {
    this.pieces.push(bytes);
    this.endBytes += bytes.length;
  }
}

/** Most writes in one batch (Linux takes at most 1024 buffers in one `pwritev`). */
const MAX_BATCH_PIECES = 1024;

/**
 * Has ipull's file writer write each run of contiguous writes it is handed at once (one finished 5 MiB chunk
 * arrives as one `write` per 64 kB network read, all in one synchronous loop) as one `writev`, still through
 * ipull's own retry and disk-full handling. Each of ipull's writes went through async-retry, a lock and its own
 * thread-pool task, 80 at a time: that cost the pull's thread about as much as the rest of ipull, and the thread
 * pool more than copying the bytes. Every write resolves once its batch is written. Returns false when the writer
 * is not shaped as expected (writes stay one by one).
 */
export function coalesceDownloaderWrites(downloader: unknown): boolean {
  const writer = writerOf(downloader) as Partial<BatchableWriter> | undefined;
  if (
    typeof writer?.write !== 'function' ||
    typeof writer._ensureFileOpen !== 'function' ||
    typeof writer._writeWithoutRetry !== 'function'
  )
    return false;
  const batchable = writer as BatchableWriter;
  const writeOnce = batchable._writeWithoutRetry.bind(batchable);
  batchable._writeWithoutRetry = (position, bytes) =>
    bytes instanceof WriteBatch
      ? writeBatch(batchable, bytes, position)
      : writeOnce(position, bytes);
  const write = batchable.write.bind(batchable);
  let open: WriteBatch | undefined;
  batchable.write = (position, bytes) => {
    if (open?.endBytes !== position || open.pieces.length >= MAX_BATCH_PIECES) {
      const batch = new WriteBatch(position);
      open = batch;
      batch.done = new Promise((resolve) => {
        queueMicrotask(() => {
          if (open === batch) open = undefined;
          // The batch stands in for the bytes: ipull's write passes it on to `_writeWithoutRetry` untouched.
          resolve(write(batch.startBytes, batch as unknown as Uint8Array));
        });
      });
    }
    open.add(bytes);
    return open.done;
  };
  return true;
}

/** Writes a batch with as few `writev` calls as the file takes (a short write is continued; a full disk throws). */
async function writeBatch(
  writer: BatchableWriter,
  batch: WriteBatch,
  position: number,
): Promise<number> {
  const file = await writer._ensureFileOpen();
  let pieces: readonly Uint8Array[] = batch.pieces;
  let written = 0;
  const total = batch.endBytes - batch.startBytes;
  while (written < total) {
    const { bytesWritten } = await file.writev(pieces, position + written);
    if (bytesWritten <= 0) throw new Error(`wrote no bytes at ${position + written}`);
    written += bytesWritten;
    pieces = unwritten(pieces, bytesWritten);
  }
  return written;
}

/** The buffers left after the first `bytes` bytes of `pieces` are written. */
function unwritten(pieces: readonly Uint8Array[], bytes: number): Uint8Array[] {
  const left: Uint8Array[] = [];
  let skip = bytes;
  for (const piece of pieces) {
    if (skip >= piece.length) skip -= piece.length;
    else {
      left.push(skip > 0 ? piece.subarray(skip) : piece);
      skip = 0;
    }
  }
  return left;
}

/** ipull's file writer with the steps that end a download: the truncation and the close. */
interface ClosableWriter extends FileWriter {
  ftruncate(sizeBytes?: number): Promise<unknown>;
  close(): Promise<unknown>;
}

/** The options of ipull's per-file engine, where its engine put the step that renames the file on close. */
interface CloseStep {
  onCloseAsync?: () => Promise<unknown>;
}

/** The writes handed to a writer that have not settled yet. */
class WritesInFlight {
  private readonly pending = new Set<Promise<unknown>>();

  add(write: Promise<unknown>): void {
    if (this.pending.has(write)) return;
    this.pending.add(write);
    const settle = (): void => {
      this.pending.delete(write);
    };
    write.then(settle, settle);
  }

  /** Runs `step` once every write handed over so far has settled, with no await between the last look and it. */
  async afterAll<T>(step: () => Promise<T>): Promise<T> {
    while (this.pending.size > 0) await Promise.allSettled(this.pending);
    return step();
  }
}

/**
 * Has ipull's writer finish the writes handed to it before the steps that end a download, and write nothing after
 * them. Returns false when the downloader is not shaped as expected (nothing changed).
 *
 * ipull truncates the finished file (cutting off its progress record) without waiting for the progress record it
 * saved after the last chunk: that write could land after the truncation and leave the record on the end of the
 * file (1 pull in 10 once a chunk became one write). The truncation now waits for every write handed over before.
 *
 * ipull closes a download (its end, a cancel, a stall) without waiting for the writes in flight either: it renames
 * the `.ipull` file, then closes the writer, whose writes open the file again when they find it closed (creating
 * it when it is gone). A cancel before the first chunk was on disk failed that rename (no file yet), so the writer
 * was never closed, and the chunk written next left an open handle nobody closed (1 in ~8 runs of the resume
 * test); a progress record saved after a close opened the file again as well. The close now waits for the writes
 * in flight, then renames and closes; a rename that finds no file (nothing was written) is not an error, and after
 * any other failure the writer is still closed. A write handed over once the close has begun is dropped: the
 * download is over, and the file at the writer's path may be the next pull's. ipull writes no chunk data once
 * closed, so what is dropped is a progress record, and a resume then only fetches again what it would have spared.
 */
export function finishWritesBeforeClosing(downloader: unknown): boolean {
  const writer = writerOf(downloader) as Partial<ClosableWriter> | undefined;
  const engineOptions = (rawFileEngineOf(downloader) as { options?: unknown } | null | undefined)
    ?.options as CloseStep | null | undefined;
  if (
    typeof writer?.write !== 'function' ||
    typeof writer.ftruncate !== 'function' ||
    typeof writer.close !== 'function' ||
    typeof engineOptions?.onCloseAsync !== 'function'
  )
    return false;
  const closable = writer as ClosableWriter;
  const writes = new WritesInFlight();
  let closing = false;
  const write = closable.write.bind(closable);
  closable.write = (position, bytes) => {
    if (closing) return Promise.resolve(0);
    const written = write(position, bytes);
    writes.add(written);
    return written;
  };
  const truncate = closable.ftruncate.bind(closable);
  closable.ftruncate = (sizeBytes) => writes.afterAll(() => truncate(sizeBytes));
  const close = closable.close.bind(closable);
  closable.close = () => {
    closing = true;
    return writes.afterAll(close);
  };
  const renameOnClose = engineOptions.onCloseAsync.bind(engineOptions);
  engineOptions.onCloseAsync = () => {
    closing = true;
    return writes.afterAll(() => renameThenClose(renameOnClose, closable));
  };
  return true;
}

/** ipull's rename on close; when it fails the writer is closed all the same (ipull would skip that). */
async function renameThenClose(
  rename: () => Promise<unknown>,
  writer: ClosableWriter,
): Promise<void> {
  try {
    await rename();
  } catch (error) {
    await writer.close();
    // No file to rename: no write ever reached the disk, so there is nothing to keep either.
    if ((error as { code?: unknown } | null)?.code !== 'ENOENT') throw error;
  }
}

/**
 * Has ipull fetch the file's chunks in order (`programType: 'chunks'`: each stream takes the first chunk not
 * started) instead of splitting what is left in halves, which leaves the file's first bytes for last: in order,
 * the file's prefix grows during the download and can be hashed as it does. Returns false when the downloader is
 * not shaped as expected (ipull keeps its own order).
 */
export function preferChunksInOrder(downloader: unknown): boolean {
  const engine = rawFileEngineOf(downloader);
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
  const engine = rawFileEngineOf(downloader);
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

/** What ipull's per-file engine is configured with and records about its parallel streams. */
interface StreamPlan {
  readonly options?: { readonly parallelStreams?: unknown } | null;
  readonly _progress?: { parallelStreams?: unknown; readonly chunks?: unknown } | null;
}

/** Parallel streams for a resumed download when ipull's own setting is unusable (ipull's default for Node). */
const RESUME_PARALLEL_STREAMS = 3;

/**
 * Has ipull fetch a download that has no complete chunk yet as one ranged GET over one connection, in file order
 * (what curl does), instead of a GET per 5 MiB chunk over parallel streams. On loopback, 2 cores shared with the
 * server, one stream took about half the CPU time per byte of three (the client's main thread 1,060 -> 535 ms per
 * 268 MB, median of 8) and doubled the rate; a link slower than one connection's rate gains nothing from more.
 * ipull still splits the stream into its chunks, records each as complete, and on a failure fetches again from the
 * first chunk not complete. A download with a complete chunk (a resume) keeps parallel streams: with one stream
 * ipull starts over at the first chunk and stops at the first complete one, which would leave the rest unfetched;
 * a resume of a download saved with one stream gets ipull's configured count back (at least 2) for that reason.
 * Returns false when the downloader is not shaped as expected (ipull keeps its own plan).
 */
export function oneStreamUnlessResuming(downloader: unknown): boolean {
  const engine = rawFileEngineOf(downloader) as StreamPlan | null | undefined;
  const progress = engine?._progress;
  const configured = engine?.options?.parallelStreams;
  if (
    progress === null ||
    typeof progress !== 'object' ||
    !Array.isArray(progress.chunks) ||
    typeof progress.parallelStreams !== 'number' ||
    typeof configured !== 'number'
  )
    return false;
  const resuming = progress.chunks.some((status) => status === CHUNK_COMPLETE);
  if (!resuming) progress.parallelStreams = 1;
  else if (progress.parallelStreams < 2)
    progress.parallelStreams = configured >= 2 ? configured : RESUME_PARALLEL_STREAMS;
  return true;
}
