import type {
  CreateSessionOptions,
  ListSessionsOptions,
  NewSessionTurn,
  SessionInfo,
  SessionSummary,
  SessionTurn,
  SessionTurnsOptions,
} from './session-types.js';

/**
 * Durable conversations: sessions, their turns in order, and each session's running summary. Every method is
 * async so a networked database can stand behind it; a turn is written whole or not at all, and two writers
 * appending to one session at once both keep their turn (each gets its own `seq`).
 */
export interface SessionStore {
  /** Where the sessions live (a file path, `:memory:`, or a database URL without its password). */
  readonly location: string;
  /** Starts a session; a name already taken is a `JarvisError` (`invalid_argument`) naming it. */
  create(options?: CreateSessionOptions): Promise<SessionInfo>;
  /** The session with this id, else the one with this name, else `undefined`. */
  find(idOrName: string): Promise<SessionInfo | undefined>;
  /** The most recently updated session, if any. */
  latest(): Promise<SessionInfo | undefined>;
  /** Sessions, most recently updated first. */
  list(options?: ListSessionsOptions): Promise<readonly SessionInfo[]>;
  /** Gives a session a (new) name, or removes it with `undefined`; returns the updated session. */
  rename(id: string, name: string | undefined): Promise<SessionInfo>;
  /** Deletes a session and its turns; false when there was none with this id. */
  remove(id: string): Promise<boolean>;
  /** Appends a turn atomically (tool calls paired first) and returns it with its `seq`. */
  appendTurn(id: string, turn: NewSessionTurn): Promise<SessionTurn>;
  /** The session's turns in order. */
  turns(id: string, options?: SessionTurnsOptions): Promise<readonly SessionTurn[]>;
  /** Replaces the running summary; one that covers fewer turns than the stored one is ignored. */
  setSummary(id: string, summary: SessionSummary): Promise<void>;
  /** Closes the connection; later calls fail. Calling it twice is harmless. */
  close(): Promise<void>;
}
