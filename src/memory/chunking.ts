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
  const pieces = splitPieces(normalised, SEPARATORS[options.kind ?? 'text'], chunkSize);
  return mergePieces(pieces, chunkSize, chunkOverlap);
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

/** Cuts `text` into consecutive pieces of at most `size` characters that together are exactly `text`. */
function splitPieces(text: string, separators: readonly RegExp[], size: number): string[] {
  if (text.length <= size) return [text];
  const [separator, ...finer] = separators;
  if (separator === undefined) return hardSplit(text, size);
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(separator)) {
    const end = match.index + match[0].length;
    if (end <= start || end >= text.length) continue;
    pieces.push(...splitPieces(text.slice(start, end), finer, size));
    start = end;
  }
  pieces.push(...splitPieces(text.slice(start), finer, size));
  return pieces;
}

/** Cuts every `size` characters, never between the two halves of a surrogate pair. */
function hardSplit(text: string, size: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && end - start > 1 && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** Packs pieces into chunks of at most `size` characters, each starting with the previous chunk's tail. */
function mergePieces(pieces: readonly string[], size: number, overlap: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current.length + piece.length <= size) {
      current += piece;
      continue;
    }
    if (current.trim() !== '') chunks.push(current.trim());
    current = overlapTail(current, Math.min(overlap, size - piece.length)) + piece;
  }
  if (current.trim() !== '') chunks.push(current.trim());
  return chunks;
}

/** At most `length` characters from the end of `text`, starting at a word when the tail has one. */
function overlapTail(text: string, length: number): string {
  if (length <= 0 || text.trim() === '') return '';
  let start = Math.max(0, text.length - length);
  if (start > 0 && !/\s/.test(text.charAt(start - 1))) {
    const space = text.slice(start).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start += 1;
  return text.slice(start);
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
