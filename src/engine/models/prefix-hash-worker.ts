import { Worker } from 'node:worker_threads';

/** Largest read of the worker thread (one buffer, reused). */
const WORKER_READ_BYTES = 4 * 1024 * 1024;

// The worker's code, run as a script (`eval`), so that it needs no file next to this one (built or not). Each
// message `{ end, finish? }` hashes the file up to `end` (synchronous reads: the thread does nothing else) and
// answers `{ hashed }`, or for `finish` `{ digest }` / `{ failure }`.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const hash = createHash('sha256');
const buffer = Buffer.allocUnsafeSlow(${WORKER_READ_BYTES});
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
  hashTo(message.end);
  if (!message.finish) return parentPort.postMessage({ hashed });
  if (fd !== undefined) closeSync(fd);
  fd = undefined;
  parentPort.postMessage(failure === undefined ? { hashed, digest: hash.digest('hex') } : { hashed, failure });
});
`;

/** A message of the worker thread. */
interface WorkerAnswer {
  readonly hashed?: unknown;
  readonly digest?: unknown;
  readonly failure?: unknown;
}

/**
 * Reads a file back and hashes it (SHA-256) on a worker thread, so hashing a download overlaps the download on
 * another core and costs the downloading thread nothing but a message per range. The thread does not keep the
 * process alive except while a digest is awaited; `close` ends it.
 */
export class PrefixHashWorker {
  readonly #worker: Worker;
  #hashedBytes = 0;
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

  /** Bytes [0, endBytes) are written: the thread hashes them. */
  extendTo(endBytes: number): void {
    if (this.#ended === undefined) this.#worker.postMessage({ end: endBytes });
  }

  /** Hashes up to `endBytes` and resolves to the hex digest; rejects when the file could not be read. */
  digest(endBytes: number): Promise<string> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    if (this.#pending !== undefined)
      return Promise.reject(new Error('a digest is already pending'));
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

  #answer(answer: WorkerAnswer): void {
    if (typeof answer.hashed === 'number') this.#hashedBytes = answer.hashed;
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
    const pending = this.#pending;
    this.#pending = undefined;
    this.#worker.unref();
    pending?.reject(error);
  }
}
