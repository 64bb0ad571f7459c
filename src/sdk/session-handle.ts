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
 * history; the session is found (or started) on first use and kept in the sessions store.
 */
export class SessionHandle {
  readonly #system: () => Promise<JarvisSystem>;
  readonly #idOrName: string | undefined;
  #session: Promise<SessionInfo> | undefined;

  constructor(system: () => Promise<JarvisSystem>, idOrName?: string) {
    this.#system = system;
    this.#idOrName = idOrName;
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
    const run = await system.runInSession(id, query, options);
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
    yield* system.streamInSession(id, query, options);
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
    this.#session ??= this.#system().then((system) => system.openSession(this.#idOrName));
    this.#session.catch(() => {
      this.#session = undefined;
    });
    return this.#session;
  }
}
