import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { PrefixHashWorker } from './prefix-hash-worker.js';

/**
 * Hashes a file (SHA-256) front to back as its prefix becomes final, from two sources in file order:
 * `append(bytes)` gives the next bytes from memory (what the downloader has just written), `extendTo(end)` says
 * bytes up to `end` are on disk and will not change (they are read back from the file), `digest(end)` hashes up
 * to `end` and gives the hex digest.
 */
export interface FilePrefixHasher {
  /** Bytes hashed so far (a prefix of the file). */
  readonly hashedBytes: number;
  /** The file's next bytes, as written (they must not change afterwards): hash them (in the background). */
  append(bytes: Uint8Array): void;
  /** Bytes [0, endBytes) are on disk; hash those not appended, read back from the file (in the background). */
  extendTo(endBytes: number): void;
  /** Hashes up to `endBytes` and resolves to the hex digest; rejects when the file could not be read. */
  digest(endBytes: number): Promise<string>;
  /** Stops hashing and releases the file (and thread); safe to call more than once. */
  close(): Promise<void>;
}

/** Options of `createFilePrefixHasher`. */
export interface FilePrefixHasherOptions {
  /** Where the file is, in the order to try (a downloader may rename it when it closes the download). */
  readonly paths: readonly string[];
  /** Hash on a worker thread, handing it copies of the appended bytes (default false: on this thread). */
  readonly worker?: boolean;
}

/**
 * A prefix hasher that hashes on a worker thread, or on this thread when asked to or when a worker cannot be
 * started.
 */
export function createFilePrefixHasher(options: FilePrefixHasherOptions): FilePrefixHasher {
  if (options.worker === true) {
    try {
      return new PrefixHashWorker(options.paths);
    } catch {
      // No worker threads here (a restricted runtime): hash on this thread.
    }
  }
  return new InThreadPrefixHasher(options.paths);
}

/** Largest read when hashing a range back from the file on this thread. */
const READ_BYTES = 8 * 1024 * 1024;

/**
 * Hashes on this thread: appended bytes at once when no read-back is under way (no copy, no message), ranges
 * read back from the file one after the other.
 */
export class InThreadPrefixHasher implements FilePrefixHasher {
  readonly #paths: readonly string[];
  readonly #hash: Hash = createHash('sha256');
  #hashedBytes = 0;
  /** Bytes appended or asked for so far: where the next `append` goes. */
  #queuedBytes = 0;
  /** Steps waiting behind a read-back (appends keep their order behind it). */
  #pendingSteps = 0;
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;
  #file: FileHandle | undefined;
  #closed = false;

  constructor(paths: readonly string[]) {
    this.#paths = paths;
  }

  get hashedBytes(): number {
    return this.#hashedBytes;
  }

  append(bytes: Uint8Array): void {
    if (this.#closed) return;
    this.#queuedBytes += bytes.length;
    if (this.#pendingSteps === 0) this.#update(bytes);
    else this.#enqueue(async () => this.#update(bytes));
  }

  extendTo(endBytes: number): void {
    if (this.#closed || endBytes <= this.#queuedBytes) return;
    this.#queuedBytes = endBytes;
    this.#enqueue(() => this.#hashTo(endBytes));
  }

  async digest(endBytes: number): Promise<string> {
    this.extendTo(endBytes);
    await this.#queue;
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#hashedBytes !== endBytes)
      throw new Error(`hashed ${this.#hashedBytes} bytes, not ${endBytes}`);
    return this.#hash.digest('hex');
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    const file = this.#file;
    this.#file = undefined;
    await file?.close().catch(() => undefined);
  }

  #enqueue(step: () => Promise<void>): void {
    this.#pendingSteps += 1;
    this.#queue = this.#queue.then(step).finally(() => {
      this.#pendingSteps -= 1;
    });
  }

  #update(bytes: Uint8Array): void {
    if (this.#failure !== undefined || this.#closed) return;
    this.#hash.update(bytes);
    this.#hashedBytes += bytes.length;
  }

  async #hashTo(endBytes: number): Promise<void> {
    if (this.#failure !== undefined || this.#closed || this.#hashedBytes >= endBytes) return;
    try {
      const file = await this.#open();
      const buffer = Buffer.allocUnsafe(Math.min(READ_BYTES, endBytes - this.#hashedBytes));
      while (this.#hashedBytes < endBytes && !this.#closed) {
        const length = Math.min(buffer.length, endBytes - this.#hashedBytes);
        const { bytesRead } = await file.read(buffer, 0, length, this.#hashedBytes);
        if (bytesRead === 0) throw new Error(`the file ended at ${this.#hashedBytes} bytes`);
        this.#hash.update(buffer.subarray(0, bytesRead));
        this.#hashedBytes += bytesRead;
      }
    } catch (error) {
      this.#failure = error;
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
