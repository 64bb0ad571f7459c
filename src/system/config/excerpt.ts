import { type Redactor, safeForTerminal } from '../../core/index.js';

/** Characters of one excerpt line shown around the error column; longer lines are cut with `…`. */
const EXCERPT_WIDTH = 80;

/** A line shown in an excerpt: redacted, terminal-safe, and cut to the window around `caret`. */
interface ShownLine {
  readonly text: string;
  /** Where the error column is in `text`, for the error line. */
  readonly caret: number;
}

/**
 * The lines around a syntax error (`line` and `column` 1-based), numbered like smol-toml's excerpt and with a
 * `^` under the column. Every line is redacted whole before it is cut (so a known secret cut by the window still
 * goes), made safe for a terminal (an environment dump's NULs and escape sequences are shown as escapes), and
 * cut to a window around the column, so a file of one huge line does not print whole.
 */
export function syntaxExcerpt(
  text: string,
  position: { readonly line: number; readonly column: number },
  redact: Redactor,
): string {
  const lines = text.split(/\r?\n/);
  const numberWidth = String(position.line + 1).length;
  let excerpt = '';
  for (let number = position.line - 1; number <= position.line + 1; number++) {
    const raw = lines[number - 1];
    if (raw === undefined || raw === '') continue;
    const column = number === position.line ? position.column : 1;
    const shown = showLine(raw, column, redact);
    excerpt += `${String(number).padEnd(numberWidth, ' ')}:  ${shown.text}\n`;
    if (number === position.line) excerpt += `${' '.repeat(numberWidth + 3 + shown.caret)}^\n`;
  }
  return excerpt;
}

function showLine(raw: string, column: number, redact: Redactor): ShownLine {
  const safe = (part: string): string => safeForTerminal(redact(part), { singleLine: true });
  const line = safe(raw);
  const before = safe(raw.slice(0, Math.max(0, column - 1)));
  const caret = line.startsWith(before) ? before.length : Math.min(before.length, line.length);
  if (line.length <= EXCERPT_WIDTH) return { text: line, caret };
  const start = Math.max(0, Math.min(caret - EXCERPT_WIDTH / 2, line.length - EXCERPT_WIDTH));
  const end = start + EXCERPT_WIDTH;
  const head = start > 0 ? '…' : '';
  const tail = end < line.length ? '…' : '';
  return { text: `${head}${line.slice(start, end)}${tail}`, caret: caret - start + head.length };
}
