/**
 * Forward-only text scanning shared by the tool-call readers (text-tool-calls and each family's format): searches
 * that remember their last hit so repeated searches stay linear, code-fence tracking, and re-joining the prose left
 * around cut-out calls.
 */

/** A search from positions that never move backwards: the index of the next hit at or after `from`, or -1. */
export type Finder = (from: number) => number;

/**
 * A search for `needle` from positions that never move backwards; it remembers the last hit, so searching from
 * many positions for a needle that is far away (or absent) stays linear.
 */
export function createFinder(text: string, needle: string): Finder {
  let hit = -2;
  return (from) => {
    if (hit === -1 || hit >= from) return hit;
    hit = text.indexOf(needle, from);
    return hit;
  };
}

/** The nearest hit of several needles (each a `createFinder`), or -1. */
export function createAnyFinder(text: string, needles: readonly string[]): Finder {
  const finders = needles.map((needle) => createFinder(text, needle));
  return (from) => {
    let best = -1;
    for (const find of finders) {
      const hit = find(from);
      if (hit !== -1 && (best === -1 || hit < best)) best = hit;
    }
    return best;
  };
}

/** A found index, or `limit` when it is missing (-1) or past `limit`. */
export function indexOrLimit(index: number, limit: number): number {
  return index === -1 || index > limit ? limit : index;
}

/** Whether a character code is JSON / ASCII whitespace (space, LF, CR, tab, form feed). */
export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x0c;
}

/** Index of the first character at or after `index` that is not whitespace (or `limit`). */
export function skipSpace(text: string, index: number, limit: number = text.length): number {
  let at = index;
  while (at < limit && isSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/** Tells whether a position lies inside a ``` code fence; positions must not move backwards. */
export interface FenceTracker {
  isInside(index: number): boolean;
  /** Moves on to `index` without counting the fences before it (they were inside a call). */
  skipTo(index: number): void;
}

/** Counts ``` fences from the start of `text` as positions are asked about, in linear time overall. */
export function createFenceTracker(text: string): FenceTracker {
  const nextFence = createFinder(text, '```');
  let from = 0;
  let inside = false;
  return {
    isInside(index) {
      for (let fence = nextFence(from); fence !== -1 && fence < index; fence = nextFence(from)) {
        inside = !inside;
        from = fence + 3;
      }
      return inside;
    },
    skipTo(index) {
      if (index > from) from = index;
    },
  };
}

/**
 * Joins the text left around cut-out calls: each piece is trimmed, and two pieces are joined by the whitespace
 * that stood on the left of the cut, or else the whitespace on its right.
 */
export function joinPieces(pieces: readonly string[]): string {
  const parts: string[] = [];
  let gap = '';
  for (const piece of pieces) {
    const core = piece.trim();
    if (core === '') {
      if (gap === '') gap = piece;
      continue;
    }
    const lead = piece.slice(0, piece.length - piece.trimStart().length);
    if (parts.length > 0) parts.push(gap === '' ? lead : gap);
    parts.push(core);
    gap = piece.slice(piece.trimEnd().length);
  }
  return parts.join('');
}

/** A stretch of a reply `[start, end)` that held calls and is cut out of the text. */
export interface CutBlock<Call> {
  readonly start: number;
  readonly end: number;
  readonly calls: readonly Call[];
}

/** The reply without `blocks` (in order, not overlapping) and their calls; undefined when they hold none. */
export function cutBlocks<Call>(
  reply: string,
  blocks: readonly CutBlock<Call>[],
): { content: string; calls: Call[] } | undefined {
  const calls: Call[] = [];
  for (const block of blocks) for (const call of block.calls) calls.push(call);
  if (calls.length === 0) return undefined;
  const pieces: string[] = [];
  let copied = 0;
  for (const block of blocks) {
    pieces.push(reply.slice(copied, block.start));
    copied = block.end;
  }
  pieces.push(reply.slice(copied));
  return { content: joinPieces(pieces), calls };
}

/** Answers `text.includes(marker)` for the markers of one text; each answer costs a lookup once the text is scanned. */
export type MarkerTest = (marker: string) => boolean;

const LESS_THAN = 0x3c;

/**
 * A test of which `markers` a text holds, made once per text: the markers that start with `<` (most call markers)
 * are all found in one pass over the text's `<`; any other marker is searched from its first character that is not
 * a letter, digit, space or `_` (`=functions.` in `to=functions.`: rarer in prose than its first letter). The
 * answers are those of `text.includes(marker)`, for any marker asked (listed or not).
 */
export function createMarkerIndex(markers: readonly string[]): (text: string) => MarkerTest {
  // `<` and one more character: searched for as any other marker (too short for a two-character key).
  const angled = new Set(markers.filter((m) => m.length >= 3 && m.charCodeAt(0) === LESS_THAN));
  const byPrefix = new Map<number, string[]>();
  for (const marker of angled) {
    const key = prefixKey(marker, 0);
    const list = byPrefix.get(key) ?? [];
    list.push(marker);
    byPrefix.set(key, list);
  }
  const anchors = new Map(markers.map((marker) => [marker, anchorOf(marker)]));
  return (text) => {
    let found: Set<string> | undefined;
    let others: Map<string, boolean> | undefined;
    return (marker) => {
      if (angled.has(marker)) {
        found ??= angledMarkers(text, byPrefix, angled.size);
        return found.has(marker);
      }
      others ??= new Map();
      let holds = others.get(marker);
      if (holds === undefined) {
        holds = includesByAnchor(text, marker, anchors.get(marker) ?? anchorOf(marker));
        others.set(marker, holds);
      }
      return holds;
    };
  };
}

/**
 * The two characters after a `<` at `at`, as one key (most markers start `<|`, so one character tells little);
 * a missing one (the end of the text) counts as 0 or NaN, which no marker's key holds.
 */
function prefixKey(text: string, at: number): number {
  return text.charCodeAt(at + 1) * 0x10000 + (text.charCodeAt(at + 2) || 0);
}

/** The markers of `byPrefix` (keyed by `prefixKey`) that `text` holds, from one pass over its `<`. */
function angledMarkers(
  text: string,
  byPrefix: ReadonlyMap<number, readonly string[]>,
  count: number,
): Set<string> {
  const found = new Set<string>();
  for (
    let at = text.indexOf('<');
    at !== -1 && found.size < count;
    at = text.indexOf('<', at + 1)
  ) {
    const candidates = byPrefix.get(prefixKey(text, at));
    if (candidates === undefined) continue;
    for (const marker of candidates) if (text.startsWith(marker, at)) found.add(marker);
  }
  return found;
}

/** Where in a marker its first character that is not a letter, digit, space or `_` stands (0 when none). */
function anchorOf(marker: string): number {
  return Math.max(0, marker.search(/[^A-Za-z0-9 _]/));
}

/** `text.includes(marker)`, searching for the marker from `offset` (its anchor) and checking back from there. */
function includesByAnchor(text: string, marker: string, offset: number): boolean {
  if (offset === 0) return text.includes(marker);
  const anchor = marker.slice(offset);
  for (let at = text.indexOf(anchor, offset); at !== -1; at = text.indexOf(anchor, at + 1)) {
    if (text.startsWith(marker, at - offset)) return true;
  }
  return false;
}
