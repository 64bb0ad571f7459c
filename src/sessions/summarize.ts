import {
  type Clock,
  type InferenceEngine,
  JarvisError,
  type Message,
  systemClock,
} from '../core/index.js';
import { summaryMessage } from './history-fit.js';
import type { SessionSummary, SessionTurn } from './session-types.js';
import type { TokenCounter } from './token-count.js';

/** What `foldTurns` needs. */
export interface FoldTurnsOptions {
  /** The session's own engine and model: the summary is written by the model that reads it. */
  readonly engine: InferenceEngine;
  readonly model: string;
  /** The summary so far (covers the turns before `turns`). */
  readonly previous: SessionSummary | undefined;
  /** The turns to fold in, oldest first, whole. */
  readonly turns: readonly SessionTurn[];
  /** Bound of the summary message as counted (and the answer budget of each summarizing call). */
  readonly maxSummaryTokens: number;
  readonly counter: TokenCounter;
  /** The model's context window: each summarizing request plus its answer budget stays within it. */
  readonly contextTokens: number;
  readonly signal?: AbortSignal | undefined;
  readonly clock?: Clock | undefined;
}

/** How folding went: the new summary, or the error and the summary as far as it got (maybe the previous one). */
export type FoldOutcome =
  | { readonly ok: true; readonly summary: SessionSummary; readonly calls: number }
  | {
      readonly ok: false;
      readonly error: Error;
      /** The previous summary, or a newer one when some slices were folded before the failure. */
      readonly summary: SessionSummary | undefined;
      readonly calls: number;
    };

/** The instruction the summarizing model gets. */
export const SUMMARY_INSTRUCTION =
  'You keep the running summary of a conversation between a person and an assistant. Rewrite the current ' +
  'summary so it also covers the new turns. Keep what later turns may need: facts, names, numbers, decisions, ' +
  "the person's preferences and open tasks, and what tool calls found. Drop small talk. Be brief. Reply with " +
  'the summary text only.';

/** Characters kept of a person's or assistant's message, of a tool call's arguments and of a tool result. */
const MESSAGE_CHARS = 1500;
const ARGUMENT_CHARS = 120;
const RESULT_CHARS = 300;
/** Below this many tokens for the turns' text, summarizing cannot make progress. */
const MIN_TURN_TOKENS = 32;

/**
 * Folds turns into the running summary with the session's own model: one generate call (no tools) per slice of
 * turns, each request fitting the context with `maxSummaryTokens` left for the answer; tool calls and results are
 * condensed (name, short arguments, short result). The answer is cut to `maxSummaryTokens` if the model ran over.
 * An engine failure is returned, not thrown (the summary as far as it got comes with it), so the turn can go on;
 * a cancelled `signal` throws.
 */
export async function foldTurns(options: FoldTurnsOptions): Promise<FoldOutcome> {
  let summary = options.previous;
  let calls = 0;
  try {
    const slices = await sliceTurns(options);
    for (const slice of slices) {
      calls += 1;
      const text = await summarizeSlice(options, summary, slice.lines);
      const last = slice.turns.at(-1) as SessionTurn;
      summary = { text, throughSeq: last.seq, updatedMs: (options.clock ?? systemClock).nowMs() };
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { ok: false, error: asError(error), summary, calls };
  }
  if (summary === undefined || summary === options.previous) {
    return { ok: false, error: foldError('there were no turns to fold'), summary, calls };
  }
  return { ok: true, summary, calls };
}

/** One summarizing call's share: whole turns and their condensed text. */
interface Slice {
  readonly turns: readonly SessionTurn[];
  readonly lines: string;
}

/** Groups the turns' condensed text into slices whose requests fit the context. */
async function sliceTurns(options: FoldTurnsOptions): Promise<Slice[]> {
  const budget = await turnBudget(options);
  const slices: Slice[] = [];
  let turns: SessionTurn[] = [];
  let lines: string[] = [];
  let used = 0;
  for (const turn of options.turns) {
    const fitted = await fitText(condenseTurn(turn), budget, options.counter);
    if (turns.length > 0 && used + fitted.tokens > budget) {
      slices.push({ turns, lines: lines.join('\n') });
      turns = [];
      lines = [];
      used = 0;
    }
    turns.push(turn);
    lines.push(fitted.text);
    used += fitted.tokens;
  }
  if (turns.length > 0) slices.push({ turns, lines: lines.join('\n') });
  return slices;
}

/** Tokens left for the turns' text in one request: context minus answer, instruction and a full-size summary. */
async function turnBudget(options: FoldTurnsOptions): Promise<number> {
  const { counter, previous } = options;
  const maxSummary = Math.max(1, Math.floor(options.maxSummaryTokens));
  const frame = await counter.count(promptMessages('', ''), []);
  const previousTokens =
    previous === undefined
      ? 0
      : await counter.count([{ role: 'user', content: previous.text }], []);
  const budget =
    Math.floor(options.contextTokens) - maxSummary - frame - Math.max(maxSummary, previousTokens);
  if (budget < MIN_TURN_TOKENS) {
    throw foldError(
      `a ${options.contextTokens}-token context leaves no room to summarize with maxSummaryTokens ${maxSummary}; ` +
        'lower maxSummaryTokens or use a larger context',
    );
  }
  return budget;
}

/** The text, cut (with an ellipsis) until its count is at most `budget` tokens. */
async function fitText(
  text: string,
  budget: number,
  counter: TokenCounter,
): Promise<{ readonly text: string; readonly tokens: number }> {
  let fitted = text;
  for (;;) {
    const tokens = await counter.count([{ role: 'user', content: fitted }], []);
    if (tokens <= budget || fitted.length <= 1) return { text: fitted, tokens };
    const keep = Math.floor((fitted.length * budget) / tokens / 1.1);
    fitted = `${fitted.slice(0, Math.max(0, Math.min(fitted.length - 2, keep)))}…`;
  }
}

/** Asks the model for the updated summary and bounds it. */
async function summarizeSlice(
  options: FoldTurnsOptions,
  previous: SessionSummary | undefined,
  lines: string,
): Promise<string> {
  const maxSummary = Math.max(1, Math.floor(options.maxSummaryTokens));
  const messages = await fitPrompt(options, previous?.text ?? '', lines, maxSummary);
  const result = await options.engine.generate(messages, {
    model: options.model,
    maxTokens: maxSummary,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = result.content.trim();
  if (text === '') throw foldError('the model answered with an empty summary');
  return boundSummary(text, maxSummary, options.counter);
}

/**
 * The request for one slice, its turn text cut further when the counter is not additive and the whole request
 * (plus the answer budget) would still exceed the context.
 */
async function fitPrompt(
  options: FoldTurnsOptions,
  previous: string,
  lines: string,
  maxSummary: number,
): Promise<Message[]> {
  const room = Math.floor(options.contextTokens) - maxSummary;
  let text = lines;
  for (;;) {
    const messages = promptMessages(previous, text);
    const tokens = await options.counter.count(messages, []);
    if (tokens <= room) return messages;
    if (text.length <= 1) throw foldError('the summarizing request does not fit the context');
    text = `${text.slice(0, Math.floor((text.length * room) / tokens / 1.1))}…`;
  }
}

/** The summary text, cut so its summary message counts at most `maxTokens`. */
async function boundSummary(
  text: string,
  maxTokens: number,
  counter: TokenCounter,
): Promise<string> {
  let bounded = text;
  for (;;) {
    const message = summaryMessage({ text: bounded, throughSeq: 0, updatedMs: 0 });
    const tokens = await counter.count([message], []);
    if (tokens <= maxTokens || bounded.length <= 1) return bounded;
    const keep = Math.floor((bounded.length * maxTokens) / tokens / 1.1);
    bounded = `${bounded.slice(0, Math.max(0, Math.min(bounded.length - 2, keep)))}…`;
  }
}

/** The summarizing request: the instruction, then the current summary and the new turns. */
function promptMessages(previous: string, lines: string): Message[] {
  return [
    { role: 'system', content: SUMMARY_INSTRUCTION },
    {
      role: 'user',
      content: `Current summary:\n${previous === '' ? '(none yet)' : previous}\n\nNew turns:\n${lines}`,
    },
  ];
}

/** A turn as short text lines: who said what, each tool call as name(arguments) and its result, all clipped. */
export function condenseTurn(turn: SessionTurn): string {
  const lines = [`[turn ${turn.seq}${turn.status === 'completed' ? '' : `, ${turn.status}`}]`];
  const names = new Map<string, string>();
  for (const message of turn.messages) {
    if (message.role === 'tool') {
      const name = names.get(message.toolCallId ?? '') ?? message.name ?? 'tool';
      lines.push(`  ${name} returned: ${clip(message.content, RESULT_CHARS)}`);
      continue;
    }
    const who =
      message.role === 'user' ? 'Person' : message.role === 'assistant' ? 'Assistant' : 'Note';
    if (message.content.trim() !== '')
      lines.push(`${who}: ${clip(message.content, MESSAGE_CHARS)}`);
    for (const call of message.toolCalls ?? []) {
      names.set(call.id, call.name);
      lines.push(`  ${who} called ${call.name}(${clip(call.arguments, ARGUMENT_CHARS)})`);
    }
  }
  return lines.join('\n');
}

/** Whitespace folded, at most `max` characters (an ellipsis marks a cut). */
function clip(text: string, max: number): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length <= max ? folded : `${folded.slice(0, max - 1)}…`;
}

function foldError(detail: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message: `cannot fold turns: ${detail}` });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
