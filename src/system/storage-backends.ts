import { type EventBus, JarvisError, type MemoryBackend } from '../core/index.js';
import { PostgresMemory } from '../memory/index.js';
import {
  PostgresSchedulerStore,
  SchedulerStore,
  type SchedulerStoreBackend,
} from '../scheduler/index.js';
import { PostgresSessionStore, type SessionStore, SqliteSessionStore } from '../sessions/index.js';
import { type OpenPostgresOptions, openPostgres, redactDatabaseUrl } from '../storage/index.js';
import {
  PostgresTelemetryStore,
  SqliteTelemetryBackend,
  type TelemetryBackend,
  TelemetryStore,
} from '../telemetry/index.js';
import type { JarvisConfig } from './config/index.js';

/** Options of the backend openers. */
export interface StorageBackendOptions {
  /** Told about lost PostgreSQL connections and retries (never with the password). */
  readonly onProblem?: ((message: string) => void) | undefined;
}

/**
 * The `openPostgres` options `[storage]` gives; `backend = "postgres"` without a url (nor
 * `OPENJARVIS_DATABASE_URL`) is a `config_invalid` error saying where to set one.
 */
export function postgresOptions(
  config: JarvisConfig,
  options: StorageBackendOptions = {},
): OpenPostgresOptions {
  const { url, poolSize, connectTimeoutMs, statementTimeoutMs } = config.storage;
  if (url === undefined) {
    throw new JarvisError({
      code: 'config_invalid',
      message:
        '[storage] backend = "postgres" needs a database: set `url` under [storage] (postgres://user:password@host:5432/database) or the OPENJARVIS_DATABASE_URL environment variable',
    });
  }
  return { url, poolSize, connectTimeoutMs, statementTimeoutMs, onProblem: options.onProblem };
}

/** The sessions store `[storage]` picks: SQLite at `[sessions] db_path` (default) or the PostgreSQL database. */
export function openConfiguredSessionStore(
  config: JarvisConfig,
  options: StorageBackendOptions = {},
): SessionStore {
  if (config.storage.backend !== 'postgres') {
    return new SqliteSessionStore({ dbPath: config.sessions.dbPath });
  }
  const connection = postgresOptions(config, options);
  return deferredSessionStore(redactDatabaseUrl(connection.url), async () =>
    PostgresSessionStore.open({ database: await openPostgres(connection), closeDatabase: true }),
  );
}

/**
 * The scheduler store `[storage]` picks: SQLite at `[scheduler] db_path` (default) or the PostgreSQL database,
 * connected and migrated on first use (a failed connection is tried again by the next call).
 */
export function openConfiguredSchedulerStore(
  config: JarvisConfig,
  options: StorageBackendOptions = {},
): SchedulerStore | SchedulerStoreBackend {
  if (config.storage.backend !== 'postgres')
    return new SchedulerStore({ dbPath: config.scheduler.dbPath });
  const connection = postgresOptions(config, options);
  return new PostgresSchedulerStore({ database: () => openPostgres(connection) });
}

/** What the telemetry store is opened with besides `[storage]` and `[telemetry]`. */
export interface TelemetryBackendOptions extends StorageBackendOptions {
  /** Applied to every text stored (the system's redactor of configured secrets). */
  readonly redact?: ((text: string) => string) | undefined;
}

/**
 * The telemetry store `[storage]` picks: SQLite at `[telemetry] db_path` (default) or the PostgreSQL database,
 * connected and migrated on first use; both keep `[telemetry] trace_max_runs` runs.
 */
export function openConfiguredTelemetryStore(
  config: JarvisConfig,
  options: TelemetryBackendOptions = {},
): TelemetryBackend {
  const { dbPath, traceMaxRuns: maxRuns } = config.telemetry;
  const redact = options.redact === undefined ? {} : { redact: options.redact };
  if (config.storage.backend !== 'postgres') {
    return new SqliteTelemetryBackend(new TelemetryStore({ dbPath, maxRuns, ...redact }));
  }
  const connection = postgresOptions(config, options);
  return new PostgresTelemetryStore({
    database: () => openPostgres(connection),
    location: redactDatabaseUrl(connection.url),
    maxRuns,
    onProblem: options.onProblem,
    ...redact,
  });
}

/** Something opened on first use (`get`), opened again after a failed open, and closed at most once. */
interface OpenedOnFirstUse<T> {
  get(): Promise<T>;
  close(): Promise<void>;
}

/**
 * Opens with `open` on the first `get` (a failed open is tried again by the next one); after `close`, `get`
 * rejects with `closedError()`. What it opened is closed once.
 */
function openOnFirstUse<T extends { close(): unknown }>(
  open: () => Promise<T>,
  closedError: () => JarvisError,
): OpenedOnFirstUse<T> {
  let opening: Promise<T> | undefined;
  let closed = false;
  return {
    get() {
      if (closed) return Promise.reject(closedError());
      opening ??= open().catch((error: unknown) => {
        opening = undefined;
        throw error;
      });
      return opening;
    },
    async close() {
      if (closed) return;
      closed = true;
      const opened = await opening?.catch(() => undefined);
      await opened?.close();
    },
  };
}

/**
 * A `SessionStore` whose real store is opened (connection, migrations) on the first call, so callers that
 * get a store synchronously can use a networked one; a failed open is retried on the next call.
 */
export function deferredSessionStore(
  location: string,
  open: () => Promise<SessionStore>,
): SessionStore {
  const opened = openOnFirstUse(
    open,
    () =>
      new JarvisError({
        code: 'sessions_store_closed',
        message: `the sessions store ${location} is closed`,
      }),
  );
  const store = () => opened.get();
  return {
    location,
    create: async (options) => (await store()).create(options),
    find: async (idOrName) => (await store()).find(idOrName),
    latest: async () => (await store()).latest(),
    list: async (options) => (await store()).list(options),
    rename: async (id, name) => (await store()).rename(id, name),
    remove: async (id) => (await store()).remove(id),
    appendTurn: async (id, turn) => (await store()).appendTurn(id, turn),
    turns: async (id, options) => (await store()).turns(id, options),
    setSummary: async (id, summary) => (await store()).setSummary(id, summary),
    close: () => opened.close(),
  };
}

/** The memory operations `memory index` uses besides the core ones (both full-text backends have them). */
type IndexableMemory = Pick<
  PostgresMemory,
  keyof MemoryBackend | 'storeMany' | 'replaceSource' | 'sourceMetadata'
>;

/**
 * The PostgreSQL memory `[storage] backend = "postgres"` gives (system uses it where `[memory] backend` is the
 * default `sqlite`): opened on first use, like the sessions store.
 */
export function openPostgresMemory(
  config: JarvisConfig,
  bus: EventBus,
  options: StorageBackendOptions = {},
): IndexableMemory {
  const connection = postgresOptions(config, options);
  const opened = openOnFirstUse(
    async () =>
      PostgresMemory.open({ database: await openPostgres(connection), closeDatabase: true, bus }),
    () =>
      new JarvisError({
        code: 'memory_closed',
        message: `the memory at ${redactDatabaseUrl(connection.url)} is closed`,
      }),
  );
  const memory = () => opened.get();
  return {
    backendId: 'postgres',
    store: async (content, storeOptions) => (await memory()).store(content, storeOptions),
    storeMany: async (documents) => (await memory()).storeMany(documents),
    replaceSource: async (source, documents) => (await memory()).replaceSource(source, documents),
    sourceMetadata: async (source) => (await memory()).sourceMetadata(source),
    retrieve: async (query, retrieveOptions) => (await memory()).retrieve(query, retrieveOptions),
    delete: async (id) => (await memory()).delete(id),
    clear: async () => (await memory()).clear(),
    count: async () => (await memory()).count(),
    close: () => opened.close(),
  };
}
