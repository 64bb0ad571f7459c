import { JarvisError, type MemoryResult, type RetrieveOptions } from '../core/index.js';
import type { IndexSummary, JarvisSystem, MemoryIndexOptions } from '../system/index.js';

/** Options of `jarvis.memory.search`: the memory contract's retrieval options (`topK`, default 5; `signal`). */
export type MemorySearchOptions = RetrieveOptions;

/** What `jarvis.memory.stats()` reports. */
export interface MemoryStats {
  readonly backend: string;
  /** The SQLite file, or the PostgreSQL URL without its password when `[storage] backend = "postgres"`. */
  readonly dbPath: string;
  /** Documents (chunks) stored. */
  readonly count: number;
}

/** `jarvis.memory`: index files into the configured memory, search it, count and clear it. */
export class MemoryHandle {
  readonly #system: () => Promise<JarvisSystem>;

  /** Takes how to reach the system (opened on first use). */
  constructor(system: () => Promise<JarvisSystem>) {
    this.#system = system;
  }

  /** Indexes a file or a folder tree; unchanged files are skipped, changed ones replaced. */
  async index(path: string, options: MemoryIndexOptions = {}): Promise<IndexSummary> {
    if (typeof path !== 'string' || path.trim() === '')
      throw new JarvisError({ code: 'invalid_argument', message: 'memory.index needs a path' });
    return (await this.#system()).indexMemory(path, options);
  }

  /** The stored chunks that best match `query`, best first. */
  async search(query: string, options: MemorySearchOptions = {}): Promise<readonly MemoryResult[]> {
    const memory = (await this.#system()).memory();
    return memory.retrieve(query, { ...options, topK: options.topK ?? 5 });
  }

  /** The backend, its database and how many chunks it holds. */
  async stats(): Promise<MemoryStats> {
    const system = await this.#system();
    const count = await system.memory().count();
    const { backend, location } = system.memoryLocation();
    return { backend, dbPath: location, count };
  }

  /** Removes every stored document. */
  async clear(): Promise<void> {
    await (await this.#system()).memory().clear();
  }
}
