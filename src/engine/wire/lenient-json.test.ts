import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closingQuote,
  indexBefore,
  readLenientJson,
  readStrictJson,
  readString,
} from './lenient-json.js';

describe('readLenientJson', () => {
  it('reads strict JSON and says where the value ends', () => {
    const text = 'x {"a": [1, 2.5, true, null], "b": {"c": "d"}} tail';
    expect(readLenientJson(text, 1)).toEqual({
      value: { a: [1, 2.5, true, null], b: { c: 'd' } },
      end: text.indexOf(' tail'),
    });
  });

  it('reads single quotes, trailing commas, bare keys and Python literals', () => {
    expect(readLenientJson("{'a': 'x', b: True, c: None, d: [1, 2,],}")?.value).toEqual({
      a: 'x',
      b: true,
      c: null,
      d: [1, 2],
    });
  });

  it('keeps escapes JSON knows, unknown ones as written, and refuses a bad \\u', () => {
    expect(readLenientJson('"a\\n\\"b\\u00e9\\q"')?.value).toBe('a\n"bé\\q');
    expect(readLenientJson("'it\\'s'")?.value).toBe("it's");
    expect(readLenientJson('"a\\u12"')).toBeUndefined();
  });

  it('never reads past the limit, and refuses what is cut off or too deep', () => {
    expect(readLenientJson('{"a": 1}', 0, 7)).toBeUndefined();
    expect(readLenientJson('"abc" "', 0, 4)).toBeUndefined();
    expect(readLenientJson('"abc"', 0, 5)).toEqual({ value: 'abc', end: 5 });
    expect(readLenientJson(`${'['.repeat(70)}${']'.repeat(70)}`)).toBeUndefined();
    expect(readLenientJson(`${'['.repeat(60)}${']'.repeat(60)}`)?.end).toBe(120);
    expect(readLenientJson('   ')).toBeUndefined();
    expect(readLenientJson('nope')).toBeUndefined();
  });

  it('reads what JSON.stringify writes as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const read = readLenientJson(`  ${text} ;`);
        expect(read?.value).toEqual(JSON.parse(text));
        expect(read?.end).toBe(text.length + 2);
      }),
      { numRuns: 500 },
    );
  });

  it('reads any string with escapes as JSON.parse does, in either quote', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (value) => {
        const text = JSON.stringify(value);
        expect(readLenientJson(text)?.value).toBe(value);
        const single = `'${text.slice(1, -1).replaceAll("'", "\\'")}'`;
        expect(readLenientJson(single)?.value).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it('reads hostile texts in linear time, from many starts', () => {
    const size = 100_000;
    const texts = [
      '{"a":'.repeat(size / 5),
      `"${'x'.repeat(size)}`,
      '{"k": "v", '.repeat(size / 11),
      `${'\\'.repeat(size)}"`,
      "{'a': '".repeat(size / 7),
    ];
    for (const text of texts) {
      const started = performance.now();
      // Many starts in one text, as the prose reader tries them (a quadratic read takes minutes here).
      for (let at = 0; at < text.length; at = text.indexOf('{', at + 1)) {
        readLenientJson(text, at);
        if (at === -1) break;
      }
      expect(performance.now() - started, text.slice(0, 12)).toBeLessThan(2000);
    }
  });
});

describe('readStrictJson', () => {
  it('parses strict JSON and leaves the rest (and JSON cut off) to the lenient reader', () => {
    expect(readStrictJson('[{"a": "}"}] x', 0, 14)).toEqual({ value: [{ a: '}' }], end: 12 });
    expect(readStrictJson("{'a': 1}", 0, 8)).toBeUndefined();
    expect(readStrictJson('[True]', 0, 6)).toBeUndefined();
    expect(readStrictJson('{"a": 1,}', 0, 9)).toBeUndefined();
    expect(readStrictJson('{"a": "b', 0, 8)).toBeUndefined();
  });
});

describe('readString', () => {
  it('reads a string up to its closing quote, never past the limit', () => {
    expect(readString('"a\\"b" c', 0, 8)).toEqual({ value: 'a"b', end: 6 });
    expect(readString('"abc"', 0, 4)).toBeUndefined();
    expect(readString('"a\\', 0, 3)).toBeUndefined();
  });
});

describe('closingQuote and indexBefore', () => {
  it('finds the first quote no backslash escapes, before the limit', () => {
    expect(closingQuote('a\\"b"', 0, '"', 5)).toBe(4);
    expect(closingQuote('a\\\\"b"', 0, '"', 6)).toBe(3);
    expect(closingQuote('abc"', 0, '"', 3)).toBe(-1);
    expect(closingQuote("it's", 0, "'", 4)).toBe(2);
  });

  it('searches only [from, limit), near or far', () => {
    const text = `${'x'.repeat(100)}"${'y'.repeat(100)}`;
    expect(indexBefore(text, '"', 0, 101)).toBe(100);
    expect(indexBefore(text, '"', 0, 100)).toBe(-1);
    expect(indexBefore(text, '"', 90, text.length)).toBe(100);
    expect(indexBefore(text, '"', 101, text.length)).toBe(-1);
    expect(indexBefore(text, 'x', 5, 5)).toBe(-1);
  });
});
