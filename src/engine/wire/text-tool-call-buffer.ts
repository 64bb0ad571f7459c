import type { StreamChunk } from '../../core/index.js';
import { toolCallFormatsFor } from './formats/family-formats.js';
import {
  type FoundTextToolCalls,
  readTextToolCalls,
  readVisibleText,
} from './formats/read-text-tool-calls.js';
import type { OfferedToolSet, ToolCallFormat } from './formats/tool-call-format.js';
import {
  type CallStarts,
  createCallStarts,
  type StartCheck,
  type StartDecision,
} from './stream-call-starts.js';
import { endChunk, type StreamEnd } from './stream-chunks.js';
import type { ToolCallIdFactory } from './wire-format.js';

/**
 * The calls of the offered tools written in an answer text of `model` (any family's format); ids it must make
 * come from `makeId`, from 0.
 */
export function findTextToolCalls(
  content: string,
  tools: OfferedToolSet,
  model: string | undefined,
  makeId: ToolCallIdFactory,
  formats?: readonly ToolCallFormat[],
): FoundTextToolCalls | undefined {
  let count = 0;
  return readTextToolCalls(content, tools, {
    model,
    generateId: () => makeId(count++),
    ...(formats === undefined ? {} : { formats }),
  });
}

/** A candidate start being looked at: its check and its index in the held text. */
interface OpenStart {
  check: StartCheck;
  /** The start string (empty for the reply's start). */
  needle: string;
  start: number;
  /** The check is given only the new pieces of text (`feed`), kept in `#parts` until it decides. */
  fed: boolean;
}

/**
 * Streams the text of an answer while tool calls written as text may hide in it (some tools are offered): text
 * passes on as it comes; at a place where a call could start (a format's marker, `{`, `[`, a fence, …) it is
 * held until that start's check (see `createCallStarts`) proves it plain text (a markdown link, a JSON example
 * that is no call, a closed fence without one), which then passes on too; a start that may be a call holds the
 * rest of the answer until the end, where the held text comes out with any calls found cut out. Whitespace at
 * the end of what passed is held (readers trim around calls). Text once passed on is never taken back. A reply
 * held from its start for a family's markup (GPT-OSS channels, Functionary `all`, Command R response tokens)
 * streams on from where its visible text begins (`<|channel|>final<|message|>`, `all\n`, `<|START_RESPONSE|>`)
 * once the reply up to there holds no call, the markup left out and its reasoning passed on as reasoning; the
 * end gives what the non-streaming read gives. With no tool offered every chunk passes straight on.
 */
export class TextToolCallBuffer {
  /** Text passed on so far. */
  #emitted = '';
  /** The reply's text taken out of `#pending` so far: passed on, or markup left out before visible text. */
  #consumed = '';
  /** Reasoning passed on so far, and reasoning to pass on with the next text. */
  #reasoningSent = '';
  #reasoningOut = '';
  /** Whether visible text began after held markup (it may, once, while nothing has passed on). */
  #opened = false;
  /** Openers still to be looked at (each costs a read of the held text), and where the search goes on. */
  #openersLeft = MAX_OPENERS;
  /** The end of the held text already searched for openers (an opener may begin in it). */
  #openerTail = '';
  /** Whitespace at the start of the visible text is left out, as the readers trim it. */
  #trimLead = false;
  /** Text not passed on yet. */
  #pending = '';
  /** A start that may be a call was seen: the rest is held to the end. */
  #holding = false;
  /** No non-space character has been looked at yet. */
  #atReplyStart = true;
  /** Where in `#pending` the search for the next start goes on. */
  #scanFrom = 0;
  #open: OpenStart | undefined;
  /** Pieces of text after `#pending` while a fed check runs. */
  #parts: string[] = [];
  readonly #tools: OfferedToolSet;
  readonly #model: string | undefined;
  readonly #makeId: ToolCallIdFactory;
  readonly #starts: CallStarts;
  readonly #formats: readonly ToolCallFormat[] | undefined;

  constructor(
    tools: OfferedToolSet,
    model: string | undefined,
    makeId: ToolCallIdFactory,
    formats?: readonly ToolCallFormat[],
  ) {
    this.#tools = tools;
    this.#model = model;
    this.#makeId = makeId;
    this.#formats = formats;
    this.#starts = createCallStarts({
      formats: formats ?? toolCallFormatsFor(model),
      names: tools.names,
    });
  }

  /** Passes chunks on; text deltas up to where a call could start, the rest is held until `end`. */
  *pass(chunks: readonly StreamChunk[]): Generator<StreamChunk> {
    for (const chunk of chunks) {
      if (this.#tools.names.size === 0 || chunk.type !== 'text_delta') {
        yield chunk;
        continue;
      }
      const out = this.#accept(chunk.text);
      if (this.#reasoningOut !== '') {
        yield { type: 'reasoning_delta', text: this.#reasoningOut };
        this.#reasoningSent += this.#reasoningOut;
        this.#reasoningOut = '';
      }
      if (out !== '') yield { type: 'text_delta', text: out };
    }
  }

  /**
   * Ends the stream with the assembler's last chunks: the held text without the calls found in the whole
   * answer (none are looked for when `finish` has structured calls) or, with none, without its family's markup
   * (its reasoning first), the other last chunks, the found calls, the end chunk.
   */
  *end(finish: readonly StreamChunk[], end: StreamEnd): Generator<StreamChunk> {
    const hasNativeCalls = finish.some((chunk) => chunk.type === 'tool_call');
    const others: StreamChunk[] = [];
    for (const chunk of finish) {
      if (chunk.type === 'text_delta' && this.#tools.names.size > 0) this.#parts.push(chunk.text);
      else others.push(chunk);
    }
    this.#pending += this.#parts.join('');
    this.#parts = [];
    const whole = this.#consumed + this.#pending;
    const read = hasNativeCalls || this.#tools.names.size === 0 || whole === '';
    const found = read
      ? undefined
      : findTextToolCalls(whole, this.#tools, this.#model, this.#makeId, this.#formats);
    const calls = found?.toolCalls ?? [];
    const visible =
      read || calls.length > 0 ? undefined : readVisibleText(whole, this.#visibleOptions());
    const reasoning = visible?.reasoning ?? '';
    if (reasoning !== '' && reasoning.startsWith(this.#reasoningSent)) {
      const more = reasoning.slice(this.#reasoningSent.length);
      if (more !== '') yield { type: 'reasoning_delta', text: more };
    }
    let rest = this.#pending;
    if (found !== undefined && calls.length > 0) rest = restAfter(this.#emitted, found.content);
    else if (visible !== undefined) rest = restAfter(this.#emitted, visible.content);
    if (rest !== '') yield { type: 'text_delta', text: rest };
    yield* others;
    for (const toolCall of calls) yield { type: 'tool_call', toolCall };
    yield endChunk(calls.length > 0 ? { ...end, finishReason: 'tool_calls' } : end);
  }

  #visibleOptions() {
    return {
      model: this.#model,
      ...(this.#formats === undefined ? {} : { formats: this.#formats }),
    };
  }

  /** Takes a text delta; returns what may be passed on now. */
  #accept(text: string): string {
    if (this.#holding) {
      this.#pending += text;
      return this.#mayOpen() ? this.#openVisible(this.#openerTail + text) : '';
    }
    if (this.#trimLead) {
      const first = firstNonSpace(text, 0);
      this.#consumed += text.slice(0, first);
      text = text.slice(first);
      this.#trimLead = text === '';
    }
    const feed = this.#open?.fed === true ? this.#open.check.feed : undefined;
    if (feed !== undefined) {
      // A long candidate: only the new piece is looked at, and the held text is joined once it is decided.
      this.#parts.push(text);
      if (feed(text).kind === 'hold') return '';
      this.#pending += this.#parts.join('');
      this.#parts = [];
      if (this.#open !== undefined) this.#open.fed = false;
    } else this.#pending += text;
    const out = this.#release(this.#scan());
    // Held from here on: the held text is searched once, then only each new piece.
    return this.#holding && this.#mayOpen() ? this.#openVisible(this.#pending) : out;
  }

  /** Whether visible text may still begin after held markup: nothing passed on yet, and openers left. */
  #mayOpen(): boolean {
    return this.#emitted === '' && !this.#opened && this.#openersLeft > 0;
  }

  /**
   * Looks in the held text for where a family's visible text begins (see `findOpener`); when the reply up to
   * there holds no call and shows nothing, leaves it out (its reasoning passed on) and streams on after it.
   */
  #openVisible(window: string): string {
    const pending = this.#pending;
    const offset = pending.length - window.length;
    for (let from = 0; this.#openersLeft > 0; ) {
      const found = this.#starts.findOpener(window, from);
      if (found === undefined) break;
      from = found.index + 1;
      this.#openersLeft -= 1;
      const head = pending.slice(0, offset + found.end);
      const visible = readVisibleText(head, this.#visibleOptions());
      if (visible?.content !== '' || this.#isCall(head)) continue;
      this.#opened = true;
      this.#reasoningOut = visible.reasoning ?? '';
      this.#consumed += head;
      this.#holding = false;
      this.#open = undefined;
      this.#scanFrom = 0;
      this.#trimLead = true;
      this.#pending = '';
      return this.#accept(pending.slice(head.length));
    }
    const keep = this.#starts.openerLength - 1;
    this.#openerTail = keep > 0 ? window.slice(-keep) : '';
    return '';
  }

  /** Passes on the held text before `safe` (less the whitespace at its end). */
  #release(safe: number): string {
    const cut = withoutTrailingSpace(this.#pending, safe);
    if (cut === 0) return '';
    const out = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
    this.#consumed += out;
    this.#scanFrom = Math.max(0, this.#scanFrom - cut);
    if (this.#open !== undefined) this.#open.start -= cut;
    this.#emitted += out;
    return out;
  }

  /** Runs the start checks over the new text; returns how much of the held text is proven plain text. */
  #scan(): number {
    const pending = this.#pending;
    for (;;) {
      const open = this.#open;
      if (open !== undefined) {
        const decision = this.#decide(open);
        if (decision.kind !== 'text') return open.start;
        this.#open = undefined;
        this.#scanFrom = open.start + decision.length;
        continue;
      }
      if (this.#atReplyStart) {
        const first = firstNonSpace(pending, this.#scanFrom);
        this.#scanFrom = first;
        if (first === pending.length) return 0;
        this.#atReplyStart = false;
        this.#open = { check: this.#starts.replyStart(), needle: '', start: first, fed: false };
        continue;
      }
      const found = this.#starts.find(pending, this.#scanFrom);
      if (found === undefined) {
        this.#scanFrom = pending.length - this.#starts.partialLength(pending, this.#scanFrom);
        return this.#scanFrom;
      }
      const check = this.#starts.checkFor(found.needle);
      if (check === undefined) {
        this.#holding = true;
        return found.index;
      }
      this.#open = { check, needle: found.needle, start: found.index, fed: false };
      this.#scanFrom = found.index;
    }
  }

  /**
   * Runs a check on the held text: a start that may still grow into a longer one (`[TOOL_` of `[TOOL_CALLS]`)
   * waits; a complete candidate is text unless read alone it holds a call; a call holds the rest.
   */
  #decide(open: OpenStart): StartDecision {
    const pending = this.#pending;
    if (this.#starts.beginsLonger(pending.slice(open.start, open.start + 32))) return HOLD;
    const longest = open.needle === '' ? undefined : this.#starts.longestAt(pending, open.start);
    if (longest !== undefined && longest !== open.needle) {
      // The start grew into a longer one (`[` into `[TOOL_CALLS]`) once more text came.
      const check = this.#starts.checkFor(longest);
      if (check === undefined) {
        this.#holding = true;
        return CALL;
      }
      open.check = check;
      open.needle = longest;
    }
    let decision = open.check.next(pending, open.start);
    if (decision.kind === 'candidate') {
      const candidate = pending.slice(open.start, open.start + decision.length);
      decision = this.#isCall(candidate) ? CALL : { kind: 'text', length: decision.length };
    }
    if (decision.kind === 'hold' && open.check.feed !== undefined) open.fed = true;
    else if (decision.kind === 'hold' && pending.length - open.start > MAX_LOOKAHEAD)
      decision = CALL; // a check that rescans its text undecided this long holds the rest (stays linear)
    if (decision.kind === 'call') this.#holding = true;
    return decision;
  }

  /** Whether a complete candidate, read alone as a whole reply, holds a call of an offered tool. */
  #isCall(candidate: string): boolean {
    const found = findTextToolCalls(candidate, this.#tools, this.#model, probeId, this.#formats);
    return (found?.toolCalls.length ?? 0) > 0;
  }
}

const HOLD: StartDecision = { kind: 'hold' };
/** How many openers of visible text are read at most (each reads the held text: stays linear). */
const MAX_OPENERS = 4;
/** How far a check without `feed` may look past its start before the rest is held to the end. */
const MAX_LOOKAHEAD = 512;
const CALL: StartDecision = { kind: 'call' };

/**
 * What comes after the passed-on text in the content the readers left: `content` starts with `emitted`, or
 * with it less its leading whitespace (readers trim the reply around calls).
 */
function restAfter(emitted: string, content: string): string {
  if (content.startsWith(emitted)) return content.slice(emitted.length);
  const trimmed = emitted.trimStart();
  if (content.startsWith(trimmed)) return content.slice(trimmed.length);
  return content.slice(commonPrefixLength(emitted, content));
}

/** `end` moved back over whitespace before it: readers trim the text before a call, so it is held. */
function withoutTrailingSpace(text: string, end: number): number {
  let at = end;
  while (at > 0 && /\s/.test(text.charAt(at - 1))) at -= 1;
  return at;
}

/** The index of the first non-whitespace character of `text` at or after `from` (its length when none). */
function firstNonSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && /\s/.test(text.charAt(at))) at += 1;
  return at;
}

/** Ids for calls read only to tell whether a candidate holds one. */
const probeId: ToolCallIdFactory = (index) => `probe_${index}`;

/** How many leading characters `a` and `b` share. */
function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}
