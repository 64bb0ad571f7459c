/** Options of `formatTable`. */
export interface TableOptions {
  /** Column titles, printed as the first row. */
  readonly headers?: readonly string[];
  /** Longest line in characters (the terminal width): the last column is cut to fit. None: nothing is cut. */
  readonly maxWidth?: number;
}

/** Separator between columns. */
const GAP = '  ';

/**
 * Lays rows out in aligned columns separated by two spaces, one line each (with a trailing newline); the last
 * column is not padded, and cut with `…` when a line would be longer than `maxWidth`.
 */
export function formatTable(
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const all = options.headers === undefined ? rows : [options.headers, ...rows];
  if (all.length === 0) return '';
  const columns = Math.max(...all.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...all.map((row) => [...(row[column] ?? '')].length)),
  );
  const lines = all.map((row) => {
    const cells = Array.from({ length: columns }, (_, column) => {
      const cell = row[column] ?? '';
      return column === columns - 1 ? cell : cell.padEnd(widths[column] ?? 0);
    });
    const line = cells.join(GAP).trimEnd();
    return options.maxWidth === undefined ? line : truncate(line, options.maxWidth);
  });
  return `${lines.join('\n')}\n`;
}

/** Cuts `text` to at most `width` characters, ending with `…` when something was cut. */
export function truncate(text: string, width: number): string {
  const characters = [...text];
  if (characters.length <= width) return text;
  if (width <= 1) return characters.slice(0, Math.max(width, 0)).join('');
  return `${characters.slice(0, width - 1).join('')}…`;
}

/** The first non-empty line of `text`, trimmed. */
export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
}

/** The width output written to `stream` should fit: the terminal's columns on a TTY (when known), else unlimited. */
export function outputWidth(stream: {
  readonly isTTY: boolean;
  readonly columns: number;
}): number | undefined {
  if (!stream.isTTY || !(stream.columns > 0)) return undefined;
  return Math.max(stream.columns, 20);
}
