import type { Clock, InferenceEngine, Message, OpenAIFunctionTool } from '../core/index.js';
import {
  type FitHistoryRequest,
  fitHistory,
  type HistoryFit,
  TurnTokenCache,
} from './history-fit.js';
import { noSessionError } from './session-checks.js';
import type { SessionStore } from './session-store.js';
import type { SessionSummary, SessionTurn } from './session-types.js';
import { foldTurns } from './summarize.js';
import type { TokenCounter } from './token-count.js';

/** What `prepareTurnHistory` needs besides the store and the session. */
export interface PrepareTurnHistoryOptions {
  readonly systemPrompt?: string | undefined;
  readonly tools?: readonly OpenAIFunctionTool[] | undefined;
  /** Injected memory context, sent after the system prompt. */
  readonly memoryMessages?: readonly Message[] | undefined;
  /** The new input (the user message). */
  readonly input: readonly Message[];
  /** The model's context window in tokens. */
  readonly contextTokens: number;
  /** Tokens kept free for the answer (and the run's own tool calls and results). */
  readonly answerTokens: number;
  /** The engine's tokenizer where it has one, else a (calibrated) estimate. */
  readonly counter: TokenCounter;
  /** The session's engine and model, which also write the summary. */
  readonly engine: InferenceEngine;
  readonly model: string;
  /** Bound of the summary message (default an eighth of the context, between 64 and 1024). */
  readonly maxSummaryTokens?: number | undefined;
  /** When folding, keep newest turns up to this share of the history budget (default 0.6); see `fitHistory`. */
  readonly foldToFraction?: number | undefined;
  /** Remembers turns already read and their counts across turns, so a long session costs little per turn. */
  readonly cache?: SessionHistoryCache | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly clock?: Clock | undefined;
}

/** What happened to the history of a turn, for `--json`, `/sessions` and a line the person sees. */
export interface HistoryReport {
  /** Turns sent whole. */
  readonly keptTurns: number;
  /** Turns folded into the summary during this call. */
  readonly foldedTurns: number;
  /** Turns left out without being summarized (the summarizer failed, or the summary did not fit). */
  readonly droppedTurns: number;
  readonly summaryUpdated: boolean;
  /** The summary sent covers turns 1 to this `seq` (0: no summary sent). */
  readonly summaryThroughSeq: number;
  /** Why summarizing failed, when it did. */
  readonly summaryError: string | undefined;
  /** Whether the newest stored turn alone did not fit (it was folded too). */
  readonly newestTurnTooLarge: boolean;
  /** Counted tokens of the whole prompt (system prompt, tools, memory context, history and input). */
  readonly promptTokens: number;
  readonly contextTokens: number;
  readonly answerTokens: number;
  /** Whether prompt plus answer reserve fit the context (false only when the fixed parts alone are too large). */
  readonly fits: boolean;
}

/** The history to send and what was done to it. */
export interface PreparedHistory {
  /** After the system prompt and memory context, before the input: the summary message, then the kept turns. */
  readonly messages: readonly Message[];
  readonly report: HistoryReport;
}

/** One session's cached turns (after its summary), the last `seq` read, and their token counts. */
export interface SessionState {
  turns: readonly SessionTurn[];
  lastSeq: number;
  readonly counts: TurnTokenCache;
}

/** Sessions whose turns a `SessionHistoryCache` keeps at most (the least recently used is forgotten). */
const CACHED_SESSIONS = 16;

/**
 * Turns already read and their token counts, per session, kept between turns: a repeat turn reads only the turns
 * written since (by this process or another) and counts only those.
 */
export class SessionHistoryCache {
  readonly #sessions = new Map<string, SessionState>();

  /** The state of one session (created empty), marked most recently used. */
  session(sessionId: string): SessionState {
    let state = this.#sessions.get(sessionId);
    if (state === undefined) {
      state = { turns: [], lastSeq: 0, counts: new TurnTokenCache() };
      if (this.#sessions.size >= CACHED_SESSIONS) {
        const oldest = this.#sessions.keys().next().value;
        if (oldest !== undefined) this.#sessions.delete(oldest);
      }
    } else this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, state);
    return state;
  }

  /** Forgets a session (after it was removed). */
  forget(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }
}

/**
 * Prepares a turn's history: reads the session's turns after its summary, fits them into the model's context,
 * folds the oldest turns that do not fit into the running summary (written by the session's model and stored),
 * fits again, and reports what happened. A summarizer failure does not stop the turn: the turns it could not
 * fold are left out (and tried again next turn), which the report says.
 */
export async function prepareTurnHistory(
  store: SessionStore,
  sessionId: string,
  options: PrepareTurnHistoryOptions,
): Promise<PreparedHistory> {
  const info = await store.find(sessionId);
  if (info === undefined) throw noSessionError(sessionId);
  const state = (options.cache ?? new SessionHistoryCache()).session(info.id);
  const turns = await readTurns(store, info.id, info.summary, state);
  const request = fitRequest(options, state);
  const fit = await fitHistory({ ...request, summary: info.summary, turns });
  if (fit.foldTurns.length === 0) {
    return { messages: fit.messages, report: reportOf(fit, options, info.summary, 0, 0, false) };
  }
  return foldAndRefit(store, info.id, { options, state, request, fit, summary: info.summary });
}

/** The session's turns after its summary: the cached ones plus those written since. */
async function readTurns(
  store: SessionStore,
  sessionId: string,
  summary: SessionSummary | undefined,
  state: SessionState,
): Promise<readonly SessionTurn[]> {
  const through = summary?.throughSeq ?? 0;
  const fresh = await store.turns(sessionId, { afterSeq: Math.max(through, state.lastSeq) });
  const kept = state.turns.filter((turn) => turn.seq > through);
  const answered = fresh.filter(hasAnswer);
  const turns =
    answered.length === 0 && kept.length === state.turns.length
      ? state.turns
      : [...kept, ...answered];
  state.turns = turns;
  state.lastSeq = Math.max(state.lastSeq, through, fresh.at(-1)?.seq ?? 0, turns.at(-1)?.seq ?? 0);
  return turns;
}

/**
 * Whether a turn holds an assistant message: a turn that failed before any answer adds nothing the model could
 * follow on from (and a question without its answer would leave two user messages in a row), so it is not sent.
 */
export function hasAnswer(turn: SessionTurn): boolean {
  return turn.messages.some((message) => message.role === 'assistant');
}

/** The parts of a fit request that stay the same for the first fit and the refit. */
type BaseFitRequest = Omit<FitHistoryRequest, 'summary' | 'turns'>;

function fitRequest(options: PrepareTurnHistoryOptions, state: SessionState): BaseFitRequest {
  return {
    systemPrompt: options.systemPrompt,
    tools: options.tools,
    memoryMessages: options.memoryMessages,
    input: options.input,
    contextTokens: options.contextTokens,
    answerTokens: options.answerTokens,
    counter: options.counter,
    summaryReserveTokens: maxSummaryTokensOf(options),
    foldToFraction: options.foldToFraction,
    cache: state.counts,
  };
}

/** The summary bound: as configured, else an eighth of the context between 64 and 1024 tokens. */
function maxSummaryTokensOf(options: PrepareTurnHistoryOptions): number {
  const configured = options.maxSummaryTokens;
  if (configured !== undefined && Number.isFinite(configured) && configured > 0) {
    return Math.floor(configured);
  }
  return Math.min(1024, Math.max(64, Math.floor(options.contextTokens / 8)));
}

interface FoldStep {
  readonly options: PrepareTurnHistoryOptions;
  readonly state: SessionState;
  readonly request: BaseFitRequest;
  readonly fit: HistoryFit;
  readonly summary: SessionSummary | undefined;
}

/** Folds the turns that did not fit, stores the new summary, and fits the rest beside it. */
async function foldAndRefit(
  store: SessionStore,
  sessionId: string,
  step: FoldStep,
): Promise<PreparedHistory> {
  const { options, state, fit } = step;
  const outcome = await foldTurns({
    engine: options.engine,
    model: options.model,
    previous: step.summary,
    turns: fit.foldTurns,
    maxSummaryTokens: maxSummaryTokensOf(options),
    counter: options.counter,
    contextTokens: options.contextTokens,
    signal: options.signal,
    clock: options.clock,
  });
  const updated = outcome.summary !== undefined && outcome.summary !== step.summary;
  if (updated && outcome.summary !== undefined) await store.setSummary(sessionId, outcome.summary);
  const summary = updated ? outcome.summary : step.summary;
  const through = summary?.throughSeq ?? 0;
  state.turns = state.turns.filter((turn) => turn.seq > through);
  state.counts.forgetThrough(through);
  const folded = fit.foldTurns.filter((turn) => turn.seq <= through).length;
  const refit = await fitHistory({
    ...step.request,
    summary,
    turns: fit.keptTurns,
    foldToFraction: 1,
  });
  const dropped = fit.foldTurns.length - folded + refit.foldTurns.length;
  const error = outcome.ok ? undefined : outcome.error.message;
  return {
    messages: refit.messages,
    report: {
      ...reportOf(refit, options, summary, folded, dropped, updated),
      summaryError: error,
      newestTurnTooLarge: fit.newestTurnTooLarge || refit.newestTurnTooLarge,
    },
  };
}

function reportOf(
  fit: HistoryFit,
  options: PrepareTurnHistoryOptions,
  summary: SessionSummary | undefined,
  foldedTurns: number,
  droppedTurns: number,
  summaryUpdated: boolean,
): HistoryReport {
  return {
    keptTurns: fit.keptTurns.length,
    foldedTurns,
    droppedTurns,
    summaryUpdated,
    summaryThroughSeq: summary === undefined || fit.summaryOmitted ? 0 : summary.throughSeq,
    summaryError: undefined,
    newestTurnTooLarge: fit.newestTurnTooLarge,
    promptTokens: fit.promptTokens,
    contextTokens: Math.floor(options.contextTokens),
    answerTokens: Math.max(0, Math.floor(options.answerTokens)),
    fits: fit.fits,
  };
}

/** A line telling the person what happened to the history, or `undefined` when every turn was sent whole. */
export function describeHistoryReport(report: HistoryReport): string | undefined {
  const parts: string[] = [];
  if (report.foldedTurns > 0) {
    parts.push(`${plural(report.foldedTurns, 'older turn')} folded into the session summary`);
  }
  if (report.droppedTurns > 0) {
    const why =
      report.summaryError === undefined ? '' : ` (summarizing failed: ${report.summaryError})`;
    parts.push(`${plural(report.droppedTurns, 'older turn')} left out without a summary${why}`);
  }
  if (!report.fits) parts.push('the prompt is larger than the context even without history');
  if (parts.length === 0) return undefined;
  const size = `${report.promptTokens} + ${report.answerTokens} of ${report.contextTokens} tokens`;
  return `History: ${parts.join('; ')}; kept ${plural(report.keptTurns, 'turn')} (${size}).`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
