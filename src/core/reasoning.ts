/** Text split into the answer and the reasoning the model wrote around it. */
export interface ReasoningParts {
  readonly content: string;
  readonly reasoning: string;
}

/** Options of a `ReasoningSplitter`. */
export interface ReasoningSplitterOptions {
  /**
   * Read the stream as if it began with `<think>`: for chat templates that open the block in the prompt
   * (Qwen3 in thinking mode, DeepSeek-R1), so the model only ever writes the closing `</think>`.
   */
  readonly startsInReasoning?: boolean;
}

/** The tags recognised, lower case; matching ignores case. */
const OPENING_TAGS = ['<think>', '<thinking>'] as const;
const CLOSING_TAGS = ['</think>', '</thinking>'] as const;
const TAGS: readonly string[] = [...OPENING_TAGS, ...CLOSING_TAGS];
const LONGEST_TAG = Math.max(...TAGS.map((tag) => tag.length));
const FIRST_TAG = /<(\/?)think(?:ing)?>/i;
/** Put between two reasoning blocks, so their text does not run together. */
const BLOCK_SEPARATOR = '\n\n';

/**
 * Moves `<think>` / `<thinking>` blocks (any case, any number) out of the answer text. A block that is never
 * closed runs to the end, and text that begins with reasoning and only closes it (`…</think>answer`, as
 * Qwen3 and DeepSeek-R1 templates produce) counts as reasoning up to that tag. The whitespace a block leaves
 * behind is collapsed, the content is trimmed, and several blocks are joined by a blank line.
 */
export function splitReasoning(text: string): ReasoningParts {
  // Most answers hold no tag at all: what the splitter would make of them is the text trimmed.
  if (!text.includes('<')) return { content: text.trim(), reasoning: '' };
  const startsInReasoning = FIRST_TAG.exec(text)?.[1] === '/';
  const splitter = new ReasoningSplitter({ startsInReasoning });
  const body = splitter.push(text);
  const rest = splitter.flush();
  return {
    content: (body.content + rest.content).trimEnd(),
    reasoning: (body.reasoning + rest.reasoning).trimEnd(),
  };
}

type TagMatch = { readonly tag: string; readonly opening: boolean } | 'partial' | undefined;

/**
 * Splits a streamed answer into content and reasoning as the deltas arrive. Tags may be cut across deltas
 * (`<th` + `ink>`); only text that could still be the start of a tag is held back (at most 10 characters),
 * and `flush()` releases it at the end. Whitespace is handled as in `splitReasoning`, except that trailing
 * whitespace cannot be known to be trailing and is passed on. A stream cannot take text back, so a closing tag
 * without an opening one is dropped and the text before it stays content, unless `startsInReasoning` is set.
 */
export class ReasoningSplitter {
  #inReasoning: boolean;
  /** A possible tag prefix at the end of the last delta. */
  #pending = '';
  /** Drop content whitespace until the next visible character (at the start and where a block was cut out). */
  #skipContentSpace = true;
  /** How the content emitted so far ends. */
  #contentEnd: 'none' | 'space' | 'text' = 'none';
  /** Drop reasoning whitespace until the next visible character (at the start of each block). */
  #skipReasoningSpace = true;
  #reasoningEnd: 'none' | 'space' | 'text' = 'none';

  constructor(options: ReasoningSplitterOptions = {}) {
    this.#inReasoning = options.startsInReasoning ?? false;
  }

  /** Feeds the next delta; returns the content and reasoning it completes (either may be empty). */
  push(delta: string): ReasoningParts {
    const text = this.#pending + delta;
    this.#pending = '';
    const parts = { content: '', reasoning: '' };
    let start = 0;
    let search = 0;
    for (;;) {
      const bracket = text.indexOf('<', search);
      const match = bracket === -1 ? undefined : matchTag(text, bracket);
      if (bracket === -1 || match === 'partial') {
        this.#emit(parts, text.slice(start, bracket === -1 ? text.length : bracket));
        if (bracket !== -1) this.#pending = text.slice(bracket);
        break;
      }
      if (match === undefined) {
        search = bracket + 1;
        continue;
      }
      this.#emit(parts, text.slice(start, bracket));
      this.#switch(match.opening);
      start = bracket + match.tag.length;
      search = start;
    }
    return parts;
  }

  /** Ends the stream: releases held-back text (an unfinished tag is plain text). */
  flush(): ReasoningParts {
    const parts = { content: '', reasoning: '' };
    this.#emit(parts, this.#pending);
    this.#pending = '';
    return parts;
  }

  #switch(opening: boolean): void {
    // A second opening tag inside a block and a closing tag outside one are dropped: blocks do not nest.
    if (opening === this.#inReasoning) return;
    this.#inReasoning = opening;
    if (opening) {
      this.#skipReasoningSpace = true;
    } else {
      // Keep the whitespace on the left of the block if there was some, else the whitespace on its right.
      this.#skipContentSpace = this.#contentEnd !== 'text';
    }
  }

  #emit(parts: { content: string; reasoning: string }, text: string): void {
    if (text === '') return;
    if (this.#inReasoning) this.#emitReasoning(parts, text);
    else this.#emitContent(parts, text);
  }

  #emitContent(parts: { content: string }, text: string): void {
    let visible = text;
    if (this.#skipContentSpace) {
      visible = visible.trimStart();
      if (visible === '') return;
      this.#skipContentSpace = false;
    }
    parts.content += visible;
    this.#contentEnd = endsWithSpace(visible) ? 'space' : 'text';
  }

  #emitReasoning(parts: { reasoning: string }, text: string): void {
    let visible = text;
    if (this.#skipReasoningSpace) {
      visible = visible.trimStart();
      if (visible === '') return;
      this.#skipReasoningSpace = false;
      if (this.#reasoningEnd === 'text') visible = BLOCK_SEPARATOR + visible;
    }
    parts.reasoning += visible;
    this.#reasoningEnd = endsWithSpace(visible) ? 'space' : 'text';
  }
}

/** Which tag starts at `index` (a `<`), `partial` when the text ends inside what may still become one. */
function matchTag(text: string, index: number): TagMatch {
  const next = text.charAt(index + 1);
  if (next !== '' && next !== '/' && next !== 't' && next !== 'T') return undefined;
  const window = text.slice(index, index + LONGEST_TAG).toLowerCase();
  for (const tag of TAGS) {
    if (window.startsWith(tag)) return { tag, opening: !tag.startsWith('</') };
  }
  const atEnd = index + window.length === text.length;
  return atEnd && TAGS.some((tag) => tag.startsWith(window)) ? 'partial' : undefined;
}

function endsWithSpace(text: string): boolean {
  return /\s/.test(text.charAt(text.length - 1));
}
