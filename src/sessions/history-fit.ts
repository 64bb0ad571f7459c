import type { Message, OpenAIFunctionTool } from '../core/index.js';
import type { SessionSummary, SessionTurn } from './session-types.js';
import type { TokenCounter } from './token-count.js';

/** What `fitHistory` fits into a model's context. */
export interface FitHistoryRequest {
  /** The system prompt (omitted when empty). */
  readonly systemPrompt?: string | undefined;
  /** Tool definitions offered to the model. */
  readonly tools?: readonly OpenAIFunctionTool[] | undefined;
  /** Injected memory context, sent after the system prompt. */
  readonly memoryMessages?: readonly Message[] | undefined;
  /** The session's running summary (covers turns 1 to `throughSeq`). */
  readonly summary?: SessionSummary | undefined;
  /** The session's turns after the summary, oldest first. */
  readonly turns: readonly SessionTurn[];
  /** The new input (the user message). */
  readonly input: readonly Message[];
  /** The model's context window in tokens. */
  readonly contextTokens: number;
  /** Tokens kept free for the answer (and the run's own tool calls). */
  readonly answerTokens: number;
  readonly counter: TokenCounter;
  /**
   * Tokens to keep free for the summary when turns get folded (the summarizer's `maxSummaryTokens`), so the history
   * still fits once the longer summary replaces the folded turns. Default 0.
   */
  readonly summaryReserveTokens?: number | undefined;
  /**
   * When turns must be folded, keep newest turns only up to this share of the history budget (default 0.6), so
   * the next turns fit without folding (and calling the model) again at once. 1 folds only what does not fit.
   */
  readonly foldToFraction?: number | undefined;
  /** Remembers each turn's count (per session and counter) so a repeat turn counts only the new turns. */
  readonly cache?: TurnTokenCache | undefined;
}

/** What `fitHistory` decided. */
export interface HistoryFit {
  /** The history to send after the system prompt and memory context: the summary message, then the kept turns. */
  readonly messages: readonly Message[];
  /** The newest turns, whole, oldest first. */
  readonly keptTurns: readonly SessionTurn[];
  /** The oldest turns (a prefix of `turns`) that do not fit and should be folded into the summary. */
  readonly foldTurns: readonly SessionTurn[];
  /** Counted tokens of the whole prompt: system prompt, tools, memory context, history and input. */
  readonly promptTokens: number;
  /** Whether the newest turn alone did not fit (it is folded too). */
  readonly newestTurnTooLarge: boolean;
  /** Whether the summary message was left out because even it did not fit beside the fixed parts. */
  readonly summaryOmitted: boolean;
  /** Whether prompt plus answer reserve fit the context (false only when the fixed parts alone are too large). */
  readonly fits: boolean;
}

/** Introduces the summary message; the role is `system` (see `summaryMessage`). */
export const SUMMARY_PREFIX =
  'Summary of the earlier conversation (older turns were condensed to fit):\n';

/**
 * The summary as a message. Its role is `system`: it is context the application supplies, like injected memory,
 * not words of the person (a `user` message would be answered as a request, and two user messages in a row break
 * templates that require alternating roles); it sits right after the system prompt and memory context, before the
 * kept turns, where chat templates accept system messages.
 */
export function summaryMessage(summary: SessionSummary): Message {
  return { role: 'system', content: `${SUMMARY_PREFIX}${summary.text}` };
}

interface CachedCount {
  readonly fingerprint: number;
  readonly tokens: number;
}

/**
 * Token counts of one session's turns, by `seq` (checked against a cheap fingerprint of the turn), for one counter
 * at one `epoch`; a different counter or epoch starts it over. Also remembers the last tool list's count.
 */
export class TurnTokenCache {
  #counter: TokenCounter | undefined;
  #epoch: number | undefined;
  readonly #turns = new Map<number, CachedCount>();
  #tools: readonly OpenAIFunctionTool[] | undefined;
  #toolTokens = 0;

  /** How many turns' counts are held. */
  get size(): number {
    return this.#turns.size;
  }

  /** The turn's count, counted at most once while the counter stays the same. */
  turnTokens(counter: TokenCounter, turn: SessionTurn): Promise<number> | number {
    this.#use(counter);
    const fingerprint = fingerprintOf(turn);
    const cached = this.#turns.get(turn.seq);
    if (cached !== undefined && cached.fingerprint === fingerprint) return cached.tokens;
    return settle(counter.count(turn.messages, []), (tokens) => {
      this.#turns.set(turn.seq, { fingerprint, tokens });
      return tokens;
    });
  }

  /** The tool definitions' count, counted again only when another list (by identity) comes. */
  toolTokens(
    counter: TokenCounter,
    tools: readonly OpenAIFunctionTool[],
  ): Promise<number> | number {
    this.#use(counter);
    if (tools.length === 0) return 0;
    if (tools === this.#tools) return this.#toolTokens;
    return settle(counter.count([], tools), (tokens) => {
      this.#tools = tools;
      this.#toolTokens = tokens;
      return tokens;
    });
  }

  /** Forgets the counts of turns up to `seq` (folded into the summary). */
  forgetThrough(seq: number): void {
    for (const key of this.#turns.keys()) if (key <= seq) this.#turns.delete(key);
  }

  #use(counter: TokenCounter): void {
    if (counter === this.#counter && counter.epoch === this.#epoch) return;
    this.#counter = counter;
    this.#epoch = counter.epoch;
    this.#turns.clear();
    this.#tools = undefined;
  }
}

/** A number that changes when a stored turn with the same `seq` is a different turn. */
function fingerprintOf(turn: SessionTurn): number {
  let characters = turn.messages.length;
  for (const message of turn.messages) characters += message.content.length;
  return characters * 31 + turn.endedMs;
}

/** Applies `fn` to a value that may be a promise, staying synchronous when it is not. */
function settle<T, R>(value: Promise<T> | T, fn: (value: T) => R): Promise<R> | R {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

/**
 * Fits a turn's history into the model's context: counts the fixed parts (system prompt, tools, memory context,
 * input) and the summary, then keeps the newest turns whole while they fit beside them with room for the answer.
 * What falls out is always a prefix of whole turns, so a tool call never loses its result. When folding is
 * needed, room for the next summary is kept and the kept turns are trimmed to `foldToFraction` of the budget; the
 * newest turn is kept whenever it fits on its own.
 */
export async function fitHistory(request: FitHistoryRequest): Promise<HistoryFit> {
  const cache = request.cache ?? new TurnTokenCache();
  const fixedTokens = await countFixed(request, cache);
  const room = Math.floor(request.contextTokens) - Math.max(0, Math.floor(request.answerTokens));
  const summary = request.summary;
  const summaryMessages = summary === undefined ? [] : [summaryMessage(summary)];
  const summaryTokens =
    summaryMessages.length === 0 ? 0 : await request.counter.count(summaryMessages, []);
  const summaryOmitted = summaryTokens > 0 && fixedTokens + summaryTokens > room;
  const usedSummary = summaryOmitted ? 0 : summaryTokens;
  const turnTokens = await countTurns(request.turns, request.counter, cache);
  const plan = planKeep(request, turnTokens, room - fixedTokens, usedSummary);
  const keptTurns = request.turns.slice(plan.firstKept);
  const messages: Message[] = summaryOmitted ? [] : [...summaryMessages];
  for (const turn of keptTurns) messages.push(...turn.messages);
  const promptTokens = fixedTokens + usedSummary + plan.keptTokens;
  return {
    messages,
    keptTurns,
    foldTurns: request.turns.slice(0, plan.firstKept),
    promptTokens,
    newestTurnTooLarge: plan.newestTooLarge,
    summaryOmitted,
    fits: promptTokens <= room,
  };
}

/** Tokens of everything but the history: system prompt, memory context, input and tools. */
async function countFixed(request: FitHistoryRequest, cache: TurnTokenCache): Promise<number> {
  const messages: Message[] = [];
  if (request.systemPrompt) messages.push({ role: 'system', content: request.systemPrompt });
  messages.push(...(request.memoryMessages ?? []), ...request.input);
  const tools = await cache.toolTokens(request.counter, request.tools ?? []);
  return tools + (await request.counter.count(messages, []));
}

/** Each turn's count, from the cache where it has one; synchronous counters never wait. */
async function countTurns(
  turns: readonly SessionTurn[],
  counter: TokenCounter,
  cache: TurnTokenCache,
): Promise<number[]> {
  const counts: number[] = new Array(turns.length);
  for (let index = 0; index < turns.length; index += 1) {
    const value = cache.turnTokens(counter, turns[index] as SessionTurn);
    counts[index] = typeof value === 'number' ? value : await value;
  }
  return counts;
}

interface KeepPlan {
  /** Index of the oldest kept turn (`turns.length` when none is kept). */
  readonly firstKept: number;
  readonly keptTokens: number;
  readonly newestTooLarge: boolean;
}

/** Which newest turns to keep in `budget` tokens beside a summary of `summaryTokens`. */
function planKeep(
  request: FitHistoryRequest,
  counts: readonly number[],
  budget: number,
  summaryTokens: number,
): KeepPlan {
  const all = keepNewest(counts, budget - summaryTokens, counts.length);
  if (all.firstKept === 0) return { ...all, newestTooLarge: false };
  const reserve = Math.max(summaryTokens, Math.floor(request.summaryReserveTokens ?? 0));
  const historyBudget = budget - reserve;
  const fraction = request.foldToFraction ?? 0.6;
  const target = Math.floor(historyBudget * Math.min(1, Math.max(0, fraction)));
  const newest = counts.at(-1) ?? 0;
  const newestFits = counts.length > 0 && newest <= historyBudget;
  const trimmed = keepNewest(counts, target, counts.length);
  if (trimmed.firstKept < counts.length || !newestFits) {
    return { ...trimmed, newestTooLarge: counts.length > 0 && !newestFits };
  }
  return { firstKept: counts.length - 1, keptTokens: newest, newestTooLarge: false };
}

/** The longest run of newest turns whose counts sum to at most `budget`. */
function keepNewest(
  counts: readonly number[],
  budget: number,
  end: number,
): Omit<KeepPlan, 'newestTooLarge'> {
  let keptTokens = 0;
  let firstKept = end;
  while (firstKept > 0) {
    const next = counts[firstKept - 1] ?? 0;
    if (keptTokens + next > budget) break;
    keptTokens += next;
    firstKept -= 1;
  }
  return { firstKept, keptTokens };
}
