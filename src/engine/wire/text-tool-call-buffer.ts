import type { StreamChunk } from '../../core/index.js';
import { toolCallFormatsFor } from './formats/family-formats.js';
import { type FoundTextToolCalls, readTextToolCalls } from './formats/read-text-tool-calls.js';
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
 * the end of what passed is held (readers trim around calls). Text once passed on is never taken back. With no
 * tool offered every chunk passes straight on.
 */
export class TextToolCallBuffer {
  /** Text passed on so far. */
  #emitted = '';
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
      if (out !== '') yield { type: 'text_delta', text: out };
    }
  }

  /**
   * Ends the stream with the assembler's last chunks: the held text without the calls found in the whole
   * answer (none are looked for when `finish` has structured calls), the other last chunks, the found calls, the
   * end chunk.
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
    const whole = this.#emitted + this.#pending;
    const found =
      hasNativeCalls || this.#tools.names.size === 0 || whole === ''
        ? undefined
        : findTextToolCalls(whole, this.#tools, this.#model, this.#makeId, this.#formats);
    const calls = found?.toolCalls ?? [];
    const rest =
      found !== undefined && calls.length > 0
        ? restAfter(this.#emitted, found.content)
        : this.#pending;
    if (rest !== '') yield { type: 'text_delta', text: rest };
    yield* others;
    for (const toolCall of calls) yield { type: 'tool_call', toolCall };
    yield endChunk(calls.length > 0 ? { ...end, finishReason: 'tool_calls' } : end);
  }

  /** Takes a text delta; returns what may be passed on now. */
  #accept(text: string): string {
    if (this.#holding) {
      this.#pending += text;
      return '';
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
    return this.#release(this.#scan());
  }

  /** Passes on the held text before `safe` (less the whitespace at its end). */
  #release(safe: number): string {
    const cut = withoutTrailingSpace(this.#pending, safe);
    if (cut === 0) return '';
    const out = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
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
