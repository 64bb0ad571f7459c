import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closingQuote,
  compactJsonText,
  entrySpans,
  indexBefore,
  jsonMembers,
  jsonString,
  lastMemberGuess,
  memberSpan,
  readLenientJson,
  readLenientJsonSpan,
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
      // Linear: well under a second on a quiet machine, 1-4 s with 20 processes sharing 2 cores; quadratic: minutes.
      expect(performance.now() - started, text.slice(0, 12)).toBeLessThan(10_000);
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

  it('finds a far closing quote past escaped ones, never at or past the limit', () => {
    const text = `"${'a\\"'.repeat(20)}${'b'.repeat(40)}" tail "`;
    const close = text.indexOf('" tail');
    expect(closingQuote(text, 1, '"', text.length)).toBe(close);
    expect(closingQuote(text, 1, '"', close + 1)).toBe(close);
    expect(closingQuote(text, 1, '"', close)).toBe(-1);
    expect(closingQuote(text, close + 1, '"', text.length - 1)).toBe(-1);
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

describe('compactJsonText', () => {
  const whole = (text: string) => ({ text, start: 0, end: text.length });
  const compact = (text: string) => compactJsonText(JSON.parse(text), whole(text));

  it('drops the space between tokens of what models write, giving JSON.stringify of the value', () => {
    const source =
      '{"path": "a/b.md",\n  "text": "say \\"hi\\"\\n\\tand \\\\ go", "n": -12, "ok": [true, false, null, 0]}';
    expect(compact(source)).toBe(JSON.stringify(JSON.parse(source)));
    expect(compact('{"a":1}')).toBe('{"a":1}');
    expect(compactJsonText({ b: 'x' }, { text: 'xx {"b": "x"} yy', start: 3, end: 13 })).toBe(
      '{"b":"x"}',
    );
  });

  it('gives up where JSON.stringify writes the value otherwise', () => {
    for (const source of [
      '{"a": 1.0}',
      '{"a": 1e3}',
      '{"a": -0}',
      '{"a": 12345678901234567890}',
      '{"a": "\\u0041"}',
      '{"a": "\\/"}',
      '{"a": "\\ud800"}',
      '{"b": 1, "1": 2}',
      '{"a": 1, "a": 2}',
      '{"x": {"a": 1, "a": 2}}',
    ]) {
      expect(compact(source), source).toBeUndefined();
    }
    expect(compactJsonText({ a: '\ud800' }, whole('{"a": "\ud800"}'))).toBeUndefined();
  });

  it('gives up on a \\u or \\/ escape only inside the span, spans of one text asked in any order', () => {
    const text = '{"a": "x\\"y"} {"b": "\\u0041"} {"c": "\\\\u\\n"} {"d": "\\/"} {"e": 1}';
    const spans = [...text.matchAll(/\{[^{}]*\}/g)].map((match) => ({
      text,
      start: match.index,
      end: match.index + match[0].length,
    }));
    const expected = ['{"a":"x\\"y"}', undefined, '{"c":"\\\\u\\n"}', undefined, '{"e":1}'];
    for (const order of [
      [0, 1, 2, 3, 4],
      [4, 3, 2, 1, 0],
      [2, 0, 4, 1, 3],
    ]) {
      for (const index of order) {
        const span = spans[index] as { text: string; start: number; end: number };
        const value = JSON.parse(text.slice(span.start, span.end)) as unknown;
        expect(compactJsonText(value, span), String(index)).toBe(expected[index]);
      }
    }
  });

  it('equals JSON.stringify(JSON.parse(text)) whenever it answers (property)', () => {
    const space = fc.constantFrom('', ' ', '\n', '  ', '\t', '\r\n');
    const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('a', 'a', '1', '__proto__'));
    const leaf = fc.oneof(
      fc.string({ maxLength: 6, unit: 'binary' }),
      fc.constantFrom('"\\/"', '1.5', '-0', '1e2', '007'),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf.map((item) =>
          typeof item === 'string' && /^[-"0-9]/.test(item) ? item : JSON.stringify(item),
        ),
        fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(key, space, tie('value')), { maxLength: 3 })
          .map(
            (entries) =>
              `{${entries.map(([k, s, v]) => `${JSON.stringify(k)}:${s}${v}`).join(`,${' '}`)}}`,
          ),
      ),
    }));
    let answered = 0;
    fc.assert(
      fc.property(value, space, (source, pad) => {
        const text = source.replace(/,/g, (comma) => `${comma}${pad}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return; // a leaf spelled like `007` is no JSON
        }
        if (typeof parsed !== 'object' || parsed === null) return;
        const out = compactJsonText(parsed, whole(text));
        if (out !== undefined) answered += 1;
        expect(out ?? JSON.stringify(parsed)).toBe(JSON.stringify(parsed));
      }),
      { numRuns: 1500, seed: 16 },
    );
    expect(answered).toBeGreaterThan(100);
  });
});

describe('jsonMembers / memberSpan / entrySpans', () => {
  const span = (text: string) => ({ text, start: 0, end: text.length });
  const slice = (s: { text: string; start: number; end: number } | undefined) =>
    s === undefined ? undefined : s.text.slice(s.start, s.end);

  it('finds the value of a key (the last of two, as JSON.parse does) and the entries of a list', () => {
    const text = '{ "name" : "f", "arguments": {"a": [1, {"b": "}"}]} , "arguments" : "x" }';
    expect(slice(memberSpan(jsonMembers(span(text)), 'arguments'))).toBe('"x"');
    expect(slice(memberSpan(jsonMembers(span(text)), 'name'))).toBe('"f"');
    const list = '[ {"a": 1} , [2, 3], "s", 4 ]';
    expect(entrySpans(span(list), 4)?.map((member) => slice(member.value))).toEqual([
      '{"a": 1}',
      '[2, 3]',
      '"s"',
      '4',
    ]);
    expect(entrySpans(span(list), 3)).toBeUndefined();
    expect(jsonMembers(span('{}'))).toEqual([]);
  });

  it('takes a list of one entry as all of its inside, space around it left out', () => {
    expect(
      entrySpans(span('[ \n {"a": [1, 2]}\t]'), 1)?.map((member) => slice(member.value)),
    ).toEqual(['{"a": [1, 2]}']);
    expect(entrySpans(span('[7]'), 1)?.map((member) => slice(member.value))).toEqual(['7']);
  });

  it('lastMemberGuess: from the first place the key is written to the object end; compactJsonText checks it', () => {
    const guess = (text: string) => slice(lastMemberGuess(span(text), 'arguments'));
    const guessed = (text: string) => lastMemberGuess(span(text), 'arguments') ?? span('');
    expect(guess('{"name": "f", "arguments": {"a": 1} }')).toBe('{"a": 1}');
    expect(guess('{"arguments": {"a": 1}, "name": "f"}')).toBe('{"a": 1}, "name": "f"');
    expect(guess('{"name": "f"}')).toBeUndefined();
    expect(guess('{"argument\\u0073": {}}')).toBeUndefined();
    expect(lastMemberGuess(span('[1]'), 'arguments')).toBeUndefined();
    // A guess that is not the last member (or not the kept duplicate) gives no compact text: serialised instead.
    for (const text of [
      '{"arguments": {"a": 1}, "name": "f"}',
      '{"arguments": {"a": 1}, "arguments": {"b": 2}}',
      '{"arguments": {"a": 1}, "argument\\u0073": {"b": 2}}',
    ]) {
      const value = (JSON.parse(text) as { arguments: unknown }).arguments;
      expect(compactJsonText(value, guessed(text)), text).toBeUndefined();
    }
    // Found at any depth first, or inside a string (after an escaped quote): never the last member, so no compact
    // text either.
    expect(guess('{"x": {"arguments": 1}, "arguments": {"a": 1}}')).toBe(
      '1}, "arguments": {"a": 1}',
    );
    const nested = '{"x": {"arguments": 1}, "arguments": {"a": 1}}';
    const value0 = (JSON.parse(nested) as { arguments: unknown }).arguments;
    expect(compactJsonText(value0, guessed(nested))).toBeUndefined();
    // A key that ends with `\"arguments` is not the key: the last member here, it would give its value's text.
    expect(guess('{"argument\\u0073": {"a": 1}, "x \\"arguments": {"b": 2}}')).toBeUndefined();
    expect(guess('{"x": "say \\"arguments", "arguments": {}}')).toBe('{}');
    const text = '{"name": "f", "arguments": {"a": "x",\n "b": [1, 2]}}';
    const value = (JSON.parse(text) as { arguments: unknown }).arguments;
    expect(compactJsonText(value, guessed(text))).toBe(JSON.stringify(value));
  });

  it('does not match a key written with an escape (it could spell the key asked for)', () => {
    const text = '{"arguments": {"a": 1}, "argument\\u0073": {"b": 2}}';
    expect(memberSpan(jsonMembers(span(text)), 'arguments')).toBeUndefined();
  });

  it('readLenientJsonSpan tells where JSON.parse read a value, and nothing for lenient JSON', () => {
    const read = readLenientJsonSpan('x: {"a": 1} tail', 2);
    expect(read?.value).toEqual({ a: 1 });
    expect(read?.span).toEqual({ text: 'x: {"a": 1} tail', start: 3, end: 11 });
    expect(readLenientJsonSpan("{'a': True}")).toEqual({
      value: { a: true },
      end: 11,
      span: undefined,
    });
    expect(readLenientJsonSpan(' 12 ')?.span).toBeUndefined();
  });

  it('answers the same right after a strict read of the text (which keeps its strings) as without (property)', () => {
    // Everything the readers ask about a span after reading it, as one comparable text.
    const answers = (span: { text: string; start: number; end: number }) => {
      const members = jsonMembers(span);
      const compacts = (members ?? []).map((member) => {
        const inner = member.value.text.slice(member.value.start, member.value.end);
        return compactJsonText(JSON.parse(inner), member.value) ?? null;
      });
      const guess = lastMemberGuess(span, 'k');
      const value = JSON.parse(span.text.slice(span.start, span.end)) as unknown;
      return JSON.stringify([
        members?.map((member) => [member.key, slice(member.value)]),
        slice(guess),
        compactJsonText(value, span),
        compacts,
        entrySpans(span, 2)?.map((member) => slice(member.value)),
      ]);
    };
    const piece = fc.constantFrom('a', 'k', '"', '\\', ' ', '{', '}', ':', ',', 'x y');
    const string = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        string.map((text) => JSON.stringify(text)),
        fc.constantFrom('1', '-2', 'true', 'null', '1.5'),
        fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
        fc
          .array(fc.tuple(fc.oneof(string, fc.constant('k')), tie('value')), { maxLength: 3 })
          .map(
            (entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(' ,')}}`,
          ),
      ),
    }));
    fc.assert(
      fc.property(value, (source) => {
        if (!source.startsWith('{') && !source.startsWith('[')) return;
        const text = `x ${source} "y"`;
        const read = readLenientJsonSpan(text, 2);
        expect(read?.span).toEqual({ text, start: 2, end: 2 + source.length });
        const kept = answers({ text, start: 2, end: 2 + source.length });
        readLenientJsonSpan('{"other": "text"}'); // now the strings of another text are kept
        expect(kept).toBe(answers({ text, start: 2, end: 2 + source.length }));
      }),
      { numRuns: 1500, seed: 16 },
    );
    // More strings than a scan keeps: the later ones are searched for.
    const many = JSON.stringify(Array.from({ length: 100 }, (_, index) => `s"${index}`));
    const read = readLenientJsonSpan(many);
    expect(read?.span === undefined ? undefined : compactJsonText(read.value, read.span)).toBe(
      many,
    );
  });
});

describe('jsonString', () => {
  it('writes what JSON.stringify writes', () => {
    const texts = [
      '',
      'plain words',
      'a "quote"',
      'back\\slash',
      'line\nbreak\ttab\r',
      '\u0000\u001f\u007f',
    ];
    texts.push('\ud83d\ude00 pair', 'lone \ud800 high', 'lone \udc00 low', 'é ü \u2028 \u2029');
    for (const text of texts) expect(jsonString(text)).toBe(JSON.stringify(text));
    const alphabet = ['a', ' ', '"', '\\', '\n', '\t', '\u0001', '\ud83d', '\ude00', 'é'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 80 }), (chars) => {
        const text = chars.join('');
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 500, seed: 16 },
    );
  });

  it('writes long strings (quotes, backslashes and line feeds written from their hits) as JSON.stringify does', () => {
    const prose = 'The "report" shows 3.5% growth.\nNext: C:\\temp\\notes, then "done". '.repeat(8);
    const texts = [
      prose,
      'x'.repeat(200),
      `${prose}\t tab`,
      `${prose}\u0001`,
      `${prose}\ud83d\ude00 pair`,
      `${prose}\ud800 lone`,
      `${'"'.repeat(300)}`,
      `${'\n'.repeat(300)}ends`,
      `é ${prose} \u2028`,
    ];
    for (const text of texts) expect(jsonString(text)).toBe(JSON.stringify(text));
    const alphabet = ['a', 'b', ' ', '.', '"', '\\', '\n', 'é', '\ud83d\ude00'];
    const weights = alphabet.map((char, index) => ({
      arbitrary: fc.constant(char),
      weight: index < 4 ? 20 : 1,
    }));
    fc.assert(
      fc.property(fc.array(fc.oneof(...weights), { minLength: 64, maxLength: 600 }), (chars) => {
        const text = chars.join('');
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('finds a rare character at any place of a long string, and stays quick on megabytes', () => {
    const base =
      'Plain "words" and a\nline feed, then more plain words to pass the length. '.repeat(2);
    for (const rare of [
      '\u0000',
      '\t',
      '\u000b',
      '\r',
      '\u001f',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
    ]) {
      for (let at = 0; at <= 20; at += 1) {
        for (const text of [
          base.slice(0, at) + rare + base.slice(at),
          base.slice(0, 64 + at) + rare,
        ]) {
          expect(jsonString(text)).toBe(JSON.stringify(text));
        }
      }
    }
    const twoByte = '中文 words, and then a few more plain words to make a long line\n'.repeat(
      16_000,
    );
    for (const text of [
      'word '.repeat(200_000),
      twoByte,
      `${twoByte}\ud800`,
      `${'a'.repeat(1_000_000)}\t`,
    ]) {
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
  });
});
