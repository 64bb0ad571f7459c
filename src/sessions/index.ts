export {
  type FitHistoryRequest,
  fitHistory,
  type HistoryFit,
  SUMMARY_PREFIX,
  summaryMessage,
  TurnTokenCache,
} from './history-fit.js';
export {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js';
export { checkSessionName, isSessionId } from './session-checks.js';
export {
  describeHistoryReport,
  type HistoryReport,
  hasAnswer,
  type PreparedHistory,
  type PrepareTurnHistoryOptions,
  prepareTurnHistory,
  SessionHistoryCache,
  type SessionState,
} from './session-history.js';
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
export {
  type FoldOutcome,
  type FoldTurnsOptions,
  foldTurns,
  SUMMARY_INSTRUCTION,
} from './summarize.js';
export {
  CalibratedCounter,
  type CalibratedCounterOptions,
  estimateCounter,
  estimateMessageTokens,
  estimateTokens,
  estimateToolTokens,
  type TokenCounter,
} from './token-count.js';
export { isPaired, MISSING_RESULT_TEXT, pairToolCalls } from './tool-pairing.js';
