import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';

/** Largest read when hashing a written range back from the file. */
const READ_BYTES = 8 * 1024 * 1024;

/** Options of `IncrementalFileHash`. */
export interface IncrementalFileHashOptions {
  /** Where the file is, in the order to try (the downloader renames it when it closes the download). */
  readonly paths: readonly string[];
  /** The file's final size; writes at or past it (the downloader's own progress record) are ignored. */
  readonly sizeBytes: number;
}

/**
 * SHA-256 of a file that is being written in ranges, in any order, computed while it is written: a range is
 * hashed as soon as every byte before it is, from the written bytes themselves when it continues the hashed
 * prefix, else read back from the file once its write has completed. Only completed writes are reported to
 * it, so it never reads a byte before it is on disk. Ranges may be written more than once while not yet hashed
 * (ipull writes a stream's leftover bytes into a chunk another stream then writes whole); a write into what is
 * already hashed makes the result unknown, and `finish` then says so, for the caller to hash the whole file.
 */
export class IncrementalFileHash {
  readonly #paths: readonly string[];
  readonly #sizeBytes: number;
  readonly #hash: Hash = createHash('sha256');
  /** Bytes [0, hashed) are hashed. */
  #hashedBytes = 0;
  /** Bytes [0, covered) are hashed or being read back to be hashed. */
  #coveredBytes = 0;
  /** Written, not yet hashed ranges at or past `#hashedBytes`, sorted, disjoint, as [start, end). */
  readonly #written: [number, number][] = [];
  #tainted = false;
  #reading: Promise<void> | undefined;
  #file: FileHandle | undefined;
  #failure: unknown;

  constructor(options: IncrementalFileHashOptions) {
    this.#paths = options.paths;
    this.#sizeBytes = options.sizeBytes;
  }

  /** Bytes hashed so far (a prefix of the file). */
  get hashedBytes(): number {
    return this.#hashedBytes;
  }

  /** `data` was written at `offset` and the write has completed. */
  written(offset: number, data: Uint8Array): void {
    if (this.#tainted || offset >= this.#sizeBytes || data.length === 0) return;
    const end = offset + data.length;
    if (end > this.#sizeBytes || offset < this.#coveredBytes) {
      this.#tainted = true;
      return;
    }
    if (offset === this.#hashedBytes && this.#reading === undefined) {
      this.#hash.update(data);
      this.#hashedBytes = end;
      this.#coveredBytes = end;
      this.#trimHashed();
    } else {
      this.#insert(offset, end);
    }
    this.#drain();
  }

  /**
   * Bytes [start, end) are already in the file and will not be written again (what a resumed download has);
   * they are read back and hashed once every byte before them is. `end` past the file's size is cut to it.
   */
  present(start: number, end: number): void {
    const last = Math.min(end, this.#sizeBytes);
    if (this.#tainted || start >= last) return;
    if (start < this.#coveredBytes) {
      this.#tainted = true;
      return;
    }
    this.#insert(start, last);
    this.#drain();
  }

  /**
   * Hashes what is left (every write has completed by now) and returns the hex digest, or undefined when the
   * incremental hash cannot be trusted (a hashed range was written again, or reading failed).
   */
  async finish(): Promise<string | undefined> {
    try {
      await this.#reading;
      if (this.#tainted || this.#failure !== undefined) return undefined;
      await this.#hashFromFile(this.#sizeBytes);
      return this.#hash.digest('hex');
    } catch {
      return undefined;
    } finally {
      await this.close();
    }
  }

  /** Releases the file (a pull that failed never calls `finish`). */
  async close(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.close().catch(() => undefined);
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

  /** Drops what the hashed prefix now covers from the written ranges. */
  #trimHashed(): void {
    const ranges = this.#written;
    while (ranges.length > 0 && (ranges[0]?.[1] ?? 0) <= this.#hashedBytes) ranges.shift();
    const head = ranges[0];
    if (head !== undefined && head[0] < this.#hashedBytes) head[0] = this.#hashedBytes;
  }

  /** Starts reading back the written ranges that now continue the hashed prefix, one reader at a time. */
  #drain(): void {
    if (this.#reading !== undefined || this.#written[0]?.[0] !== this.#hashedBytes) return;
    this.#reading = (async () => {
      try {
        for (
          let next = this.#written[0];
          next?.[0] === this.#hashedBytes;
          next = this.#written[0]
        ) {
          this.#written.shift();
          this.#coveredBytes = next[1];
          await this.#hashFromFile(next[1]);
        }
      } catch (error) {
        this.#failure = error;
      } finally {
        this.#reading = undefined;
      }
      if (this.#failure === undefined) this.#drain();
    })();
  }

  /** Reads [hashed, end) from the file into the hash. */
  async #hashFromFile(end: number): Promise<void> {
    if (this.#hashedBytes >= end) return;
    const file = await this.#open();
    const buffer = Buffer.allocUnsafe(Math.min(READ_BYTES, end - this.#hashedBytes));
    while (this.#hashedBytes < end) {
      const length = Math.min(buffer.length, end - this.#hashedBytes);
      const { bytesRead } = await file.read(buffer, 0, length, this.#hashedBytes);
      if (bytesRead === 0) throw new Error(`the file ended at ${this.#hashedBytes} bytes`);
      this.#hash.update(buffer.subarray(0, bytesRead));
      this.#hashedBytes += bytesRead;
    }
  }

  async #open(): Promise<FileHandle> {
    if (this.#file !== undefined) return this.#file;
    let lastError: unknown;
    for (const path of this.#paths) {
      try {
        this.#file = await open(path, 'r');
        return this.#file;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
}
