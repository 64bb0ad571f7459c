import type { ToolCallFormat } from './formats/tool-call-format.js';
import { MARKED_CALL_STARTS } from './text-tool-calls.js';

/**
 * What the text from a possible call start turned out to be so far: not known yet (`hold`), possibly a call
 * (`call`: held to the end of the reply), plain text whose first `length` characters may be passed on (`text`),
 * or a complete candidate (a closed object, list or fence) of `length` characters, a call when read alone it
 * holds one (`candidate`).
 */
export type StartDecision =
  | { readonly kind: 'hold' }
  | { readonly kind: 'call' }
  | { readonly kind: 'text'; readonly length: number }
  | { readonly kind: 'candidate'; readonly length: number };

/**
 * Looks at the text from one possible call start on as more of it arrives. `next` gets the held text and the
 * start's index in it (text before the start may be dropped between calls, text after it only grows). A check
 * that has `feed` is then given only each new piece of text (so a long candidate costs linear time overall and
 * the held text need not be joined for every chunk).
 */
export interface StartCheck {
  next(text: string, start: number): StartDecision;
  /** Takes the next piece of text after what `next` and earlier pieces saw. */
  readonly feed?: (piece: string) => StartDecision;
}

const HOLD: StartDecision = { kind: 'hold' };
const CALL: StartDecision = { kind: 'call' };
const text = (length: number): StartDecision => ({ kind: 'text', length });
const candidate = (length: number): StartDecision => ({ kind: 'candidate', length });

/** The starts whose checks look at what follows them; every other start is held to the end. */
const CHECKED_STARTS = ['{', '[', '```', 'functools'] as const;
const CHANNEL_WORDS = ['commentary', 'analysis', 'final'] as const;
/** GPT-OSS headers with the special tokens stripped (`…assistantcommentary to=…`): held to the end. */
const STRIPPED_HEADERS = CHANNEL_WORDS.map((word) => `assistant${word}`);
const RECIPIENT = 'to=';

/**
 * Special tokens a family's reader cuts out of the text around its calls (and so must never reach the user
 * before the reply is read): GPT-OSS's harmony tokens, Command R's response and thinking tokens, GigaChat's
 * message ends. Held like call markers.
 */
const MARKUP_BY_FORMAT: ReadonlyMap<string, readonly string[]> = new Map([
  [
    'gpt-oss',
    [
      '<|message|>',
      '<|end|>',
      '<|call|>',
      '<|return|>',
      '<|constrain|>',
      '<|channel|>',
      '<|start|>',
    ],
  ],
  [
    'command-r7b',
    [
      '<|START_RESPONSE|>',
      '<|END_RESPONSE|>',
      '<|START_THINKING|>',
      '<|END_THINKING|>',
      '<|END_OF_TURN_TOKEN|>',
    ],
  ],
  ['gigachat3', ['<|message_sep|>']],
]);

/**
 * Where the text for the user begins after a family's markup that is held (GPT-OSS's final channel, with its
 * tokens or stripped; Functionary's `all` segment; Command R's response): there the stream may go on, the markup
 * before it left out, once the reply up to it is read to hold no call and no visible text.
 */
const OPENERS_BY_FORMAT: ReadonlyMap<string, readonly string[]> = new Map([
  ['gpt-oss', ['<|channel|>final<|message|>', 'assistantfinal']],
  ['functionary-v3.2', ['all\n']],
  ['command-r7b', ['<|START_RESPONSE|>']],
]);

/** The possible call starts of a set of formats, and the check that decides what text at each one is. */
export interface CallStarts {
  /** Every start, longest first (so at one index the longest wins). */
  readonly needles: readonly string[];
  /** The longest start at `index` in `text`, if any. */
  longestAt(text: string, index: number): string | undefined;
  /** Finds the next start in `text` at or after `from`: its index and string, or undefined. */
  find(text: string, from: number): { readonly index: number; readonly needle: string } | undefined;
  /** How long the end of `text` (not before `from`) is that could begin a start (held until known). */
  partialLength(text: string, from: number): number;
  /** Whether `rest` is shorter than some start it begins (`[TOOL_` of `[TOOL_CALLS]`): more text is needed. */
  beginsLonger(rest: string): boolean;
  /** The check for a start found by `find`; `undefined` for one held to the end. */
  checkFor(needle: string): StartCheck | undefined;
  /** The check at the first non-space character of a reply (a reply that is nothing but calls, headers). */
  replyStart(): StartCheck;
  /** The next place in `text` from `from` where visible text may begin after held markup (see the openers). */
  findOpener(
    text: string,
    from: number,
  ): { readonly index: number; readonly end: number } | undefined;
  /** The length of the longest opener (0 when the formats have none). */
  readonly openerLength: number;
}

/** Options of `createCallStarts`. */
export interface CallStartsOptions {
  /** The family formats read at the end (their markers are starts). */
  readonly formats: readonly ToolCallFormat[];
  /** The offered tools' names. */
  readonly names: ReadonlySet<string>;
}

/** The call starts of `formats` (plus the common ones: JSON, pythonic lists, fences, marked tokens). */
export function createCallStarts(options: CallStartsOptions): CallStarts {
  const { formats, names } = options;
  const named = new Set(formats.map((format) => format.name));
  const gptOss = named.has('gpt-oss');
  const markup = [
    ...formats.flatMap((format) => MARKUP_BY_FORMAT.get(format.name) ?? []),
    ...(gptOss ? STRIPPED_HEADERS : []),
  ];
  const checked = new Set<string>([
    ...CHECKED_STARTS,
    ...(gptOss ? [...CHANNEL_WORDS, RECIPIENT] : []),
  ]);
  const all = [
    ...MARKED_CALL_STARTS,
    ...formats.flatMap((format) => format.markers),
    ...markup,
    ...checked,
  ];
  const needles = [...new Set(all)].filter((n) => n !== '').sort((a, b) => b.length - a.length);
  const pattern = new RegExp(needles.map(escapeRegExp).join('|'), 'g');
  const sticky = new RegExp(pattern.source, 'y');
  const byFirst = new Map<string, string[]>();
  for (const needle of needles) {
    const list = byFirst.get(needle.charAt(0)) ?? [];
    list.push(needle);
    byFirst.set(needle.charAt(0), list);
  }
  const longest = needles[0]?.length ?? 0;
  const openers = [
    ...new Set(formats.flatMap((format) => OPENERS_BY_FORMAT.get(format.name) ?? [])),
  ];
  const opener =
    openers.length === 0 ? undefined : new RegExp(openers.map(escapeRegExp).join('|'), 'g');
  return {
    needles,
    longestAt(value, index) {
      sticky.lastIndex = index;
      return sticky.exec(value)?.[0];
    },
    find(value, from) {
      pattern.lastIndex = from;
      const match = pattern.exec(value);
      return match === null ? undefined : { index: match.index, needle: match[0] };
    },
    partialLength(value, from) {
      for (let at = Math.max(from, value.length - longest + 1); at < value.length; at += 1) {
        const list = byFirst.get(value.charAt(at));
        if (list === undefined) continue;
        const tail = value.slice(at);
        if (list.some((needle) => needle.length > tail.length && needle.startsWith(tail)))
          return value.length - at;
      }
      return 0;
    },
    beginsLonger(rest) {
      const list = rest.length < longest ? byFirst.get(rest.charAt(0)) : undefined;
      return (
        list?.some((needle) => needle.length > rest.length && needle.startsWith(rest)) ?? false
      );
    },
    checkFor(needle) {
      if (needle === '{') return new BalancedCheck(true);
      if (needle === '[') return new BracketCheck();
      if (needle === '```') return new FenceCheck();
      if (needle === 'functools') return new FollowedCheck(needle.length, ['[']);
      if (needle === RECIPIENT && gptOss) return new RecipientCheck();
      if (gptOss && (CHANNEL_WORDS as readonly string[]).includes(needle))
        return new FollowedCheck(needle.length, [RECIPIENT, '<|']);
      return undefined;
    },
    replyStart: () => new ReplyStartCheck(names, gptOss, named.has('functionary-v3.2')),
    findOpener(value, from) {
      if (opener === undefined) return undefined;
      opener.lastIndex = from;
      const match = opener.exec(value);
      return match === null
        ? undefined
        : { index: match.index, end: match.index + match[0].length };
    },
    openerLength: Math.max(0, ...openers.map((value) => value.length)),
  };
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** JSON whitespace (what the readers skip between tokens). */
function isSpaceCode(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x0c;
}

function skipSpaces(value: string, from: number): number {
  let at = from;
  while (at < value.length && isSpaceCode(value.charCodeAt(at))) at += 1;
  return at;
}

const IDENTIFIER_START = /[A-Za-z_$]/;

/**
 * A JSON (or lenient JSON, or pythonic) value from its opening bracket to the one that closes it, strings and
 * escapes skipped: a candidate once closed. An object whose first token cannot start a key (`{ 1`, `{-`) is
 * text at once.
 */
class BalancedCheck implements StartCheck {
  /** Characters from the start scanned so far. */
  #length = 1;
  #depth = 1;
  #quote = 0;
  /** The character after the last one seen is escaped. */
  #escaped = false;
  #checkedKey: boolean;
  #closed: StartDecision | undefined;

  constructor(checkKey: boolean) {
    this.#checkedKey = !checkKey;
  }

  next(value: string, start: number): StartDecision {
    if (!this.#checkedKey) {
      const at = skipSpaces(value, start + 1);
      if (at >= value.length) return HOLD;
      const char = value.charAt(at);
      if (char !== '"' && char !== "'" && char !== '}' && !IDENTIFIER_START.test(char))
        return text(1);
      this.#checkedKey = true;
    }
    return this.#closed ?? this.feed(value.slice(start + this.#length));
  }

  readonly feed = (piece: string): StartDecision => {
    for (let at = 0; at < piece.length; at += 1) {
      const code = piece.charCodeAt(at);
      if (this.#escaped) this.#escaped = false;
      else if (this.#quote !== 0) {
        if (code === BACKSLASH) this.#escaped = true;
        else if (code === this.#quote) this.#quote = 0;
      } else if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) this.#quote = code;
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) this.#depth += 1;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        this.#depth -= 1;
        if (this.#depth === 0) {
          this.#closed = candidate(this.#length + at + 1);
          return this.#closed;
        }
      }
    }
    this.#length += piece.length;
    return HOLD;
  };
}

const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * `[`: a JSON list (`[{`, `["`, `[[`) or a pythonic one (`[name(`) is read to its closing bracket like an
 * object; anything else (`[text](url)`, `[1]`, `[x]`) is text from its `[` on.
 */
class BracketCheck implements StartCheck {
  #list: BalancedCheck | undefined;
  feed?: (piece: string) => StartDecision;

  next(value: string, start: number): StartDecision {
    if (this.#list !== undefined) return this.#list.next(value, start);
    const at = skipSpaces(value, start + 1);
    if (at >= value.length) return HOLD;
    const char = value.charAt(at);
    let isList = char === '{' || char === '"' || char === "'" || char === '[';
    if (!isList && /[A-Za-z_]/.test(char)) {
      const after = skipSpaces(value, identifierEnd(value, at));
      if (after >= value.length) return HOLD;
      isList = value.charAt(after) === '(';
    }
    if (!isList) return text(1);
    this.#list = new BalancedCheck(false);
    this.feed = this.#list.feed;
    return this.#list.next(value, start);
  }
}

/** The end of a dotted name (`functions.get_weather`, `brave_search.call`) starting at `from`. */
function identifierEnd(value: string, from: number): number {
  let at = from;
  while (at < value.length && /[\w.-]/.test(value.charAt(at))) at += 1;
  return at;
}

/** A ``` fence up to its closing fence: a candidate (a reply that is a fenced call is one). */
class FenceCheck implements StartCheck {
  /** Characters from the start seen so far. */
  #length = 3;
  /** The last two characters seen (a closing fence may be split across pieces). */
  #carry = '';
  #closed: StartDecision | undefined;

  next(value: string, start: number): StartDecision {
    return this.#closed ?? this.feed(value.slice(start + this.#length));
  }

  readonly feed = (piece: string): StartDecision => {
    const window = this.#carry + piece;
    const close = window.indexOf('```');
    if (close !== -1) {
      this.#closed = candidate(this.#length - this.#carry.length + close + 3);
      return this.#closed;
    }
    this.#length += piece.length;
    this.#carry = window.slice(-2);
    return HOLD;
  };
}

/**
 * A word that starts a call only when one of `follows` comes after it and spaces (`functools[`, GPT-OSS's
 * `commentary to=` or `final<|message|>` with the special tokens stripped or not): else plain text.
 */
class FollowedCheck implements StartCheck {
  readonly #length: number;
  readonly #follows: readonly string[];
  readonly #longest: number;

  constructor(length: number, follows: readonly string[]) {
    this.#length = length;
    this.#follows = follows;
    this.#longest = Math.max(...follows.map((follow) => follow.length));
  }

  next(value: string, start: number): StartDecision {
    const at = skipSpaces(value, start + this.#length);
    if (at >= value.length) return HOLD;
    const rest = value.slice(at, at + this.#longest);
    for (const follow of this.#follows) {
      if (rest.startsWith(follow)) return CALL;
      if (follow.startsWith(rest)) return HOLD;
    }
    return text(this.#length);
  }
}

/**
 * GPT-OSS's `to=recipient`: a call header when the recipient is a function or a `<|channel|>` token follows it
 * (`to=functions.x<|channel|>commentary`); else text.
 */
class RecipientCheck implements StartCheck {
  next(value: string, start: number): StartDecision {
    const from = start + RECIPIENT.length;
    let end = from;
    while (end < value.length && end - from <= 256 && /[^\s<{]/.test(value.charAt(end))) end += 1;
    if (end >= value.length) return HOLD;
    if (value.slice(from, end).startsWith('functions.')) return CALL;
    const at = skipSpaces(value, end);
    if (at >= value.length) return HOLD;
    const rest = value.slice(at, at + 2);
    if (rest === '<|') return CALL;
    return rest === '<' && at + 1 >= value.length ? HOLD : text(end - start);
  }
}

/**
 * The start of a reply (its first non-space character): a reply that is nothing but pythonic calls
 * (`get_weather(city="Paris")`), Functionary v3.2's first segment without its `>>>` (`all\n…`,
 * `get_weather\n{…}`), or GPT-OSS with its tokens stripped (`analysis…`, `assistantfinal…`) is held to the end;
 * any other start is text (`length` 0: scanning goes on from it).
 */
class ReplyStartCheck implements StartCheck {
  readonly #names: ReadonlySet<string>;
  readonly #gptOss: boolean;
  readonly #functionary: boolean;

  constructor(names: ReadonlySet<string>, gptOss: boolean, functionary: boolean) {
    this.#names = names;
    this.#gptOss = gptOss;
    this.#functionary = functionary;
  }

  next(value: string, start: number): StartDecision {
    if (this.#gptOss) {
      const head = value.slice(start, start + 9);
      for (const word of ['analysis', 'assistant']) {
        if (head.startsWith(word)) return CALL;
        if (word.startsWith(head)) return HOLD;
      }
    }
    if (!/[A-Za-z_]/.test(value.charAt(start))) return text(0);
    const end = identifierEnd(value, start);
    if (end >= value.length) return this.#mayBeName(value.slice(start)) ? HOLD : text(0);
    const name = value.slice(start, end);
    if (
      this.#functionary &&
      value.charAt(end) === '\n' &&
      (name === 'all' || this.#names.has(name))
    )
      return CALL;
    const at = skipSpaces(value, end);
    if (at >= value.length) return HOLD;
    const offered =
      this.#names.has(name) || (name.endsWith('.call') && this.#names.has(name.slice(0, -5)));
    return value.charAt(at) === '(' && offered ? CALL : text(0);
  }

  /** Whether a word cut off by the end of the text may still grow into an offered name (or `all`). */
  #mayBeName(word: string): boolean {
    if (this.#functionary && 'all'.startsWith(word)) return true;
    for (const name of this.#names) if (name.startsWith(word) || word.startsWith(name)) return true;
    return false;
  }
}
