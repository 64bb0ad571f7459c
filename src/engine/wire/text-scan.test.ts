import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createAnyFinder,
  createFenceTracker,
  createFinder,
  createMarkerIndex,
  holdsTag,
  indexMarkers,
  joinPieces,
  joinRanges,
  TagPlaces,
  tagAt,
  trimmedSlice,
} from './text-scan.js';

const MARKERS = [
  '<tool_call>',
  '<tool_calls>',
  '<|tool_call_begin|>',
  '<|tool_calls_section_begin|>',
  '<|python_tag|>',
  '<|python_start|>',
  '<x',
  '<|',
  '[TOOL_CALLS]',
  'to=functions.',
  '>>>',
  // DeepSeek's fullwidth bar, and a character whose low fifteen bits are the same (one key: told apart by text).
  '<｜tool▁sep｜>',
  '<\u7f5ctool▁sep｜>',
];

describe('createMarkerIndex', () => {
  it('answers as text.includes(marker), for listed and unlisted markers (property)', () => {
    const index = createMarkerIndex(MARKERS);
    const piece = fc.oneof(
      fc.constantFrom(...MARKERS),
      fc.constantFrom(...MARKERS).map((marker) => marker.slice(0, -1)),
      fc.constantFrom('<', '|', '<|', '<t', ' ', 'a', '>', 'x', '\n'),
    );
    const asked = fc.oneof(
      fc.constantFrom(...MARKERS),
      fc.constantFrom('<tool', '<|p', '<q>', '|>'),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }),
        fc.array(asked, { maxLength: 6 }),
        (pieces, questions) => {
          const text = pieces.join('');
          const holds = index(text);
          for (const marker of questions) expect(holds(marker), marker).toBe(text.includes(marker));
        },
      ),
      { numRuns: 1000, seed: 16 },
    );
  });

  it('finds a marker at the very end of the text and not one cut off by it', () => {
    const holds = createMarkerIndex(MARKERS)('prose <|python_tag|');
    expect(holds('<|python_tag|>')).toBe(false);
    expect(createMarkerIndex(MARKERS)('prose <|python_tag|>')('<|python_tag|>')).toBe(true);
    expect(createMarkerIndex(MARKERS)('a <x')('<x')).toBe(true);
  });
});

describe('indexMarkers', () => {
  it('answers by number as text.includes(marker) does, the same numbers for every text (property)', () => {
    const index = indexMarkers([...MARKERS, '<x']);
    const ids = MARKERS.map((marker) => index.idOf(marker));
    expect(new Set(ids).size).toBe(MARKERS.length);
    expect(index.idOf('<q>')).toBe(-1);
    const piece = fc.oneof(
      fc.constantFrom(...MARKERS),
      fc.constantFrom(...MARKERS).map((marker) => marker.slice(1)),
      fc.constantFrom('<', '|', '<|', '<t', ' ', 'a', '>', 'x', '='),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }),
        fc.array(fc.nat(MARKERS.length - 1), { maxLength: 8 }),
        (pieces, asked) => {
          const text = pieces.join('');
          const hits = index.scan(text);
          for (const at of asked) {
            const marker = MARKERS[at] as string;
            expect(hits.holds(ids[at] as number), marker).toBe(text.includes(marker));
          }
          expect(hits.has('<q>')).toBe(text.includes('<q>'));
        },
      ),
      { numRuns: 1000, seed: 17 },
    );
  });
});

describe('createAnyFinder', () => {
  const NEEDLES = [
    '<｜tool▁calls▁begin｜>',
    '<｜tool_calls_begin｜>',
    '<｜tool▁calls｜>',
    '</x>',
    '</y>',
    'ab',
  ];

  it('finds the nearest of several needles as indexOf does, spellings that share a start included (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom(...NEEDLES),
      fc.constantFrom(...NEEDLES).map((needle) => needle.slice(0, -1)),
      fc.constantFrom('<｜tool', '</', '<', 'a', 'b', ' '),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }),
        fc.array(fc.nat(40), { maxLength: 8 }),
        (pieces, steps) => {
          const text = pieces.join('');
          const find = createAnyFinder(text, NEEDLES);
          let from = 0;
          for (const step of steps) {
            from += step % 7;
            const hits = NEEDLES.map((needle) => text.indexOf(needle, from)).filter(
              (at) => at !== -1,
            );
            expect(find(from), `${text} @${from}`).toBe(hits.length === 0 ? -1 : Math.min(...hits));
          }
        },
      ),
      { numRuns: 500, seed: 16 },
    );
  });
});

describe('createFinder', () => {
  it('finds the next hit as indexOf does, given the first hit or not (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('<|', '<', '|', 'a', ' '), { maxLength: 16 }),
        fc.array(fc.nat(6), { maxLength: 8 }),
        fc.boolean(),
        (pieces, steps, given) => {
          const text = pieces.join('');
          const find = given
            ? createFinder(text, '<|', text.indexOf('<|'))
            : createFinder(text, '<|');
          let from = 0;
          for (const step of steps) {
            from += step;
            expect(find(from), `${text} @${from}`).toBe(text.indexOf('<|', from));
          }
        },
      ),
      { numRuns: 500, seed: 16 },
    );
  });
});

describe('TagPlaces', () => {
  it('answers as a finder over the places added, and tells where the tag found ends (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(5), fc.nat(4)), { maxLength: 12 }),
        fc.array(fc.nat(6), { maxLength: 12 }),
        (gaps, steps) => {
          const places = new TagPlaces();
          const tags: [number, number][] = [];
          let at = 0;
          for (const [gap, length] of gaps) {
            const start = at + gap;
            tags.push([start, start + 1 + length]);
            places.add(start, start + 1 + length);
            at = start + 1 + length;
          }
          let from = 0;
          for (const step of steps) {
            from += step;
            const expected = tags.find(([start]) => start >= from);
            expect(places.find(from)).toBe(expected === undefined ? -1 : expected[0]);
            if (expected !== undefined) expect(places.foundEnd()).toBe(expected[1]);
          }
        },
      ),
      { numRuns: 500, seed: 16 },
    );
  });
});

describe('holdsTag', () => {
  it('answers as startsWith', () => {
    const text = '<a><ab></ab><abc>é<\u4e2d>';
    const tags = ['', '<', '<a', '<ab>', '</ab>', '<abc>', '<\u4e2d>', 'é<', '<abcd>'];
    for (const tag of tags) {
      for (let at = 0; at <= text.length + 2; at += 1) {
        expect(holdsTag(text, at, tag)).toBe(text.startsWith(tag, at));
      }
    }
  });
});

describe('trimmedSlice', () => {
  it('trimmedSlice is slice then trim', () => {
    for (const text of [
      '',
      ' a ',
      '\u00a0name\u3000',
      '\t\n x y \r\n',
      '"quoted"',
      '\ufeff',
      '\u2028z\u0085',
    ]) {
      for (let start = 0; start <= text.length; start += 1) {
        for (let end = start; end <= text.length; end += 1) {
          expect(trimmedSlice(text, start, end)).toBe(text.slice(start, end).trim());
        }
      }
    }
  });
});

/** joinPieces as first written, with `trim()`: the index-based one must give the same text. */
function joinPiecesByTrim(pieces: readonly string[]): string {
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

describe('joinPieces', () => {
  it('joins the text around cut-out calls', () => {
    expect(joinPieces(['Hello ', '\n\n', ' world'])).toBe('Hello world');
    expect(joinPieces(['  a\n', 'b  '])).toBe('a\nb');
    expect(joinPieces(['', '  ', ''])).toBe('');
  });

  it('trims as trim() does, every Unicode space and line terminator included (property)', () => {
    const SPACES = [' ', '\n', '\r\n', '\t', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u200a'];
    const OTHERS = ['\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u200b', '\u0085'];
    const piece = fc.array(
      fc.constantFrom(...SPACES, ...OTHERS, '\u180e', '\u001f', 'a', 'b.', '｜'),
      {
        maxLength: 6,
      },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 5 }), (parts) => {
        const pieces = parts.map((chars) => chars.join(''));
        expect(joinPieces(pieces)).toBe(joinPiecesByTrim(pieces));
      }),
      { numRuns: 2000, seed: 16 },
    );
  });
});

describe('joinRanges', () => {
  it('joins the kept stretches of a text as joinPieces joins their slices', () => {
    const text = 'Hello <x>cut</x>\n\n world <x>cut</x>  ';
    const cut = text.indexOf('<x>');
    const second = text.lastIndexOf('<x>');
    expect(joinRanges(text, [0, cut, cut + 12, second], second + 12)).toBe('Hello world');
    expect(joinRanges('  ', [], 0)).toBe('');
    expect(joinRanges('abc', [0, 0], 3)).toBe('');
  });

  it('answers joinPieces of the slices for any places in order (property)', () => {
    const piece = fc.constantFrom(
      ' ',
      '\n',
      '\t',
      '\u00a0',
      '\u2028',
      '\u200b',
      'a',
      'b.',
      '｜',
      '<x>',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 9 }),
        (parts, cuts) => {
          const text = parts.join('');
          const places = cuts.map((cut) => Math.min(cut, text.length)).sort((a, b) => a - b);
          // An odd place left over is the start of the tail.
          const tail = places.length % 2 === 1 ? (places.pop() as number) : 0;
          const pieces: string[] = [];
          for (let index = 0; index < places.length; index += 2)
            pieces.push(text.slice(places[index], places[index + 1]));
          const kept = tail >= (places.at(-1) ?? 0) ? tail : (places.at(-1) as number);
          pieces.push(text.slice(kept));
          expect(joinRanges(text, places, kept)).toBe(joinPieces(pieces));
        },
      ),
      { numRuns: 3000, seed: 16 },
    );
  });
});

describe('createFenceTracker', () => {
  it('tells fences apart as positions grow, skipping what a cut-out call held', () => {
    const text = 'a ``` b ``` c ``` d';
    const fences = createFenceTracker(text);
    expect(fences.isInside(0)).toBe(false);
    expect(fences.isInside(text.indexOf('b'))).toBe(true);
    expect(fences.isInside(text.indexOf('c'))).toBe(false);
    fences.skipTo(text.indexOf('d'));
    expect(fences.isInside(text.length)).toBe(false);
    expect(createFenceTracker('no fence').isInside(5)).toBe(false);
  });

  it('answers as counting the fences from the start would, for growing positions and skips (property)', () => {
    const piece = fc.constantFrom('```', '``', '`', '````', 'a', ' ', '\n', 'bcdefghijklmnop');
    const step = fc.record({ skip: fc.boolean(), by: fc.nat({ max: 20 }) });
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 16 }),
        fc.array(step, { maxLength: 12 }),
        (pieces, steps) => {
          const text = pieces.join('');
          const fences = createFenceTracker(text);
          // The reference: fences counted one by one from where the last skip left off.
          let from = 0;
          let inside = false;
          let at = 0;
          for (const { skip, by } of steps) {
            at += by;
            if (skip) {
              fences.skipTo(at);
              from = Math.max(from, at);
              continue;
            }
            for (let fence = text.indexOf('```', from); fence !== -1 && fence < at; ) {
              inside = !inside;
              from = fence + 3;
              fence = text.indexOf('```', from);
            }
            expect(fences.isInside(at), `${JSON.stringify(text)} at ${at}`).toBe(inside);
          }
        },
      ),
      { numRuns: 2000, seed: 16 },
    );
  });
});

describe('tagAt', () => {
  it('answers as the first tag text.startsWith(tag, at) holds, for any position and tag (property)', () => {
    const tags = ['</x>', '<x', '<', '', '</｜DSML｜invoke>', '</invoke>', 'ab', 'a'];
    const piece = fc.constantFrom(...tags, 'x', '>', '｜', ' ');
    const tagList = fc.array(fc.constantFrom(...tags), { maxLength: 5 });
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }),
        tagList,
        fc.integer({ min: -3, max: 40 }),
        (pieces, list, at) => {
          const text = pieces.join('');
          expect(tagAt(text, list, at)).toBe(list.find((tag) => text.startsWith(tag, at)));
        },
      ),
      { numRuns: 3000, seed: 16 },
    );
  });
});
