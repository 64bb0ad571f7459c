export { isSessionId } from './session-checks.js';
export type { SessionStore } from './session-store.js';
export type {
  CreateSessionOptions,
  ListSessionsOptions,
  NewSessionTurn,
  SessionInfo,
  SessionSummary,
  SessionTurn,
  SessionTurnStatus,
  SessionTurnsOptions,
} from './session-types.js';
export { SqliteSessionStore, type SqliteSessionStoreOptions } from './sqlite-session-store.js';
export { isPaired, MISSING_RESULT_TEXT, pairToolCalls } from './tool-pairing.js';
