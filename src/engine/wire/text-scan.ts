/**
 * Forward-only text scanning shared by the tool-call readers (text-tool-calls and each family's format): searches
 * that remember their last hit so repeated searches stay linear, code-fence tracking, and re-joining the prose left
 * around cut-out calls.
 */

/** A search from positions that never move backwards: the index of the next hit at or after `from`, or -1. */
export type Finder = (from: number) => number;

/** A remembered hit that is no hit yet: below every `from`, so the first search always runs. */
const NOT_SEARCHED = -2;

/**
 * A search for `needle` from positions that never move backwards; it remembers the last hit, so searching from
 * many positions for a needle that is far away (or absent) stays linear. `firstHit` is `text.indexOf(needle)` when
 * the caller has it already (the first search is then not run again).
 */
export function createFinder(text: string, needle: string, firstHit = NOT_SEARCHED): Finder {
  let hit = firstHit;
  return (from) => {
    hit = hitFrom(text, needle, hit, from);
    return hit;
  };
}

/**
 * The tags of one kind in a reply, found in advance, in order, each with where it ends: a forward-only search
 * over them (answering as `createFinder`'s would), which also tells where the tag it found last ends, so that no
 * tag found in advance is looked at again.
 */
export class TagPlaces {
  /** Each tag's start and end, in turn; made with the first tag (mostly one or none). */
  private places: number[] | undefined;
  /** The index in `places` of the first tag not behind the last search. */
  private next = 0;

  /** Adds the tag from `start` to `end` (after every tag added so far). */
  add(start: number, end: number): void {
    if (this.places === undefined) this.places = [start, end];
    else this.places.push(start, end);
  }

  /** Where the first tag at or after `from` starts, or -1. */
  find(from: number): number {
    const { places } = this;
    if (places === undefined) return -1;
    while (this.next < places.length && (places[this.next] as number) < from) this.next += 2;
    return this.next < places.length ? (places[this.next] as number) : -1;
  }

  /** Where the tag that `find` found last ends. */
  foundEnd(): number {
    return (this.places as number[])[this.next + 1] as number;
  }
}

/**
 * Finds in one pass every tag of a family whose tags all start with `prefix` and are told apart by the sticky
 * `pattern` (any of them): one search per tag the text holds, where a search per tag and spelling would read the
 * whole text each time (most spellings are absent). Each tag is added, with its end, to the places `kindOf` picks.
 */
export function placeTags(
  text: string,
  prefix: string,
  pattern: RegExp,
  kindOf: (start: number, end: number) => TagPlaces,
): void {
  for (let at = text.indexOf(prefix); at !== -1; at = text.indexOf(prefix, at + 1)) {
    pattern.lastIndex = at;
    if (pattern.test(text)) kindOf(at, pattern.lastIndex).add(at, pattern.lastIndex);
  }
}

/**
 * The next hit of `needle` at or after `from`, given the last hit found (-1: none left, `NOT_SEARCHED`): searches
 * again only when the last hit lies behind `from`. The memory of every forward-only search here.
 */
function hitFrom(text: string, needle: string, last: number, from: number): number {
  return last === -1 || last >= from ? last : text.indexOf(needle, from);
}

/**
 * The nearest hit of several needles, or -1: one search per needle and hit (each needle's next hit is kept, as
 * `createFinder` keeps it), held in one list of numbers rather than a finder per needle.
 */
export function createAnyFinder(text: string, needles: readonly string[]): Finder {
  const hits = needles.map(() => NOT_SEARCHED);
  return (from) => {
    let best = -1;
    for (let index = 0; index < hits.length; index += 1) {
      const hit = hitFrom(text, needles[index] as string, hits[index] as number, from);
      hits[index] = hit;
      if (hit !== -1 && (best === -1 || hit < best)) best = hit;
    }
    return best;
  };
}

/**
 * The first of `tags` that `text` holds at `at`, or `undefined` (a plain loop: no callback made per call). The
 * first two characters are looked at before a tag is compared whole: a look is inlined, a call is not, and most
 * tags asked about are not there.
 */
export function tagAt(text: string, tags: readonly string[], at: number): string | undefined {
  const from = Math.max(at, 0); // where startsWith would look
  const first = text.charCodeAt(from);
  const second = text.charCodeAt(from + 1);
  for (const tag of tags) {
    if (tag.length > 1 && (tag.charCodeAt(0) !== first || tag.charCodeAt(1) !== second)) continue;
    if (holdsTag(text, from, tag)) return tag;
  }
  return undefined;
}

/**
 * `text.startsWith(tag, at)` for `at >= 0`. Node 20's `startsWith` reads both strings a character at a time through
 * a generic access (about 40 instructions a character: ~750 for a 16-character tag that is there); comparing the
 * second character (the first of a tag is mostly `<`), then one slice, measured a third to two thirds cheaper.
 */
export function holdsTag(text: string, at: number, tag: string): boolean {
  if (tag.length < 2) return text.startsWith(tag, at);
  return text.charCodeAt(at + 1) === tag.charCodeAt(1) && text.slice(at, at + tag.length) === tag;
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
  return new Fences(text);
}

/**
 * One object (no closures) per reply: every reader makes one, most for a reply without a fence. Each search for the
 * next fence runs from where the last one was asked about to wherever it is found (or the end), and its answer is
 * kept until asked about from past it: no copy of the text is made to bound a search, and no stretch of the text
 * is searched twice, so a reply without a fence is searched once.
 */
class Fences implements FenceTracker {
  /** The first fence at or after the last search's start (`NO_FENCE`: none; behind `from`: unknown). */
  private next = NOT_SEARCHED;
  private from = 0;
  private inside = false;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  isInside(index: number): boolean {
    for (let fence = this.fenceBefore(index); fence !== -1; fence = this.fenceBefore(index)) {
      this.inside = !this.inside;
      this.from = fence + 3;
    }
    return this.inside;
  }

  skipTo(index: number): void {
    if (index > this.from) this.from = index;
  }

  /** The first fence that starts at or after `from` and before `index`, or -1. */
  private fenceBefore(index: number): number {
    if (this.next < this.from) {
      const found = this.text.indexOf('```', this.from);
      this.next = found === -1 ? NO_FENCE : found;
    }
    return this.next < index ? this.next : -1;
  }
}

/** No fence further on: a place past the end of any string (a small integer still). */
const NO_FENCE = 0x3fffffff;

/**
 * Joins the text left around cut-out calls: each piece is trimmed, and two pieces are joined by the whitespace
 * that stood on the left of the cut, or else the whitespace on its right. (`trim()`'s white space, found by index:
 * one slice per piece kept instead of a trimmed copy of each side.)
 */
export function joinPieces(pieces: readonly string[]): string {
  let out = '';
  let started = false;
  let gap = '';
  for (const piece of pieces) {
    const start = trimmedStartIn(piece, 0, piece.length);
    if (start === piece.length) {
      if (gap === '') gap = piece;
      continue;
    }
    const end = trimmedEndIn(piece, start, piece.length);
    if (started) out += gap === '' ? piece.slice(0, start) : gap;
    out += start === 0 && end === piece.length ? piece : piece.slice(start, end);
    started = true;
    gap = end === piece.length ? '' : piece.slice(end);
  }
  return out;
}

/**
 * `joinPieces` of the pieces `text.slice(ranges[0], ranges[1])`, `text.slice(ranges[2], ranges[3])`, …, then
 * `text.slice(tail)`, worked out on the places: only what is kept is sliced (once), no piece is copied first.
 */
export function joinRanges(text: string, ranges: readonly number[], tail: number): string {
  let out = '';
  let started = false;
  // The white space kept to join the next piece with (empty: none yet).
  let gapStart = 0;
  let gapEnd = 0;
  for (let index = 0; index <= ranges.length; index += 2) {
    const from = index < ranges.length ? (ranges[index] as number) : tail;
    const to = index < ranges.length ? (ranges[index + 1] as number) : text.length;
    const start = trimmedStartIn(text, from, to);
    if (start === to) {
      if (gapStart === gapEnd) {
        gapStart = from;
        gapEnd = to;
      }
      continue;
    }
    const end = trimmedEndIn(text, start, to);
    if (started)
      out += gapStart === gapEnd ? text.slice(from, start) : text.slice(gapStart, gapEnd);
    out += text.slice(start, end);
    started = true;
    gapStart = end;
    gapEnd = to;
  }
  return out;
}

/** The first place in `[from, to)` whose character `trim()` keeps (`to` when none). */
function trimmedStartIn(text: string, from: number, to: number): number {
  let at = from;
  while (at < to && isTrimmedSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/** The place after the last character in `[floor, to)` that `trim()` keeps, not before `floor`. */
function trimmedEndIn(text: string, floor: number, to: number): number {
  let at = to;
  while (at > floor && isTrimmedSpace(text.charCodeAt(at - 1))) at -= 1;
  return at;
}

/** `text.slice(start, end).trim()`, sliced once (a name read from a tag rarely has space around it). */
export function trimmedSlice(text: string, start: number, end: number): string {
  const from = trimmedStartIn(text, start, end);
  return text.slice(from, trimmedEndIn(text, from, end));
}

/**
 * What `String.prototype.trim` removes: ECMAScript WhiteSpace (Unicode Zs, BOM, tabs) and LineTerminator, which is
 * also what `\s` matches in a regular expression.
 */
export function isTrimmedSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
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
  const ranges: number[] = new Array(2 * blocks.length);
  let copied = 0;
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index] as CutBlock<Call>;
    ranges[2 * index] = copied;
    ranges[2 * index + 1] = block.start;
    copied = block.end;
  }
  return { content: joinRanges(reply, ranges, copied), calls };
}

/**
 * Reads every block that starts at one of the `openers` found in advance (an opener inside a ``` fence does not
 * count; a block runs at most to the next opener) and cuts the blocks that hold calls out of the reply; the text
 * around them is kept. `read` gets where the block's text starts and its limit; undefined when none holds a call.
 */
export function readTaggedBlocks<Call>(
  reply: string,
  openers: TagPlaces,
  read: (start: number, limit: number) => Omit<CutBlock<Call>, 'start'> | undefined,
): { content: string; calls: Call[] } | undefined {
  const fence = createFenceTracker(reply);
  // Made with its first block (a first push would make room for sixteen).
  let blocks: CutBlock<Call>[] | undefined;
  for (let search = 0; ; ) {
    const at = openers.find(search);
    if (at === -1) break;
    const start = openers.foundEnd();
    const following = openers.find(start);
    const block = fence.isInside(at)
      ? undefined
      : read(start, following === -1 ? reply.length : following);
    search = block === undefined ? start : block.end;
    if (block === undefined) continue;
    const cut = { start: at, end: block.end, calls: block.calls };
    if (blocks === undefined) blocks = [cut];
    else blocks.push(cut);
    fence.skipTo(block.end);
  }
  return blocks === undefined ? undefined : cutBlocks(reply, blocks);
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
  const index = indexMarkers(markers);
  return (text) => {
    const hits = index.scan(text);
    return (marker) => hits.has(marker);
  };
}

/** A fixed list of markers, numbered, and a scan of a text for them (see `createMarkerIndex`). */
export interface MarkerIndex {
  /** The number of a listed marker (the same for every text), or -1 when it is not listed. */
  idOf(marker: string): number;
  /** Which markers `text` holds, each found when first asked about (the `<` ones all in one pass). */
  scan(text: string): MarkerHits;
  /** Whether the listed marker numbered `id` is one of those found by the pass over a text's `<`. */
  isAngled(id: number): boolean;
}

/** Which markers one text holds: `text.includes(marker)`, answered once per marker. */
export interface MarkerHits {
  /** Whether the text holds the listed marker numbered `id` (from `MarkerIndex.idOf`). */
  holds(id: number): boolean;
  /** `text.includes(marker)` for any marker: listed ones by their number, others searched. */
  has(marker: string): boolean;
  /** Whether the text holds any of the listed markers found by the pass over its `<` (see `isAngled`). */
  holdsAngled(): boolean;
}

/**
 * Numbers `markers` once (by `idOf`), so a text's answers are kept in a byte per marker and asked by number: no
 * string hashed or compared per question (a reply asks about some fifty markers, most absent).
 */
export function indexMarkers(markers: readonly string[]): MarkerIndex {
  return new Markers(markers);
}

class Markers implements MarkerIndex {
  readonly list: readonly string[];
  private readonly ids: ReadonlyMap<string, number>;
  /** Per marker: 1 when it starts with `<` (and is found by the pass over `<`), else 0. */
  readonly angled: Uint8Array;
  readonly angledCount: number;
  /** The numbers of the `<` markers by `prefixKey`. */
  readonly byPrefix: ReadonlyMap<number, readonly number[]>;
  /** Per marker: where its anchor stands (see `anchorOf`). */
  readonly anchors: readonly number[];
  /** Per `<` marker: the place of the character looked at before `startsWith` (see `probeOf`), and that character. */
  readonly probes: Int32Array;
  readonly probeCodes: Int32Array;
  /** A text's `Hits.bits` before anything is asked: a zero word per eight markers. */
  readonly emptyBits: readonly number[];

  constructor(markers: readonly string[]) {
    this.list = [...new Set(markers)];
    this.ids = new Map(this.list.map((marker, id) => [marker, id]));
    this.angled = new Uint8Array(this.list.length);
    const byPrefix = new Map<number, number[]>();
    let angledCount = 0;
    this.list.forEach((marker, id) => {
      // `<` and one more character: searched for as any other marker (too short for a two-character key).
      if (marker.length < 3 || marker.charCodeAt(0) !== LESS_THAN) return;
      this.angled[id] = 1;
      angledCount += 1;
      const key = prefixKey(marker, 0);
      const list = byPrefix.get(key) ?? [];
      list.push(id);
      byPrefix.set(key, list);
    });
    this.angledCount = angledCount;
    this.byPrefix = byPrefix;
    this.anchors = this.list.map(anchorOf);
    // Filled by pushes, so the list (and every copy of it) holds no holes to check for.
    const emptyBits: number[] = [];
    for (let word = 0; word < (this.list.length + WORD_MASK) >> WORD_SHIFT; word += 1)
      emptyBits.push(0);
    this.emptyBits = emptyBits;
    this.probes = new Int32Array(this.list.length);
    this.probeCodes = new Int32Array(this.list.length);
    for (const ids of byPrefix.values()) {
      for (const id of ids) {
        const probe = probeOf(this.list, id, ids);
        this.probes[id] = probe;
        this.probeCodes[id] = (this.list[id] as string).charCodeAt(probe);
      }
    }
  }

  idOf(marker: string): number {
    return this.ids.get(marker) ?? -1;
  }

  scan(text: string): MarkerHits {
    return new Hits(this, text);
  }

  isAngled(id: number): boolean {
    return this.angled[id] === 1;
  }
}

/**
 * Markers per word of `Hits.bits` (two bits each): a power of two, so a marker's word and place are a shift and a
 * mask (a division per question cost more than the byte array it replaced), and few enough that a word is always a
 * small integer.
 */
const WORD_SHIFT = 3;
const WORD_MASK = (1 << WORD_SHIFT) - 1;
/** A marker's two bits: asked about (or searched by the pass over `<`), and held by the text. */
const KNOWN = 1;
const HELD = 2;

class Hits implements MarkerHits {
  private readonly markers: Markers;
  private readonly text: string;
  /**
   * Per marker two bits (`KNOWN`, `HELD`), eight markers a word (`WORD_SHIFT`): a few numbers, where a byte array
   * per text cost more to make than a whole scan of a kilobyte reply.
   */
  private readonly bits: number[];
  private angledScanned = false;
  /** How many `<` markers the pass over `<` found (once it ran). */
  private angledFound = 0;

  constructor(markers: Markers, text: string) {
    this.markers = markers;
    this.text = text;
    this.bits = markers.emptyBits.slice();
  }

  holds(id: number): boolean {
    const { markers, bits } = this;
    const word = id >> WORD_SHIFT;
    const shift = (id & WORD_MASK) << 1;
    if (markers.angled[id] === 1) {
      if (!this.angledScanned) this.scanAngled();
    } else if ((((bits[word] as number) >> shift) & KNOWN) === 0) {
      const marker = markers.list[id] as string;
      const found = includesByAnchor(this.text, marker, markers.anchors[id] as number);
      bits[word] = (bits[word] as number) | ((found ? KNOWN | HELD : KNOWN) << shift);
    }
    return (((bits[word] as number) >> shift) & HELD) !== 0;
  }

  has(marker: string): boolean {
    const id = this.markers.idOf(marker);
    return id === -1 ? includesByAnchor(this.text, marker, anchorOf(marker)) : this.holds(id);
  }

  holdsAngled(): boolean {
    if (!this.angledScanned) this.scanAngled();
    return this.angledFound > 0;
  }

  /** Marks the `<` markers the text holds, from one pass over its `<` (stopping once all are found). */
  private scanAngled(): void {
    this.angledScanned = true;
    const { text, bits } = this;
    const { byPrefix, list, angledCount, probes, probeCodes } = this.markers;
    let found = 0;
    for (
      let at = text.indexOf('<');
      at !== -1 && found < angledCount;
      at = text.indexOf('<', at + 1)
    ) {
      const candidates = byPrefix.get(prefixKey(text, at));
      if (candidates === undefined) continue;
      for (const id of candidates) {
        const word = id >> WORD_SHIFT;
        const shift = (id & WORD_MASK) << 1;
        if ((((bits[word] as number) >> shift) & HELD) !== 0) continue;
        // One character first (inlined, unlike a call of startsWith): most candidates fail on it.
        if (text.charCodeAt(at + (probes[id] as number)) !== probeCodes[id]) continue;
        if (!text.startsWith(list[id] as string, at)) continue;
        bits[word] = (bits[word] as number) | ((KNOWN | HELD) << shift);
        found += 1;
      }
    }
    this.angledFound = found;
  }
}

/**
 * The two characters after a `<` at `at`, as one key (most markers start `<|`, so one character tells little).
 * Fifteen bits of each, so the key is a small integer for every character (DeepSeek's `<｜` made a key above
 * 2^31, a heap number made and hashed per `<`); characters that share those bits, or a missing one (the end of
 * the text, 0), share a key: every candidate is checked with `startsWith`.
 */
function prefixKey(text: string, at: number): number {
  return (text.charCodeAt(at + 1) & 0x7fff) | ((text.charCodeAt(at + 2) & 0x7fff) << 15);
}

/**
 * The place in marker `id` (past its key's characters) whose character tells it from the most of the other
 * markers that share its key (`ids`): a `<|tool_call|>` is told from `<|tool_calls_section_begin|>` there with
 * one look instead of a call of `startsWith` each. Its last character when it shares its key with none.
 */
function probeOf(list: readonly string[], id: number, ids: readonly number[]): number {
  const marker = list[id] as string;
  let best = marker.length - 1;
  let bestTold = -1;
  for (let at = 3; at < marker.length; at += 1) {
    let told = 0;
    for (const other of ids)
      if ((list[other] as string).charCodeAt(at) !== marker.charCodeAt(at)) told += 1;
    if (told > bestTold) {
      best = at;
      bestTold = told;
    }
  }
  return best;
}

/** Where in a marker its first character that is not a letter, digit, space or `_` stands (0 when none). */
function anchorOf(marker: string): number {
  for (let at = 0; at < marker.length; at += 1) if (!isNameCode(marker.charCodeAt(at))) return at;
  return 0;
}

/** A letter, digit, space or `_`. */
function isNameCode(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x20 ||
    code === 0x5f
  );
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
