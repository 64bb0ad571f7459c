import { createFilePrefixHasher, type FilePrefixHasher } from './file-prefix-hasher.js';

/** Least growth of the written prefix that is handed to the hasher at once (fewer, larger reads and messages). */
const HAND_OVER_BYTES = 1024 * 1024;

/** Options of `IncrementalFileHash`. */
export interface IncrementalFileHashOptions {
  /** Where the file is, in the order to try (the downloader renames it when it closes the download). */
  readonly paths: readonly string[];
  /** The file's final size; writes at or past it (the downloader's own progress record) are ignored. */
  readonly sizeBytes: number;
  /** Hash on a worker thread, overlapping the download on another core (default true). */
  readonly worker?: boolean;
}

/**
 * SHA-256 of a file that is being written in ranges, in any order, computed while it is written: as soon as
 * every byte before a completed write is written too, the grown prefix is read back from the file and hashed
 * (on a worker thread by default). Only completed writes are reported to it, so it never reads a byte before
 * it is on disk. Ranges may be written more than once while the prefix has not reached them (ipull writes a
 * stream's leftover bytes into a chunk another stream then writes whole); a write into the prefix already handed
 * to the hasher makes the result unknown, and `finish` then says so, for the caller to hash the whole file.
 */
export class IncrementalFileHash {
  readonly #paths: readonly string[];
  readonly #sizeBytes: number;
  readonly #worker: boolean;
  #hasher: FilePrefixHasher | undefined;
  /** Bytes [0, covered) are written (or present) and final. */
  #coveredBytes = 0;
  /** Bytes [0, handedOver) are handed to the hasher. */
  #handedOverBytes = 0;
  /** Written ranges past `#coveredBytes`, sorted, disjoint, as [start, end). */
  readonly #written: [number, number][] = [];
  #tainted = false;
  #closed = false;

  constructor(options: IncrementalFileHashOptions) {
    this.#paths = options.paths;
    this.#sizeBytes = options.sizeBytes;
    this.#worker = options.worker ?? true;
  }

  /** Bytes hashed so far (a prefix of the file; hashing runs behind the writes). */
  get hashedBytes(): number {
    return this.#hasher?.hashedBytes ?? 0;
  }

  /** `data` was written at `offset` and the write has completed. */
  written(offset: number, data: Uint8Array): void {
    if (offset >= this.#sizeBytes || data.length === 0) return;
    this.#add(offset, offset + data.length, false);
  }

  /**
   * Bytes [start, end) are already in the file and will not be written again (what a resumed download has);
   * they are hashed once every byte before them is. `end` past the file's size is cut to it.
   */
  present(start: number, end: number): void {
    const last = Math.min(end, this.#sizeBytes);
    if (start < last) this.#add(start, last, true);
  }

  /**
   * Hashes what is left (every write has completed by now) and returns the hex digest, or undefined when the
   * incremental hash cannot be trusted (a hashed range was written again, or reading failed).
   */
  async finish(): Promise<string | undefined> {
    try {
      if (this.#tainted || this.#closed) return undefined;
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
    const hasher = this.#hasher;
    this.#hasher = undefined;
    await hasher?.close();
  }

  #add(start: number, end: number, present: boolean): void {
    if (this.#tainted || this.#closed) return;
    if ((!present && end > this.#sizeBytes) || start < this.#coveredBytes) {
      this.#tainted = true;
      return;
    }
    this.#insert(start, end);
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

  /** Grows the covered prefix over the ranges that now continue it; hands it to the hasher in large steps. */
  #advance(): void {
    const ranges = this.#written;
    while (ranges[0]?.[0] === this.#coveredBytes) {
      this.#coveredBytes = (ranges.shift() as [number, number])[1];
    }
    const grown = this.#coveredBytes - this.#handedOverBytes;
    if (grown >= HAND_OVER_BYTES || (grown > 0 && this.#coveredBytes === this.#sizeBytes)) {
      this.#hasherNow().extendTo(this.#coveredBytes);
      this.#handedOverBytes = this.#coveredBytes;
    }
  }

  /** The hasher, started on first use (a pull that hashes nothing starts no thread). */
  #hasherNow(): FilePrefixHasher {
    this.#hasher ??= createFilePrefixHasher({ paths: this.#paths, worker: this.#worker });
    return this.#hasher;
  }
}
