import type { Message } from '../core/index.js';
import { type SessionStore, type SessionTurn, SqliteSessionStore } from '../sessions/index.js';
import type { JarvisConfig } from './config/index.js';
import type { PreparedHistory } from './session-turn.js';

/** The sessions store the config names (SQLite in the home folder by default). */
export function openSessionStore(config: JarvisConfig): SessionStore {
  return new SqliteSessionStore({ dbPath: config.sessions.dbPath });
}

/**
 * The whole history after the running summary: the summary first, then every turn that got an answer (a turn
 * that failed before any assistant message adds nothing the model could continue from).
 */
export async function wholeSessionHistory(
  store: SessionStore,
  sessionId: string,
): Promise<PreparedHistory> {
  const session = await store.find(sessionId);
  const summary = session?.summary;
  const turns = await store.turns(sessionId, { afterSeq: summary?.throughSeq ?? 0 });
  const answered = turns.filter(hasAnswer);
  const messages: Message[] = [];
  if (summary !== undefined) {
    messages.push({
      role: 'user',
      content: `Summary of our conversation so far:\n${summary.text}`,
    });
    messages.push({ role: 'assistant', content: 'Understood.' });
  }
  for (const turn of answered) messages.push(...turn.messages);
  return {
    messages,
    report: {
      keptTurns: answered.length,
      foldedTurns: summary?.throughSeq ?? 0,
      summaryUpdated: false,
      promptTokens: undefined,
      contextTokens: undefined,
    },
  };
}

/** Whether a turn holds an assistant message (what the next turn can follow on from). */
export function hasAnswer(turn: SessionTurn): boolean {
  return turn.messages.some((message) => message.role === 'assistant');
}
