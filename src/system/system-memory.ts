import {
  type EventBus,
  JarvisError,
  type MemoryBackend,
  type MemoryRegistry,
  unknownNameMessage,
} from '../core/index.js';
import { SQLiteMemory } from '../memory/index.js';
import { type BuiltinEntry, builtinBuilder } from './builtin-entry.js';

/** What a memory backend is built with (a registered class or factory is given the same object). */
export interface MemoryDependencies {
  readonly dbPath: string;
  readonly bus: EventBus;
}

/** A memory backend class: constructed with the memory dependencies. */
export type MemoryBackendClass = new (deps: MemoryDependencies) => MemoryBackend;

/** A built-in memory backend: its key, its class (what the memory registry holds) and how it is built. */
export type BuiltinMemoryEntry = BuiltinEntry<
  MemoryBackendClass,
  MemoryDependencies,
  MemoryBackend
>;

/** The built-in memory backends, in registration order. */
export const BUILTIN_MEMORY_ENTRIES: readonly BuiltinMemoryEntry[] = [
  { key: 'sqlite', class: SQLiteMemory, build: (deps) => new SQLiteMemory(deps) },
];

/**
 * Makes the memory backend registered under `name` with `deps`; an unknown name throws, listing the registered
 * backends with a did-you-mean, and an entry that makes no backend throws `invalid_memory`.
 */
export function createRegisteredMemory(
  name: string,
  registry: typeof MemoryRegistry,
  deps: MemoryDependencies,
): MemoryBackend {
  if (!registry.contains(name)) throw unknownMemoryError(name, registry.keys());
  const build = builtinBuilder(BUILTIN_MEMORY_ENTRIES, registry.get(name));
  const backend: unknown = build ? build(deps) : registry.create(name, deps);
  if (!isMemoryBackend(backend)) {
    throw new JarvisError({
      code: 'invalid_memory',
      message: `The memory backend registered as '${name}' did not produce a memory backend (store, retrieve, count, clear, close)`,
    });
  }
  return backend;
}

/** The error for a memory backend nobody registered (`backend` under [memory]), suggesting the closest. */
export function unknownMemoryError(name: string, available: readonly string[]): JarvisError {
  const unknown = unknownNameMessage('memory backend', name, available);
  return new JarvisError({
    code: 'registry_missing_key',
    message:
      `${unknown}${unknown.endsWith('?') ? '' : '.'} Fix \`backend\` under [memory] in the config, ` +
      'or register the backend from a module listed in `imports`.',
  });
}

function isMemoryBackend(value: unknown): value is MemoryBackend {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<MemoryBackend>;
  return ['store', 'retrieve', 'count', 'clear', 'close'].every(
    (method) => typeof candidate[method as keyof MemoryBackend] === 'function',
  );
}
