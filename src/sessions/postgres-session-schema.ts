import type { MigrationPlan } from '../storage/index.js';

/**
 * The sessions tables in PostgreSQL, by version (append only). The columns are the SQLite store's, so both
 * read their rows with the same code; `position` orders sessions updated in the same millisecond.
 */
export const SESSIONS_MIGRATIONS: MigrationPlan = {
  store: 'sessions',
  migrations: [
    `CREATE TABLE jarvis_sessions (
       id text PRIMARY KEY,
       name text UNIQUE,
       title text NOT NULL DEFAULT '',
       turn_count integer NOT NULL DEFAULT 0,
       created_ms bigint NOT NULL,
       updated_ms bigint NOT NULL,
       summary_text text,
       summary_through integer,
       summary_ms bigint,
       position bigserial NOT NULL
     );
     CREATE INDEX jarvis_sessions_updated_index ON jarvis_sessions (updated_ms DESC, position DESC);
     CREATE TABLE jarvis_session_turns (
       session_id text NOT NULL REFERENCES jarvis_sessions (id) ON DELETE CASCADE,
       seq integer NOT NULL,
       messages text NOT NULL,
       agent text NOT NULL,
       model text NOT NULL,
       engine text NOT NULL,
       prompt_tokens integer NOT NULL DEFAULT 0,
       completion_tokens integer NOT NULL DEFAULT 0,
       total_tokens integer NOT NULL DEFAULT 0,
       status text NOT NULL,
       started_ms bigint NOT NULL,
       ended_ms bigint NOT NULL,
       PRIMARY KEY (session_id, seq)
     )`,
  ],
};

/** The columns of a session row. */
export const SESSION_COLUMNS =
  'id, name, title, turn_count, created_ms, updated_ms, summary_text, summary_through, summary_ms';

/** The columns a turn is read from. */
export const TURN_COLUMNS =
  'seq, messages, agent, model, engine, prompt_tokens, completion_tokens, total_tokens, status, started_ms, ended_ms';
