/** Decoded text, or why the bytes are not text. */
export type DecodedText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string };

/** The first lines of a text and whether anything was cut. */
export interface LimitedLines {
  readonly text: string;
  readonly totalLines: number;
  readonly cut: boolean;
}

/** Line ends as Python's `str.splitlines` knows them (upstream cut `max_lines` this way). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: FS, GS and RS are line ends for Python too.
const LINE_END = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

/** Decodes strict UTF-8; bytes that are not UTF-8, or text with NUL bytes, are refused as binary. */
export function decodeUtf8Text(bytes: Uint8Array): DecodedText {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return {
      ok: false,
      message: 'File is not valid UTF-8 text (it looks binary); file_read only reads text files.',
    };
  }
  if (text.includes('\0')) {
    return {
      ok: false,
      message: 'File looks binary (it contains NUL bytes); file_read only reads text files.',
    };
  }
  return { ok: true, text };
}

/** Keeps the first `maxLines` lines (with their line ends) and counts all of them. */
export function limitLines(text: string, maxLines: number): LimitedLines {
  let lines = 0;
  let cutAt: number | undefined;
  let lastEnd = 0;
  for (const match of text.matchAll(LINE_END)) {
    lines += 1;
    lastEnd = match.index + match[0].length;
    if (lines === maxLines) cutAt = lastEnd;
  }
  const totalLines = lastEnd < text.length ? lines + 1 : lines;
  if (totalLines <= maxLines || cutAt === undefined) {
    return { text, totalLines, cut: false };
  }
  return { text: text.slice(0, cutAt), totalLines, cut: true };
}
