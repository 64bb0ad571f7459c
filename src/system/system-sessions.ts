import { toOpenAIFunction } from '../core/index.js';
import {
  estimateCounter,
  prepareTurnHistory,
  SessionHistoryCache,
  type SessionStore,
  SqliteSessionStore,
  type TokenCounter,
} from '../sessions/index.js';
import type { JarvisConfig } from './config/index.js';
import type { HistoryPreparer } from './session-turn.js';

/** The context window assumed when neither the config nor the engine tells it: small, so history fits anywhere. */
export const DEFAULT_CONTEXT_TOKENS = 8192;

/** The sessions store the config names (SQLite in the home folder by default). */
export function openSessionStore(config: JarvisConfig): SessionStore {
  return new SqliteSessionStore({ dbPath: config.sessions.dbPath });
}

/**
 * How a system prepares each session turn's history: the turns after the running summary, fitted into the
 * model's context (`[sessions] context_tokens`, default 8192) with room for the answer, the oldest folded into
 * the summary by the same model. One cache per system keeps a long session's turns and counts between turns.
 */
export function sessionHistoryPreparer(
  store: SessionStore,
  config: JarvisConfig,
  counter: TokenCounter = estimateCounter,
): HistoryPreparer {
  const cache = new SessionHistoryCache();
  return (sessionId, run, query, request) =>
    prepareTurnHistory(store, sessionId, {
      systemPrompt: request.systemPrompt ?? config.agent.systemPrompt,
      tools: run.tools.map((tool) => toOpenAIFunction(tool.spec)),
      memoryMessages: run.context.conversation.messages,
      input: [{ role: 'user', content: query }],
      contextTokens: config.sessions.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
      answerTokens: request.maxTokens ?? config.sessions.answerTokens,
      counter,
      engine: run.engine.engine,
      model: run.engine.model,
      cache,
      signal: request.signal,
    });
}
