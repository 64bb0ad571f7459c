import { extname } from 'node:path';
import { JarvisError } from '../core/index.js';

/** How a text is split: Markdown at headings and paragraphs, code at blank lines and top-level blocks. */
export type TextKind = 'markdown' | 'code' | 'text';

/** Longest chunk, in characters, when none is given. */
export const DEFAULT_CHUNK_SIZE = 1_000;

/** Characters a chunk repeats from the end of the previous one, when none is given. */
export const DEFAULT_CHUNK_OVERLAP = 200;

/** Options of `chunkText`. */
export interface ChunkOptions {
  /** Longest chunk in characters (UTF-16 code units); default 1,000. */
  readonly chunkSize?: number;
  /** Characters repeated from the end of the previous chunk, fewer than `chunkSize`; default 200. */
  readonly chunkOverlap?: number;
  readonly kind?: TextKind;
}

const MARKDOWN_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.mkd']);
const CODE_EXTENSIONS = new Set(
  (
    '.ts .tsx .mts .cts .js .jsx .mjs .cjs .py .rs .go .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .cs .rb ' +
    '.php .swift .m .sh .bash .zsh .fish .ps1 .sql .lua .pl .r .jl .dart .ex .exs .erl .hs .ml .clj .vue .svelte'
  ).split(' '),
);

// Split points, coarsest first; a text is cut right after each match (lookaheads keep headings and top-level
// lines at the start of the next piece). Pieces still too long are split again with the next pattern.
const SEPARATORS: Readonly<Record<TextKind, readonly RegExp[]>> = {
  markdown: [/\n(?=#{1,6}[ \t])/g, /\n[ \t]*\n/g, /\n/g, /[.!?][ \t]+/g, /[ \t]+/g],
  code: [/\n[ \t]*\n(?=\S)/g, /\n[ \t]*\n/g, /\n(?=\S)/g, /\n/g, /[ \t]+/g],
  text: [/\n[ \t]*\n/g, /\n/g, /[.!?][ \t]+/g, /[ \t]+/g],
};

/** The kind of text a file holds, from its extension. */
export function textKindOf(path: string): TextKind {
  const extension = extname(path).toLowerCase();
  if (MARKDOWN_EXTENSIONS.has(extension)) return 'markdown';
  return CODE_EXTENSIONS.has(extension) ? 'code' : 'text';
}

/**
 * Splits a text into chunks of at most `chunkSize` characters, at the coarsest boundary that fits (headings,
 * paragraphs, blank lines, lines, sentences, words, then characters), each starting with up to `chunkOverlap`
 * characters from the end of the previous one; chunks are trimmed and never empty.
 */
export function chunkText(text: string, options: ChunkOptions = {}): readonly string[] {
  const { chunkSize, chunkOverlap } = resolveChunkSizes(options);
  const normalised = text.replace(/\r\n?/g, '\n');
  const ends = pieceEnds(normalised, SEPARATORS[options.kind ?? 'text'], chunkSize);
  return mergePieces(normalised, ends, chunkSize, chunkOverlap);
}

/** The chunk sizes to use, validated; throws a `JarvisError` for sizes that are not usable. */
export function resolveChunkSizes(options: ChunkOptions): {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
} {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, chunkSize - 1);
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) {
    throw invalid(
      `chunkSize must be a whole number of characters, at least 1 (got ${String(chunkSize)})`,
    );
  }
  if (!Number.isSafeInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw invalid(
      `chunkOverlap must be a whole number of characters from 0 to chunkSize - 1 (${chunkSize - 1}; got ${String(chunkOverlap)})`,
    );
  }
  return { chunkSize, chunkOverlap };
}

/** A range being split: the ends of its parts, the next part to look at, and the separator for its parts. */
interface SplitFrame {
  readonly partEnds: readonly number[];
  next: number;
  from: number;
  readonly level: number;
}

/**
 * Where `text` is cut into consecutive pieces of at most `size` characters: the end of each piece, in order
 * (the last is `text.length`). Iterative, with one frame per separator level (no recursion, no copies of long
 * arrays), and each level reads every character at most once: a megabyte-long line costs linear time.
 */
function pieceEnds(text: string, separators: readonly RegExp[], size: number): number[] {
  const ends: number[] = [];
  const frames: SplitFrame[] = [{ partEnds: [text.length], next: 0, from: 0, level: 0 }];
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    const end = frame.partEnds[frame.next];
    if (end === undefined) {
      frames.pop();
      continue;
    }
    const start = frame.from;
    frame.next += 1;
    frame.from = end;
    const separator = separators[frame.level];
    if (end - start <= size) ends.push(end);
    else if (separator === undefined) hardSplitEnds(text, start, end, size, ends);
    else {
      const partEnds = partEndsAfter(text, start, end, separator);
      frames.push({ partEnds, next: 0, from: start, level: frame.level + 1 });
    }
  }
  return ends;
}

/** The ends of the parts of `start..end` cut right after each match of `separator` (the last is `end`). */
function partEndsAfter(text: string, start: number, end: number, separator: RegExp): number[] {
  const partEnds: number[] = [];
  let previous = start;
  for (const match of text.slice(start, end).matchAll(separator)) {
    const cut = start + match.index + match[0].length;
    if (cut >= end) break;
    if (cut > previous) partEnds.push(cut);
    previous = Math.max(previous, cut);
  }
  partEnds.push(end);
  return partEnds;
}

/** Cuts `start..end` every `size` characters, never between the two halves of a surrogate pair. */
function hardSplitEnds(
  text: string,
  start: number,
  end: number,
  size: number,
  ends: number[],
): void {
  let from = start;
  while (from < end) {
    let to = Math.min(from + size, end);
    if (to < end && to - from > 1 && isHighSurrogate(text.charCodeAt(to - 1))) to -= 1;
    ends.push(to);
    from = to;
  }
}

/**
 * Packs consecutive pieces into chunks of at most `size` characters, each starting with the previous chunk's
 * tail. A chunk is always one contiguous range of `text` (its overlap plus the pieces after it), so only the
 * finished chunks are copied.
 */
function mergePieces(
  text: string,
  ends: readonly number[],
  size: number,
  overlap: number,
): string[] {
  const chunks: string[] = [];
  let chunkStart = 0;
  let pieceStart = 0;
  for (const pieceEnd of ends) {
    const pieceLength = pieceEnd - pieceStart;
    if (pieceStart - chunkStart + pieceLength > size) {
      const finished = text.slice(chunkStart, pieceStart).trim();
      if (finished !== '') chunks.push(finished);
      const tailLength = finished === '' ? 0 : Math.min(overlap, size - pieceLength);
      chunkStart = overlapStart(text, chunkStart, pieceStart, tailLength);
    }
    pieceStart = pieceEnd;
  }
  const last = text.slice(chunkStart, pieceStart).trim();
  if (last !== '') chunks.push(last);
  return chunks;
}

/** Where the last (at most) `length` characters of `start..end` begin, at a word when the tail has one. */
function overlapStart(text: string, start: number, end: number, length: number): number {
  if (length <= 0) return end;
  let from = Math.max(start, end - length);
  if (from > start && !/\s/.test(text.charAt(from - 1))) {
    const space = text.slice(from, end).search(/\s/);
    if (space >= 0) from += space + 1;
  }
  if (from > start && from < end && isLowSurrogate(text.charCodeAt(from))) from += 1;
  return from;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function invalid(message: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message });
}
