import type * as Pg from 'pg';
import { describeError, JarvisError } from '../core/index.js';
import { scrubPassword } from './database-url.js';
import type { PgModule } from './postgres-driver.js';

/** What a `listen` subscriber is told. */
export interface ListenHandlers {
  readonly onNotify: (payload: string) => void;
  /** Called after the connection was lost and LISTEN is in place again (notifications in between are lost). */
  readonly onReconnect?: (() => void) | undefined;
}

/** Options of a `PostgresListener`. */
export interface PostgresListenerOptions {
  readonly pg: PgModule;
  readonly config: Pg.ClientConfig;
  readonly location: string;
  readonly password: string | undefined;
  readonly onProblem: (message: string) => void;
  /** Waits between reconnect attempts (default: 50 ms doubling to 2 s). */
  readonly sleep?: (ms: number) => Promise<void>;
}

const CHANNEL = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const MAX_BACKOFF_MS = 2_000;

/** Checks a LISTEN/NOTIFY channel name: an SQL identifier. */
export function checkChannel(channel: string): string {
  if (!CHANNEL.test(channel)) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `channel ${JSON.stringify(channel.slice(0, 80))} is not accepted; use 1-63 letters, digits or "_", not starting with a digit`,
    });
  }
  return channel;
}

/**
 * One dedicated connection for every LISTEN of a database handle. When it is lost it reconnects with backoff
 * (reporting each failure), subscribes to every channel again and tells the subscribers, so a worker waiting
 * for notifications never silently stops hearing them.
 */
export class PostgresListener {
  readonly #options: PostgresListenerOptions;
  readonly #channels = new Map<string, Set<ListenHandlers>>();
  #client: Pg.Client | undefined;
  #connecting: Promise<Pg.Client> | undefined;
  #closed = false;
  #resubscribing = false;

  constructor(options: PostgresListenerOptions) {
    this.#options = options;
  }

  /** Subscribes; resolves once LISTEN is in place. The returned function unsubscribes. */
  async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    checkChannel(channel);
    let set = this.#channels.get(channel);
    const first = set === undefined;
    set ??= new Set();
    set.add(handlers);
    this.#channels.set(channel, set);
    try {
      const client = await this.#connected();
      if (first) await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      set.delete(handlers);
      if (set.size === 0) this.#channels.delete(channel);
      throw error;
    }
    return () => this.#unlisten(channel, handlers);
  }

  /** Ends the connection; later listens fail. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #unlisten(channel: string, handlers: ListenHandlers): Promise<void> {
    const set = this.#channels.get(channel);
    if (set === undefined || !set.delete(handlers) || set.size > 0) return;
    this.#channels.delete(channel);
    await this.#client?.query(`UNLISTEN "${channel}"`).catch(() => undefined);
  }

  #connected(): Promise<Pg.Client> {
    if (this.#client !== undefined) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<Pg.Client> {
    const client = new this.#options.pg.Client(this.#options.config);
    client.on('notification', (message) => this.#deliver(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('the connection ended')));
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new JarvisError({ code: 'closed', message: 'the PostgreSQL handle is closed' });
    }
    this.#client = client;
    return client;
  }

  #deliver(channel: string, payload: string): void {
    for (const handlers of [...(this.#channels.get(channel) ?? [])]) {
      try {
        handlers.onNotify(payload);
      } catch (error) {
        this.#options.onProblem(`a listener of channel ${channel} failed: ${describeError(error)}`);
      }
    }
  }

  #lost(client: Pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
    if (this.#closed || this.#channels.size === 0) return;
    this.#report(`the LISTEN connection was lost (${describeError(error)}); reconnecting`);
    if (!this.#resubscribing) void this.#resubscribe();
  }

  async #resubscribe(): Promise<void> {
    this.#resubscribing = true;
    try {
      await this.#resubscribeLoop();
    } finally {
      this.#resubscribing = false;
    }
  }

  async #resubscribeLoop(): Promise<void> {
    const sleep = this.#options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    for (let delayMs = 50; !this.#closed && this.#channels.size > 0; ) {
      try {
        const client = await this.#connected();
        for (const channel of this.#channels.keys()) await client.query(`LISTEN "${channel}"`);
        this.#report(`listening again on ${[...this.#channels.keys()].join(', ')}`);
        for (const set of this.#channels.values()) for (const h of set) h.onReconnect?.();
        return;
      } catch (error) {
        this.#report(
          `cannot listen again yet (${describeError(error)}); retrying in ${delayMs} ms`,
        );
        await sleep(delayMs);
        delayMs = Math.min(delayMs * 2, MAX_BACKOFF_MS);
      }
    }
  }

  #report(message: string): void {
    const { location, password, onProblem } = this.#options;
    onProblem(scrubPassword(`PostgreSQL at ${location}: ${message}`, password));
  }
}
