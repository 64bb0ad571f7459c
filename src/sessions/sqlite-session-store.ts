import type Database from 'better-sqlite3';
import { type Clock, databaseIncompatibleError, JarvisError, systemClock } from '../core/index.js';
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
import { openSessionsDatabase, type SqliteDatabase } from './sqlite-session-schema.js';

/** Options of a `SqliteSessionStore`. */
export interface SqliteSessionStoreOptions {
  /** The database file (created with its folders when missing), or `:memory:`. */
  readonly dbPath: string;
  /** How long a write waits for another process's write to finish (default 5000 ms). */
  readonly busyTimeoutMs?: number;
  readonly clock?: Clock;
  /** Makes session ids (default `ses_` and 16 random hex digits). */
  readonly generateId?: () => string;
}

const DEFAULT_LIST_LIMIT = 50;
/** The columns a turn is read from (not the session id the query already names). */
const TURN_COLUMNS =
  'seq, messages, agent, model, engine, prompt_tokens, completion_tokens, total_tokens, status, started_ms, ended_ms';

/**
 * Sessions in a SQLite file: each turn is one row written in a `BEGIN IMMEDIATE` transaction together with the
 * session's count, so a process killed mid-turn leaves the previous turn last and two processes appending to one
 * session each get their own `seq`.
 */
export class SqliteSessionStore implements SessionStore {
  readonly location: string;
  readonly #db: SqliteDatabase;
  readonly #clock: Clock;
  readonly #generateId: () => string;
  readonly #statements = new Map<string, Database.Statement>();
  #closed = false;

  constructor(options: SqliteSessionStoreOptions) {
    this.location = options.dbPath;
    this.#db = openSessionsDatabase(options.dbPath, options.busyTimeoutMs ?? 5_000);
    this.#clock = options.clock ?? systemClock;
    this.#generateId = options.generateId ?? newSessionId;
  }

  async create(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    const name = checkSessionName(options.name);
    const nowMs = this.#clock.nowMs();
    const id = this.#generateId();
    this.#write(() => {
      if (name !== undefined && this.#row('name', name) !== undefined) throw nameTakenError(name);
      this.#sql('INSERT INTO sessions (id, name, created_ms, updated_ms) VALUES (?, ?, ?, ?)').run(
        id,
        name ?? null,
        nowMs,
        nowMs,
      );
    });
    return this.#info(id);
  }

  async find(idOrName: string): Promise<SessionInfo | undefined> {
    this.#open();
    const row = this.#row('id', idOrName) ?? this.#row('name', idOrName);
    return row === undefined ? undefined : toSessionInfo(row);
  }

  async latest(): Promise<SessionInfo | undefined> {
    return (await this.list({ limit: 1 }))[0];
  }

  async list(options: ListSessionsOptions = {}): Promise<readonly SessionInfo[]> {
    this.#open();
    const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_LIST_LIMIT));
    const rows = this.#sql(
      'SELECT * FROM sessions ORDER BY updated_ms DESC, rowid DESC LIMIT ?',
    ).all(limit) as SessionRow[];
    return rows.map(toSessionInfo);
  }

  async rename(id: string, name: string | undefined): Promise<SessionInfo> {
    const checked = checkSessionName(name);
    this.#write(() => {
      if (this.#row('id', id) === undefined) throw noSessionError(id);
      const holder = checked === undefined ? undefined : this.#row('name', checked);
      if (checked !== undefined && holder !== undefined && holder.id !== id) {
        throw nameTakenError(checked);
      }
      this.#sql('UPDATE sessions SET name = ? WHERE id = ?').run(checked ?? null, id);
    });
    return this.#info(id);
  }

  async remove(id: string): Promise<boolean> {
    return this.#write(() => this.#sql('DELETE FROM sessions WHERE id = ?').run(id).changes > 0);
  }

  async appendTurn(id: string, turn: NewSessionTurn): Promise<SessionTurn> {
    const checked = checkNewTurn(turn);
    const text = encodeMessages(checked.messages);
    const seq = this.#write(() => {
      const row = this.#row('id', id);
      if (row === undefined) throw noSessionError(id);
      const next = Number(row.turn_count) + 1;
      this.#insertTurn(id, next, text, checked);
      const title = row.title === '' ? titleOf(checked.messages) : row.title;
      this.#sql(
        'UPDATE sessions SET turn_count = ?, updated_ms = MAX(updated_ms, ?), title = ? WHERE id = ?',
      ).run(next, checked.endedMs, title, id);
      return next;
    });
    return { ...checked, seq };
  }

  async turns(id: string, options: SessionTurnsOptions = {}): Promise<readonly SessionTurn[]> {
    this.#open();
    if (this.#row('id', id) === undefined) throw noSessionError(id);
    const rows = this.#sql(
      `SELECT ${TURN_COLUMNS} FROM session_turns WHERE session_id = ? AND seq > ? ORDER BY seq`,
    ).all(id, Math.floor(options.afterSeq ?? 0)) as TurnRow[];
    return rows.map((row) => this.#turn(id, row));
  }

  async setSummary(id: string, summary: SessionSummary): Promise<void> {
    this.#write(() => {
      const row = this.#row('id', id);
      if (row === undefined) throw noSessionError(id);
      if ((row.summary_through ?? 0) > summary.throughSeq) return;
      this.#sql(
        'UPDATE sessions SET summary_text = ?, summary_through = ?, summary_ms = ? WHERE id = ?',
      ).run(summary.text, Math.floor(summary.throughSeq), Math.floor(summary.updatedMs), id);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #insertTurn(id: string, seq: number, messages: string, turn: NewSessionTurn): void {
    this.#sql(
      `INSERT INTO session_turns (session_id, seq, messages, agent, model, engine, prompt_tokens,
         completion_tokens, total_tokens, status, started_ms, ended_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
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
    );
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

  #info(id: string): SessionInfo {
    const row = this.#row('id', id);
    if (row === undefined) throw noSessionError(id);
    return toSessionInfo(row);
  }

  #row(column: 'id' | 'name', value: string): SessionRow | undefined {
    return this.#sql(`SELECT * FROM sessions WHERE ${column} = ?`).get(value) as
      | SessionRow
      | undefined;
  }

  #write<T>(fn: () => T): T {
    this.#open();
    return this.#db.transaction(fn).immediate();
  }

  #open(): void {
    if (this.#closed) {
      throw new JarvisError({
        code: 'sessions_store_closed',
        message: `the sessions store ${this.location} is closed`,
      });
    }
  }

  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
