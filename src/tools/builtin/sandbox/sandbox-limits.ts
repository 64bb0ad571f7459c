/** Resource limits applied to every sandboxed run. */
export interface SandboxLimits {
  /** RLIMIT_AS of the interpreter, in bytes. */
  readonly addressSpaceBytes: number;
  /** RLIMIT_FSIZE: the largest file the code may write, in bytes. */
  readonly fileSizeBytes: number;
  /** RLIMIT_NOFILE: open file descriptors. */
  readonly openFiles: number;
  /** Size of the fresh tmpfs mounted at `/tmp` for each call, in bytes. */
  readonly tmpfsBytes: number;
  /** Raw bytes kept from each of stdout and stderr; the run is killed beyond it. */
  readonly maxStreamBytes: number;
  /** The longest code accepted, in characters. */
  readonly maxCodeChars: number;
}

/** The limits decided in security.md §2.5. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  addressSpaceBytes: 512 * 1024 * 1024,
  fileSizeBytes: 16 * 1024 * 1024,
  openFiles: 64,
  tmpfsBytes: 64 * 1024 * 1024,
  maxStreamBytes: 1024 * 1024,
  maxCodeChars: 100_000,
};

/** A counting semaphore: at most `limit` holders at once, the others wait in arrival order. */
export class SandboxSlots {
  readonly limit: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: { readonly limit: number }) {
    if (!Number.isInteger(options.limit) || options.limit < 1)
      throw new RangeError(`sandbox concurrency must be a positive integer, got ${options.limit}`);
    this.limit = options.limit;
  }

  /** Number of runs currently holding a slot. */
  get inUse(): number {
    return this.active;
  }

  /** Runs `task` once a slot is free and releases the slot when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }
}
