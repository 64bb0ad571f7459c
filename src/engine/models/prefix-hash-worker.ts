import { Worker } from 'node:worker_threads';

/** Largest read of the worker thread (one buffer, reused). */
const WORKER_READ_BYTES = 4 * 1024 * 1024;
/**
 * A grown prefix to read back goes to the thread once it has grown this much since the last message (or after
 * EXTEND_DELAY_MS): a download's prefix grows with nearly every write, and a message (and a thread wake-up) per
 * 64 kB write cost the download's thread more than the bytes they stand for.
 */
const EXTEND_STEP_BYTES = 4 * 1024 * 1024;
/** Longest wait before a grown prefix smaller than EXTEND_STEP_BYTES goes to the thread. */
const EXTEND_DELAY_MS = 20;
/** Appended bytes are copied into batches of this size, each handed to the thread in one message. */
const BATCH_BYTES = 2 * 1024 * 1024;
/** Batches the thread has hashed and handed back, kept for reuse (a fresh one costs its page faults). */
const SPARE_BATCHES = 8;

// The worker's code, run as a script (`eval`), so that it needs no file next to this one (built or not). A
// message `{ batch, length }` hashes the batch's first `length` bytes as the file's next bytes and answers
// `{ hashed, spare }` (the batch, handed back for reuse); `{ end, finish? }` hashes the file up to `end`, read
// back from the file (synchronous reads: the thread does nothing else), and answers `{ hashed }`, or for
// `finish` `{ digest }` / `{ failure }`.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const hash = createHash('sha256');
let buffer;
let fd;
let hashed = 0;
let failure;
function openFile() {
  let lastError;
  for (const path of workerData.paths) {
    try { return openSync(path, 'r'); } catch (error) { lastError = error; }
  }
  throw lastError;
}
function hashTo(end) {
  if (failure !== undefined || hashed >= end) return;
  try {
    if (fd === undefined) fd = openFile();
    buffer ??= Buffer.allocUnsafeSlow(${WORKER_READ_BYTES});
    while (hashed < end) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, end - hashed), hashed);
      if (read === 0) throw new Error('the file ended at ' + hashed + ' bytes');
      hash.update(buffer.subarray(0, read));
      hashed += read;
    }
  } catch (error) {
    failure = String((error && error.message) || error);
  }
}
parentPort.on('message', (message) => {
  if (message.batch !== undefined) {
    if (failure === undefined) {
      hash.update(new Uint8Array(message.batch, 0, message.length));
      hashed += message.length;
    }
    return parentPort.postMessage({ hashed, spare: message.batch }, [message.batch]);
  }
  hashTo(message.end);
  if (!message.finish) return parentPort.postMessage({ hashed });
  if (fd !== undefined) closeSync(fd);
  fd = undefined;
  if (failure === undefined && hashed !== message.end) failure = 'hashed ' + hashed + ' bytes, not ' + message.end;
  parentPort.postMessage(failure === undefined ? { hashed, digest: hash.digest('hex') } : { hashed, failure });
});
`;

/** A message of the worker thread. */
interface WorkerAnswer {
  readonly hashed?: unknown;
  readonly spare?: unknown;
  readonly digest?: unknown;
  readonly failure?: unknown;
}

/**
 * Hashes a file (SHA-256) on a worker thread, so hashing a download overlaps the download on another core: the
 * bytes the downloader writes are copied into batches handed to the thread (a copy costs far less than the
 * hash), and ranges not seen in memory are read back from the file by the thread. The thread does not keep the
 * process alive except while a digest is awaited; `close` ends it.
 */
export class PrefixHashWorker {
  readonly #worker: Worker;
  #hashedBytes = 0;
  /** Bytes appended or asked for so far: where the next `append` goes. */
  #queuedBytes = 0;
  /** Where the last read-back message to the thread ended. */
  #sentEndBytes = 0;
  /** A grown prefix not told to the thread yet (`#queuedBytes` is its end), and its timer. */
  #extendPending = false;
  #extendTimer: ReturnType<typeof setTimeout> | undefined;
  #batch: Uint8Array<ArrayBuffer> | undefined;
  #batchLength = 0;
  readonly #spares: ArrayBuffer[] = [];
  #ended: Error | undefined;
  #pending: { resolve: (digest: string) => void; reject: (error: Error) => void } | undefined;

  constructor(paths: readonly string[]) {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { paths: [...paths] } });
    this.#worker.unref();
    this.#worker.on('message', (answer: WorkerAnswer) => this.#answer(answer));
    this.#worker.on('error', (error) => this.#end(error));
    this.#worker.on('exit', (code) =>
      this.#end(new Error(`the hash thread exited (code ${code})`)),
    );
  }

  /** Bytes the thread has hashed (a prefix of the file), as it last said. */
  get hashedBytes(): number {
    return this.#hashedBytes;
  }

  /** The file's next bytes: copied into the current batch, which goes to the thread once full. */
  append(bytes: Uint8Array): void {
    if (this.#ended !== undefined) return;
    this.#sendExtend();
    this.#queuedBytes += bytes.length;
    let offset = 0;
    while (offset < bytes.length) {
      const batch = this.#currentBatch();
      const length = Math.min(batch.length - this.#batchLength, bytes.length - offset);
      batch.set(bytes.subarray(offset, offset + length), this.#batchLength);
      this.#batchLength += length;
      offset += length;
      if (this.#batchLength === batch.length) this.#flush();
    }
  }

  /**
   * Bytes [0, endBytes) are on disk: the thread hashes those not appended, read back from the file (told in
   * steps of EXTEND_STEP_BYTES, or after EXTEND_DELAY_MS).
   */
  extendTo(endBytes: number): void {
    if (this.#ended !== undefined) return;
    this.#flush();
    if (endBytes <= this.#queuedBytes) return;
    this.#queuedBytes = endBytes;
    this.#extendPending = true;
    if (endBytes - this.#sentEndBytes >= EXTEND_STEP_BYTES) this.#sendExtend();
    else if (this.#extendTimer === undefined) {
      this.#extendTimer = setTimeout(() => this.#sendExtend(), EXTEND_DELAY_MS);
      this.#extendTimer.unref();
    }
  }

  /** Hashes up to `endBytes` and resolves to the hex digest; rejects when the file could not be read. */
  digest(endBytes: number): Promise<string> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    if (this.#pending !== undefined)
      return Promise.reject(new Error('a digest is already pending'));
    this.#flush();
    this.#cancelExtend();
    return new Promise<string>((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#worker.ref();
      this.#worker.postMessage({ end: endBytes, finish: true });
    });
  }

  /** Ends the thread. */
  async close(): Promise<void> {
    this.#end(new Error('the hash thread was closed'));
    await this.#worker.terminate();
  }

  #currentBatch(): Uint8Array<ArrayBuffer> {
    this.#batch ??= new Uint8Array(this.#spares.pop() ?? new ArrayBuffer(BATCH_BYTES));
    return this.#batch;
  }

  /** Tells the thread the grown prefix it has not been told yet. */
  #sendExtend(): void {
    if (!this.#extendPending) return;
    this.#cancelExtend();
    if (this.#ended !== undefined) return;
    this.#sentEndBytes = this.#queuedBytes;
    this.#worker.postMessage({ end: this.#queuedBytes });
  }

  #cancelExtend(): void {
    this.#extendPending = false;
    clearTimeout(this.#extendTimer);
    this.#extendTimer = undefined;
  }

  /** Hands the current batch (its filled part) to the thread. */
  #flush(): void {
    const batch = this.#batch;
    if (batch === undefined || this.#batchLength === 0) return;
    this.#worker.postMessage({ batch: batch.buffer, length: this.#batchLength }, [batch.buffer]);
    this.#batch = undefined;
    this.#batchLength = 0;
  }

  #answer(answer: WorkerAnswer): void {
    if (typeof answer.hashed === 'number') this.#hashedBytes = answer.hashed;
    if (answer.spare instanceof ArrayBuffer && this.#spares.length < SPARE_BATCHES)
      this.#spares.push(answer.spare);
    if (typeof answer.digest === 'string') this.#settle(answer.digest);
    else if (answer.failure !== undefined) this.#end(new Error(String(answer.failure)));
  }

  #settle(digest: string): void {
    const pending = this.#pending;
    this.#pending = undefined;
    this.#worker.unref();
    pending?.resolve(digest);
  }

  #end(error: Error): void {
    this.#ended ??= error;
    this.#cancelExtend();
    const pending = this.#pending;
    this.#pending = undefined;
    this.#worker.unref();
    pending?.reject(error);
  }
}
