/** A key inside a TOML document: table names, keys and array-of-tables indexes (`['mcp', 'servers', 0, 'name']`). */
export type KeyPath = readonly (string | number)[];

/** Finds the 1-based line where a key (or, failing that, its nearest enclosing key or table) is written. */
export type LineLocator = (path: KeyPath) => number | undefined;

const BARE_KEY = /^[A-Za-z0-9_-]+/;

/** Where multi-line values (arrays, `"""` strings) leave the scanner at the end of a line. */
interface ScanState {
  depth: number;
  multiline: '"""' | "'''" | undefined;
}

/**
 * Indexes the lines of TOML text by key path, so that errors can name a line: smol-toml reports positions only for
 * syntax errors. The scan is line-based and good enough for hand-written config files: `[table]` and
 * `[[array.of.tables]]` headers, dotted and quoted keys, and multi-line arrays and strings (which it skips).
 */
export function indexKeyLines(text: string): LineLocator {
  const lines = new Map<string, number>();
  const arrayCounts = new Map<string, number>();
  const state: ScanState = { depth: 0, multiline: undefined };
  let table: KeyPath = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (state.depth > 0 || state.multiline !== undefined) {
      scanValue(line, state);
      return;
    }
    const header = parseHeader(line);
    if (header !== undefined) {
      table = headerPath(header, arrayCounts);
      record(lines, table, index + 1);
      return;
    }
    const assignment = parseAssignment(line);
    if (assignment === undefined) return;
    record(lines, [...table, ...assignment.key], index + 1);
    scanValue(assignment.value, state);
  });
  return (path) => {
    for (let length = path.length; length > 0; length--) {
      const line = lines.get(JSON.stringify(path.slice(0, length)));
      if (line !== undefined) return line;
    }
    return undefined;
  };
}

/** Records `path` and every prefix not seen yet, so a key of an implicit table still finds a line. */
function record(lines: Map<string, number>, path: KeyPath, line: number): void {
  for (let length = 1; length <= path.length; length++) {
    const key = JSON.stringify(path.slice(0, length));
    if (!lines.has(key)) lines.set(key, line);
  }
}

function headerPath(
  header: { key: string[]; array: boolean },
  counts: Map<string, number>,
): KeyPath {
  if (!header.array) return header.key;
  const name = JSON.stringify(header.key);
  const index = counts.get(name) ?? 0;
  counts.set(name, index + 1);
  return [...header.key, index];
}

function parseHeader(line: string): { key: string[]; array: boolean } | undefined {
  const match = /^\s*(\[\[?)(.*?)(\]\]?)\s*(#.*)?$/.exec(line);
  if (match === null) return undefined;
  const array = match[1] === '[[';
  if (array !== (match[3] === ']]')) return undefined;
  const parsed = parseDottedKey(match[2] ?? '');
  if (parsed === undefined || parsed.rest.trim() !== '') return undefined;
  return { key: parsed.key, array };
}

function parseAssignment(line: string): { key: string[]; value: string } | undefined {
  const parsed = parseDottedKey(line);
  if (parsed === undefined) return undefined;
  const rest = parsed.rest.trimStart();
  if (!rest.startsWith('=')) return undefined;
  return { key: parsed.key, value: rest.slice(1) };
}

/** Reads `a."b.c".d` from the start of `text` (after whitespace); undefined when no key starts there. */
function parseDottedKey(text: string): { key: string[]; rest: string } | undefined {
  const key: string[] = [];
  let rest = text.trimStart();
  for (;;) {
    const part = readKeyPart(rest);
    if (part === undefined) return undefined;
    key.push(part.name);
    rest = part.rest.trimStart();
    if (!rest.startsWith('.')) return { key, rest };
    rest = rest.slice(1).trimStart();
  }
}

function readKeyPart(text: string): { name: string; rest: string } | undefined {
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    const end = text.indexOf(quote, 1);
    if (end < 0) return undefined;
    const inner = text.slice(1, end);
    return { name: quote === '"' ? unescapeBasic(inner) : inner, rest: text.slice(end + 1) };
  }
  const bare = BARE_KEY.exec(text);
  if (bare === null) return undefined;
  return { name: bare[0], rest: text.slice(bare[0].length) };
}

function unescapeBasic(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/** Advances `state` over one line of a value: bracket depth outside strings, and multi-line strings. */
function scanValue(text: string, state: ScanState): void {
  let position = 0;
  while (position < text.length) {
    if (state.multiline !== undefined) {
      const end = text.indexOf(state.multiline, position);
      if (end < 0) return;
      state.multiline = undefined;
      position = end + 3;
      continue;
    }
    const char = text[position];
    if (char === '#') return;
    if (text.startsWith('"""', position) || text.startsWith("'''", position)) {
      state.multiline = text.startsWith('"""', position) ? '"""' : "'''";
      position += 3;
    } else if (char === '"' || char === "'") {
      position = skipString(text, position);
    } else {
      if (char === '[' || char === '{') state.depth++;
      if ((char === ']' || char === '}') && state.depth > 0) state.depth--;
      position++;
    }
  }
}

function skipString(text: string, start: number): number {
  const quote = text[start];
  let position = start + 1;
  while (position < text.length && text[position] !== quote) {
    position += quote === '"' && text[position] === '\\' ? 2 : 1;
  }
  return position + 1;
}
