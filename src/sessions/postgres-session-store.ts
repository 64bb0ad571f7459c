import { type Clock, databaseIncompatibleError, JarvisError, systemClock } from '../core/index.js';
import {
  migrate,
  type PostgresDatabase,
  type PostgresQueryable,
  StorageError,
} from '../storage/index.js';
import { SESSION_COLUMNS, SESSIONS_MIGRATIONS, TURN_COLUMNS } from './postgres-session-schema.js';
import {
  checkNewTurn,
  checkSessionName,
  nameTakenError,
  newSessionId,
  noSessionError,
} from './session-checks.js';
import {
  encodeMessages,
  type SessionRow,
  type TurnRow,
  titleOf,
  toSessionInfo,
  toSessionTurn,
} from './session-rows.js';
import type { SessionStore } from './session-store.js';
import type {
  CreateSessionOptions,
  ListSessionsOptions,
  NewSessionTurn,
  SessionInfo,
  SessionSummary,
  SessionTurn,
  SessionTurnsOptions,
} from './session-types.js';

/** Options of `PostgresSessionStore.open`. */
export interface PostgresSessionStoreOptions {
  /** An open handle (`openPostgres`); several stores may share one. */
  readonly database: PostgresDatabase;
  /** Close the handle when the store closes (default false: whoever opened it closes it). */
  readonly closeDatabase?: boolean | undefined;
  readonly clock?: Clock | undefined;
  /** Makes session ids (default `ses_` and 16 random hex digits). */
  readonly generateId?: (() => string) | undefined;
}

const DEFAULT_LIST_LIMIT = 50;
const UNIQUE_VIOLATION = '23505';

/**
 * Sessions in PostgreSQL, with the SQLite store's rules: each turn is one row written in a transaction that
 * locks the session row and raises its count, so writers on any machine appending to one session each get
 * their own `seq`, and a turn is there whole or not at all.
 */
export class PostgresSessionStore implements SessionStore {
  readonly location: string;
  readonly #db: PostgresDatabase;
  readonly #closeDatabase: boolean;
  readonly #clock: Clock;
  readonly #generateId: () => string;
  #closed = false;

  private constructor(options: PostgresSessionStoreOptions) {
    this.location = options.database.location;
    this.#db = options.database;
    this.#closeDatabase = options.closeDatabase ?? false;
    this.#clock = options.clock ?? systemClock;
    this.#generateId = options.generateId ?? newSessionId;
  }

  /** Brings the sessions tables up to date (refusing newer ones) and returns the store. */
  static async open(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    try {
      await migrate(options.database, SESSIONS_MIGRATIONS);
    } catch (error) {
      if (StorageError.is(error, 'storage_schema_incompatible')) {
        throw databaseIncompatibleError('sessions', options.database.location, error.message);
      }
      throw error;
    }
    return new PostgresSessionStore(options);
  }

  async create(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    const name = checkSessionName(options.name);
    this.#open();
    const nowMs = Math.floor(this.#clock.nowMs());
    const rows = await this.#unique(name, () =>
      this.#db.query<SessionRow>(
        `INSERT INTO jarvis_sessions (id, name, created_ms, updated_ms) VALUES ($1, $2, $3, $3)
         RETURNING ${SESSION_COLUMNS}`,
        [this.#generateId(), name ?? null, nowMs],
      ),
    );
    return toSessionInfo(this.#first(rows, ''));
  }

  async find(idOrName: string): Promise<SessionInfo | undefined> {
    this.#open();
    const rows = await this.#db.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM jarvis_sessions WHERE id = $1 OR name = $1
       ORDER BY (id = $1) DESC LIMIT 1`,
      [idOrName],
    );
    return rows[0] === undefined ? undefined : toSessionInfo(rows[0]);
  }

  async latest(): Promise<SessionInfo | undefined> {
    return (await this.list({ limit: 1 }))[0];
  }

  async list(options: ListSessionsOptions = {}): Promise<readonly SessionInfo[]> {
    this.#open();
    const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_LIST_LIMIT));
    const rows = await this.#db.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM jarvis_sessions ORDER BY updated_ms DESC, position DESC LIMIT $1`,
      [limit],
    );
    return rows.map(toSessionInfo);
  }

  async rename(id: string, name: string | undefined): Promise<SessionInfo> {
    const checked = checkSessionName(name);
    this.#open();
    const rows = await this.#unique(checked, () =>
      this.#db.query<SessionRow>(
        `UPDATE jarvis_sessions SET name = $2 WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
        [id, checked ?? null],
      ),
    );
    return toSessionInfo(this.#first(rows, id));
  }

  async remove(id: string): Promise<boolean> {
    this.#open();
    const rows = await this.#db.query('DELETE FROM jarvis_sessions WHERE id = $1 RETURNING id', [
      id,
    ]);
    return rows.length > 0;
  }

  async appendTurn(id: string, turn: NewSessionTurn): Promise<SessionTurn> {
    const checked = checkNewTurn(turn);
    const text = encodeMessages(checked.messages);
    this.#open();
    const seq = await this.#db.transaction(async (tx) => {
      const rows = await tx.query<{ turn_count: number; title: string }>(
        'SELECT turn_count, title FROM jarvis_sessions WHERE id = $1 FOR UPDATE',
        [id],
      );
      const row = this.#first(rows, id);
      const next = Number(row.turn_count) + 1;
      await insertTurn(tx, id, next, text, checked);
      const title = row.title === '' ? titleOf(checked.messages) : row.title;
      await tx.query(
        `UPDATE jarvis_sessions SET turn_count = $2, updated_ms = GREATEST(updated_ms, $3), title = $4
         WHERE id = $1`,
        [id, next, Math.floor(checked.endedMs), title],
      );
      return next;
    });
    return { ...checked, seq };
  }

  async turns(id: string, options: SessionTurnsOptions = {}): Promise<readonly SessionTurn[]> {
    this.#open();
    const afterSeq = Math.floor(options.afterSeq ?? 0);
    const [exists, rows] = await this.#db.transaction(async (tx) => [
      await tx.query('SELECT 1 FROM jarvis_sessions WHERE id = $1', [id]),
      await tx.query<TurnRow>(
        `SELECT ${TURN_COLUMNS} FROM jarvis_session_turns WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
        [id, afterSeq],
      ),
    ]);
    if (exists.length === 0) throw noSessionError(id);
    return rows.map((row) => this.#turn(id, row));
  }

  async setSummary(id: string, summary: SessionSummary): Promise<void> {
    this.#open();
    const updated = await this.#db.query(
      `UPDATE jarvis_sessions SET summary_text = $2, summary_through = $3, summary_ms = $4
       WHERE id = $1 AND COALESCE(summary_through, 0) <= $3 RETURNING id`,
      [id, summary.text, Math.floor(summary.throughSeq), Math.floor(summary.updatedMs)],
    );
    if (updated.length > 0) return;
    const exists = await this.#db.query('SELECT 1 FROM jarvis_sessions WHERE id = $1', [id]);
    if (exists.length === 0) throw noSessionError(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#closeDatabase) await this.#db.close();
  }

  /** Runs a write that sets `name`; a name another session holds is the store's "already exists" error. */
  async #unique<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (
        name !== undefined &&
        error instanceof StorageError &&
        error.sqlState === UNIQUE_VIOLATION
      ) {
        throw nameTakenError(name);
      }
      throw error;
    }
  }

  #first<T>(rows: readonly T[], id: string): T {
    const row = rows[0];
    if (row === undefined) throw noSessionError(id);
    return row;
  }

  #turn(id: string, row: TurnRow): SessionTurn {
    try {
      return toSessionTurn(row);
    } catch (error) {
      throw databaseIncompatibleError(
        'sessions',
        this.location,
        `turn ${row.seq} of session ${id} cannot be read (${(error as Error).message})`,
      );
    }
  }

  #open(): void {
    if (this.#closed) {
      throw new JarvisError({
        code: 'sessions_store_closed',
        message: `the sessions store ${this.location} is closed`,
      });
    }
  }
}

async function insertTurn(
  tx: PostgresQueryable,
  id: string,
  seq: number,
  messages: string,
  turn: NewSessionTurn,
): Promise<void> {
  await tx.query(
    `INSERT INTO jarvis_session_turns (session_id, seq, messages, agent, model, engine, prompt_tokens,
       completion_tokens, total_tokens, status, started_ms, ended_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      seq,
      messages,
      turn.agent,
      turn.model,
      turn.engine,
      Math.floor(turn.usage.promptTokens),
      Math.floor(turn.usage.completionTokens),
      Math.floor(turn.usage.totalTokens),
      turn.status,
      Math.floor(turn.startedMs),
      Math.floor(turn.endedMs),
    ],
  );
}
