import type { AgentStreamEvent, Message } from '../core/index.js';
import type {
  JarvisSystem,
  SessionHistoryReport,
  SessionInfo,
  SessionTurn,
} from '../system/index.js';
import { type AskOptions, type AskResult, requireQuery, toAskResult } from './ask-result.js';

/** What a session's `askFull` returns: the answer as `Jarvis.askFull` gives it, and the turn it became. */
export interface SessionAskResult extends AskResult {
  /** The session after the turn (its id, name, turn count, summary). */
  readonly session: SessionInfo;
  /** The stored turn's position in the session, from 1. */
  readonly turn: number;
  /** How the history was fitted into the model's context for this turn. */
  readonly history: SessionHistoryReport;
}

/**
 * A conversation of `Jarvis.session()`: each question is the session's next turn, sent with the earlier turns as
 * history; the session is found (or started) on first use and kept in the sessions store. A session this handle
 * started is removed again when its first question fails before anything could be stored (no engine, say), so a
 * failed start leaves no empty session behind; the next question starts it anew.
 */
export class SessionHandle {
  readonly #system: () => Promise<JarvisSystem>;
  readonly #idOrName: string | undefined;
  #session: Promise<SessionInfo> | undefined;
  #id: string | undefined;
  /** This handle started the session and none of its turns has been stored yet. */
  #unused = false;

  constructor(system: () => Promise<JarvisSystem>, idOrName?: string) {
    this.#system = system;
    this.#idOrName = idOrName;
  }

  /** The session's id once it is found or started; undefined before the first use. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The session as stored now (found or started on first use). */
  async info(): Promise<SessionInfo> {
    const { id } = await this.#open();
    const system = await this.#system();
    return (await system.sessions().find(id)) ?? (await this.#open());
  }

  /** Asks the next question of the conversation and returns the answer text. */
  async ask(query: string, options: AskOptions = {}): Promise<string> {
    return (await this.askFull(query, options)).content;
  }

  /** Asks the next question and returns the answer with the stored turn and the history report. */
  async askFull(query: string, options: AskOptions = {}): Promise<SessionAskResult> {
    requireQuery(query);
    const { id } = await this.#open();
    const system = await this.#system();
    const run = await system.runInSession(id, query, options).catch(async (error: unknown) => {
      await this.#discardIfUnused(system, id);
      throw error;
    });
    this.#unused = false;
    return {
      ...toAskResult(run),
      session: run.session,
      turn: run.turn.seq,
      history: run.history,
    };
  }

  /** Asks the next question and yields the agent's events; the turn is stored before the `result` event. */
  async *stream(query: string, options: AskOptions = {}): AsyncGenerator<AgentStreamEvent> {
    requireQuery(query);
    const { id } = await this.#open();
    const system = await this.#system();
    try {
      yield* system.streamInSession(id, query, options);
    } catch (error) {
      await this.#discardIfUnused(system, id);
      throw error;
    }
    this.#unused = false;
  }

  /** Every message of the conversation so far, oldest first (the questions, answers, tool calls and results). */
  async history(): Promise<readonly Message[]> {
    return (await this.turns()).flatMap((turn) => turn.messages);
  }

  /** The stored turns, oldest first, with agent, model, engine, usage and status. */
  async turns(): Promise<readonly SessionTurn[]> {
    const { id } = await this.#open();
    const system = await this.#system();
    return system.sessions().turns(id);
  }

  #open(): Promise<SessionInfo> {
    this.#session ??= this.#system()
      .then((system) => system.findOrStartSession(this.#idOrName))
      .then(({ session, started }) => {
        this.#id = session.id;
        this.#unused = started;
        return session;
      });
    this.#session.catch(() => {
      this.#session = undefined;
    });
    return this.#session;
  }

  /**
   * After a failed question: removes the session when this handle started it and it still holds no turn (the
   * run failed before one could be stored), so the next question starts a new one.
   */
  async #discardIfUnused(system: JarvisSystem, id: string): Promise<void> {
    if (!this.#unused) return;
    this.#unused = false;
    const store = system.sessions();
    const stored = await store.find(id).catch(() => undefined);
    if (stored === undefined || stored.turnCount > 0) return;
    await store.remove(id).catch(() => undefined);
    this.#session = undefined;
    this.#id = undefined;
  }
}
