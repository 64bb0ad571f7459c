import { createFilePrefixHasher, type FilePrefixHasher } from './file-prefix-hasher.js';

/**
 * Most bytes of completed writes kept in memory while they wait for the bytes before them (ipull's parallel
 * streams write a few chunks ahead of the first unfinished one); writes past it are read back from the file.
 */
const DEFAULT_HOLD_BYTES = 32 * 1024 * 1024;

/** Options of `IncrementalFileHash`. */
export interface IncrementalFileHashOptions {
  /** Where the file is, in the order to try (the downloader renames it when it closes the download). */
  readonly paths: readonly string[];
  /** The file's final size; writes at or past it (the downloader's own progress record) are ignored. */
  readonly sizeBytes: number;
  /**
   * Hash on a worker thread, handing it copies of the written bytes (default false: hash them on this thread as
   * they are written, which costs less CPU than copying them to a thread).
   */
  readonly worker?: boolean;
  /**
   * Most bytes of out-of-order writes kept in memory until the bytes before them are written (default 32 MiB);
   * 0 keeps none, not even writes that continue the prefix: every byte is then read back from the file (on a
   * worker thread that costs this thread nothing but a message per grown prefix).
   */
  readonly holdBytes?: number;
}

/** Bytes of a completed write kept in memory, at `start` in the file. */
interface HeldPiece {
  readonly start: number;
  readonly bytes: Uint8Array;
}

/** The end of a held piece. */
const endOf = (piece: HeldPiece): number => piece.start + piece.bytes.length;

/**
 * SHA-256 of a file that is being written in ranges, in any order, computed while it is written, without reading
 * back what it saw written: as soon as every byte before a completed write is written too, the grown prefix is
 * hashed from the written bytes themselves (on this thread, or on a worker thread). Writes that arrive ahead of the
 * prefix are kept in memory until it reaches them (up to `holdBytes`); only what it did not see or could not keep
 * (a resumed download's earlier bytes, writes past the limit) is read back from the file. Only completed writes
 * are reported to it, so it never reads a byte before it is on disk; the written bytes must not change after
 * their write (ipull's do not: each network read is a fresh buffer). Ranges may be written more than once while
 * the prefix has not reached them (the last write wins, as in the file); a write into the prefix already hashed
 * makes the result unknown, and `finish` then says so, for the caller to hash the whole file.
 */
export class IncrementalFileHash {
  readonly #paths: readonly string[];
  readonly #sizeBytes: number;
  readonly #worker: boolean;
  readonly #holdBytes: number;
  #hasher: FilePrefixHasher | undefined;
  /** Bytes [0, covered) are written (or present), final, and handed to the hasher. */
  #coveredBytes = 0;
  /** Written ranges past `#coveredBytes`, sorted, disjoint, as [start, end). */
  readonly #written: [number, number][] = [];
  /** Written bytes past `#coveredBytes` kept in memory, sorted, disjoint (the last write of a byte wins). */
  readonly #held: HeldPiece[] = [];
  #heldBytes = 0;
  #tainted = false;
  #closed = false;

  constructor(options: IncrementalFileHashOptions) {
    this.#paths = options.paths;
    this.#sizeBytes = options.sizeBytes;
    this.#worker = options.worker ?? false;
    this.#holdBytes = options.holdBytes ?? DEFAULT_HOLD_BYTES;
  }

  /** Bytes hashed so far (a prefix of the file; hashing runs behind the writes). */
  get hashedBytes(): number {
    return this.#hasher?.hashedBytes ?? 0;
  }

  /** `data` was written at `offset` and the write has completed; `data` will not change. */
  written(offset: number, data: Uint8Array): void {
    if (offset >= this.#sizeBytes || data.length === 0) return;
    this.#add(offset, offset + data.length, data);
  }

  /**
   * Bytes [start, end) are already in the file and will not be written again (what a resumed download has);
   * they are hashed once every byte before them is. `end` past the file's size is cut to it.
   */
  present(start: number, end: number): void {
    const last = Math.min(end, this.#sizeBytes);
    if (start < last) this.#add(start, last, undefined);
  }

  /**
   * Hashes what is left (every write has completed by now) and returns the hex digest, or undefined when the
   * incremental hash cannot be trusted (a hashed range was written again, or reading failed).
   */
  async finish(): Promise<string | undefined> {
    try {
      if (this.#tainted || this.#closed) return undefined;
      this.#handOver(this.#sizeBytes);
      return await this.#hasherNow().digest(this.#sizeBytes);
    } catch {
      return undefined;
    } finally {
      await this.close();
    }
  }

  /** Stops hashing and releases the file and thread (a pull that failed never calls `finish`). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#held.length = 0;
    this.#heldBytes = 0;
    const hasher = this.#hasher;
    this.#hasher = undefined;
    await hasher?.close();
  }

  /** Records [start, end) as written (with its bytes, or present on disk when `data` is undefined). */
  #add(start: number, end: number, data: Uint8Array | undefined): void {
    if (this.#tainted || this.#closed) return;
    if ((data !== undefined && end > this.#sizeBytes) || start < this.#coveredBytes) {
      this.#tainted = true;
      return;
    }
    this.#insert(start, end);
    this.#forget(start, end);
    if (
      data !== undefined &&
      this.#holdBytes > 0 &&
      (start === this.#coveredBytes || this.#canHold(data.length))
    ) {
      this.#hold({ start, bytes: data });
    }
    this.#advance();
  }

  /** Adds [start, end) to the written ranges, merged with every range it overlaps or touches. */
  #insert(start: number, end: number): void {
    const ranges = this.#written;
    let first = ranges.findIndex(([, e]) => e >= start);
    if (first === -1) first = ranges.length;
    let last = first;
    let merged: [number, number] = [start, end];
    while (last < ranges.length && (ranges[last]?.[0] ?? Number.POSITIVE_INFINITY) <= end) {
      const range = ranges[last] as [number, number];
      merged = [Math.min(merged[0], range[0]), Math.max(merged[1], range[1])];
      last += 1;
    }
    ranges.splice(first, last - first, merged);
  }

  #canHold(length: number): boolean {
    return this.#heldBytes + length <= this.#holdBytes;
  }

  /** Drops the held bytes of [start, end): a later write (or the file) has them now. */
  #forget(start: number, end: number): void {
    const held = this.#held;
    const first = this.#firstEndingAfter(start);
    if (first === held.length || (held[first]?.start ?? end) >= end) return;
    let last = first;
    const parts: HeldPiece[] = [];
    for (; last < held.length && (held[last]?.start ?? end) < end; last += 1) {
      const piece = held[last] as HeldPiece;
      this.#heldBytes -= piece.bytes.length;
      if (piece.start < start)
        parts.push({ start: piece.start, bytes: piece.bytes.subarray(0, start - piece.start) });
      if (endOf(piece) > end)
        parts.push({ start: end, bytes: piece.bytes.subarray(end - piece.start) });
    }
    for (const part of parts) this.#heldBytes += part.bytes.length;
    held.splice(first, last - first, ...parts);
  }

  /** Index of the first held piece that ends after `position` (pieces are sorted and disjoint). */
  #firstEndingAfter(position: number): number {
    let low = 0;
    let high = this.#held.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (endOf(this.#held[middle] as HeldPiece) <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Keeps a piece in memory, in file order (no held piece overlaps it: `#forget` ran first). */
  #hold(piece: HeldPiece): void {
    let index = this.#held.length;
    while (index > 0 && (this.#held[index - 1]?.start ?? 0) > piece.start) index -= 1;
    this.#held.splice(index, 0, piece);
    this.#heldBytes += piece.bytes.length;
  }

  /** Grows the covered prefix over the ranges that now continue it, and hands what it grew by to the hasher. */
  #advance(): void {
    const ranges = this.#written;
    let end = this.#coveredBytes;
    while (ranges[0]?.[0] === end) end = (ranges.shift() as [number, number])[1];
    if (end > this.#coveredBytes || end === this.#sizeBytes) this.#handOver(end);
  }

  /**
   * Hands [covered, end) to the hasher: held bytes as they are, the gaps between them to be read back from the
   * file (every byte of it is on disk); the end of the file also hands over the hasher's last partial batch.
   */
  #handOver(end: number): void {
    const hasher = this.#hasherNow();
    while (this.#held[0] !== undefined && this.#held[0].start < end) {
      const piece = this.#held.shift() as HeldPiece;
      if (piece.start > this.#coveredBytes) hasher.extendTo(piece.start);
      const length = Math.min(piece.bytes.length, end - piece.start);
      hasher.append(piece.bytes.subarray(0, length));
      this.#heldBytes -= piece.bytes.length;
      if (length < piece.bytes.length)
        this.#hold({ start: end, bytes: piece.bytes.subarray(length) });
      this.#coveredBytes = piece.start + length;
    }
    if (end > this.#coveredBytes || end === this.#sizeBytes) hasher.extendTo(end);
    this.#coveredBytes = end;
  }

  /** The hasher, started on first use (a pull that hashes nothing starts no thread). */
  #hasherNow(): FilePrefixHasher {
    this.#hasher ??= createFilePrefixHasher({ paths: this.#paths, worker: this.#worker });
    return this.#hasher;
  }
}
