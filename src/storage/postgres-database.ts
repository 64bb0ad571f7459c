import type * as Pg from 'pg';
import { type Clock, JarvisError, systemClock } from '../core/index.js';
import { checkDatabaseUrl, redactDatabaseUrl, urlPassword } from './database-url.js';
import { loadPgDriver, numericTypes, type PgModule } from './postgres-driver.js';
import {
  isRetryableTransactionFailure,
  isTransientFailure,
  unavailableError,
  wrapQueryError,
} from './postgres-errors.js';
import { checkChannel, type ListenHandlers, PostgresListener } from './postgres-listener.js';
import { StorageError } from './storage-error.js';

/** Options of `openPostgres`. */
export interface OpenPostgresOptions {
  /** `postgres://user:password@host:port/database`; the password is never shown anywhere. */
  readonly url: string;
  /** Connections in the pool (default 10). */
  readonly poolSize?: number | undefined;
  /** How long opening one connection may take (default 10000 ms). */
  readonly connectTimeoutMs?: number | undefined;
  /** The server cancels a statement running longer than this (default: no limit). */
  readonly statementTimeoutMs?: number | undefined;
  /** How long a lost connection is retried before a `StorageError` (`storage_unavailable`) (default 30000 ms). */
  readonly retryForMs?: number | undefined;
  /** Told about each lost connection and retry (never with the password). */
  readonly onProblem?: ((message: string) => void) | undefined;
  readonly clock?: Clock | undefined;
  /** Waits between retries (tests pass a fast one). */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** Something SQL can be sent to: the database (one statement, autocommit) or a transaction. */
export interface PostgresQueryable {
  /** Runs one statement with `$1`-style parameters and returns its rows (`bigint` columns as numbers). */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

/** Options of `PostgresDatabase.listen`. */
export interface ListenOptions {
  /** Called once LISTEN is back after a lost connection: notifications sent meanwhile were missed. */
  readonly onReconnect?: (() => void) | undefined;
}

/** A pooled PostgreSQL handle that survives lost connections (retries, re-subscribes, reports). */
export interface PostgresDatabase extends PostgresQueryable {
  /** The URL without its password. */
  readonly location: string;
  /**
   * Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws.
   * A lost connection before the commit, a serialization failure or a deadlock runs `fn` again (so keep it
   * free of side effects outside the database); a connection lost during the commit is a `StorageError`.
   */
  transaction<T>(fn: (tx: PostgresQueryable) => Promise<T>): Promise<T>;
  /** Subscribes to a channel; resolves once listening. The returned function unsubscribes. */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    options?: ListenOptions,
  ): Promise<() => Promise<void>>;
  /** Sends a notification (delivered when the surrounding transaction, if any, commits). */
  notify(channel: string, payload: string): Promise<void>;
  /** The database server's clock in milliseconds since the epoch (the reference when machines disagree). */
  now(): Promise<number>;
  /** Ends every connection; later calls fail with `storage_closed`. Calling it twice is harmless. */
  close(): Promise<void>;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_FOR_MS = 30_000;
const MAX_BACKOFF_MS = 1_000;

/** Checks a positive whole number option, naming it when wrong. */
function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `${name} must be a positive number, got ${String(value)}`,
    });
  }
  return Math.floor(value);
}

/**
 * Opens a PostgreSQL pool (loading the `pg` driver on first use) and checks that the server answers, retrying
 * a refused or lost connection for `retryForMs`. A bad URL is a `StorageError` (`storage_invalid_url`).
 */
export async function openPostgres(options: OpenPostgresOptions): Promise<PostgresDatabase> {
  const url = checkDatabaseUrl(options.url);
  const pg = await loadPgDriver();
  const database = new PgDatabase(pg, url, options);
  try {
    await database.query('SELECT 1');
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

class PgDatabase implements PostgresDatabase {
  readonly location: string;
  readonly #pool: Pg.Pool;
  readonly #listener: PostgresListener;
  readonly #password: string | undefined;
  readonly #retryForMs: number;
  readonly #onProblem: (message: string) => void;
  readonly #clock: Clock;
  readonly #sleep: (ms: number) => Promise<void>;
  #closed = false;

  constructor(pg: PgModule, url: string, options: OpenPostgresOptions) {
    this.location = redactDatabaseUrl(url);
    this.#password = urlPassword(url);
    this.#retryForMs = positive('retryForMs', options.retryForMs, DEFAULT_RETRY_FOR_MS);
    this.#onProblem = options.onProblem ?? (() => undefined);
    this.#clock = options.clock ?? systemClock;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const config = clientConfig(pg, url, options);
    this.#pool = new pg.Pool({
      ...config,
      max: positive('poolSize', options.poolSize, DEFAULT_POOL_SIZE),
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    // An idle connection that breaks (server restart) is dropped by the pool and replaced on next use.
    this.#pool.on('error', (error) =>
      this.#problem(`an idle connection was lost (${error.message}); it will be replaced`),
    );
    this.#listener = new PostgresListener({
      pg,
      config,
      location: this.location,
      password: this.#password,
      onProblem: this.#onProblem,
      sleep: this.#sleep,
    });
  }

  query<T = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#retrying('a query', isTransientFailure, async () => {
      const result = await this.#pool.query(sql, params as unknown[]);
      return result.rows as T[];
    });
  }

  transaction<T>(fn: (tx: PostgresQueryable) => Promise<T>): Promise<T> {
    return this.#retrying('a transaction', isRetryableTransactionFailure, async () => {
      const client = await this.#pool.connect();
      let broken = false;
      try {
        return await this.#runTransaction(client, fn);
      } catch (error) {
        broken = isTransientFailure(error);
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  async #runTransaction<T>(
    client: Pg.PoolClient,
    fn: (tx: PostgresQueryable) => Promise<T>,
  ): Promise<T> {
    const tx: PostgresQueryable = {
      query: async <R>(sql: string, params: readonly unknown[] = []) => {
        try {
          return (await client.query(sql, params as unknown[])).rows as R[];
        } catch (error) {
          throw wrapQueryError(error, this.#password);
        }
      },
    };
    await client.query('BEGIN');
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    try {
      await client.query('COMMIT');
    } catch (error) {
      if (!isTransientFailure(error)) throw error;
      throw new StorageError({
        code: 'storage_unavailable',
        message: `the connection to PostgreSQL at ${this.location} was lost while committing; the transaction may or may not have been applied`,
        cause: error,
      });
    }
    return result;
  }

  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    options: ListenOptions = {},
  ): Promise<() => Promise<void>> {
    this.#checkOpen();
    const handlers: ListenHandlers = { onNotify, onReconnect: options.onReconnect };
    return this.#retrying('a listen', isTransientFailure, () =>
      this.#listener.listen(channel, handlers),
    );
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [checkChannel(channel), payload]);
  }

  async now(): Promise<number> {
    const rows = await this.query<{ ms: number }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
    );
    return Math.floor(Number(rows[0]?.ms));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#listener.close();
    await this.#pool.end().catch(() => undefined);
  }

  /** Runs `attempt`, retrying failures `retryable` accepts with backoff for `retryForMs`. */
  async #retrying<T>(
    what: string,
    retryable: (error: unknown) => boolean,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const startedMs = this.#clock.monotonicMs();
    for (let attempts = 1, delayMs = 50; ; attempts += 1) {
      this.#checkOpen();
      try {
        return await attempt();
      } catch (error) {
        if (this.#closed) this.#checkOpen();
        if (!retryable(error)) throw wrapQueryError(error, this.#password);
        const elapsedMs = this.#clock.monotonicMs() - startedMs;
        if (elapsedMs + delayMs > this.#retryForMs) {
          throw unavailableError(this.location, error, attempts, elapsedMs, this.#password);
        }
        const reason = error instanceof Error ? error.message : String(error);
        this.#problem(`${what} failed (${reason}); retrying in ${delayMs} ms`);
        await this.#sleep(delayMs);
        delayMs = Math.min(delayMs * 2, MAX_BACKOFF_MS);
      }
    }
  }

  #problem(message: string): void {
    const text = `PostgreSQL at ${this.location}: ${message}`;
    this.#onProblem(this.#password === undefined ? text : text.split(this.#password).join('***'));
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new StorageError({
        code: 'storage_closed',
        message: `the PostgreSQL handle for ${this.location} is closed`,
      });
    }
  }
}

function clientConfig(pg: PgModule, url: string, options: OpenPostgresOptions): Pg.ClientConfig {
  const statementTimeoutMs =
    options.statementTimeoutMs === undefined
      ? undefined
      : positive('statementTimeoutMs', options.statementTimeoutMs, 0);
  return {
    connectionString: url,
    connectionTimeoutMillis: positive(
      'connectTimeoutMs',
      options.connectTimeoutMs,
      DEFAULT_CONNECT_TIMEOUT_MS,
    ),
    application_name: 'openjarvis',
    types: numericTypes(pg),
    ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
  };
}
