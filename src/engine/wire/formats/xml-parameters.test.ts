import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../core/index.js';
import { joinPieces } from '../text-scan.js';
import {
  argumentsJson,
  createCloseFinder,
  propertySchema,
  readMarkedBlocks,
  readTagText,
  THINK_TAGS,
  typedParameter,
  type XmlBlock,
  type XmlMiss,
} from './xml-parameters.js';

describe('typedParameter', () => {
  it('keeps a string raw, dropping only one line break at each end', () => {
    const schema = { type: 'string' };
    expect(typedParameter('\n  indented\n\n', schema)).toBe('  indented\n');
    expect(typedParameter('\r\nwindows\r\n', schema)).toBe('windows');
    expect(typedParameter('42', schema)).toBe('42');
    expect(typedParameter('null', schema)).toBe('null');
    expect(typedParameter('', schema)).toBe('');
    const breaks = [
      '',
      '\n',
      '\r',
      '\r\n',
      '\n\n',
      '\n\r\n',
      '\r\n\n',
      '\n\r',
      'x',
      'x\r\n',
      '\nx',
    ];
    for (const text of breaks) {
      const start = text.startsWith('\r\n') ? 2 : text.startsWith('\n') ? 1 : 0;
      const rest = text.slice(start);
      const end = rest.endsWith('\r\n') ? -2 : rest.endsWith('\n') ? -1 : rest.length;
      expect(typedParameter(text, schema)).toBe(rest.slice(0, end));
    }
  });

  it('reads integers and numbers, keeping text that is not one', () => {
    expect(typedParameter('\n42\n', { type: 'integer' })).toBe(42);
    expect(typedParameter('-7', { type: 'int' })).toBe(-7);
    expect(typedParameter('3.0', { type: 'integer' })).toBe(3);
    expect(typedParameter('3.5', { type: 'integer' })).toBe('3.5');
    expect(typedParameter('forty', { type: 'integer' })).toBe('forty');
    expect(typedParameter('12345678901234567890', { type: 'integer' })).toBe(
      '12345678901234567890',
    );
    expect(typedParameter(' 2.5e3 ', { type: 'number' })).toBe(2500);
    expect(typedParameter('.5', { type: 'float' })).toBe(0.5);
    expect(typedParameter('Infinity', { type: 'number' })).toBe('Infinity');
    expect(typedParameter('0x10', { type: 'number' })).toBe('0x10');
  });

  it('reads booleans in any case and keeps other words as text', () => {
    expect(typedParameter('true', { type: 'boolean' })).toBe(true);
    expect(typedParameter('False', { type: 'boolean' })).toBe(false);
    expect(typedParameter('yes', { type: 'boolean' })).toBe('yes');
  });

  it('reads objects and lists leniently, unwrapping a doubly encoded one', () => {
    expect(typedParameter('{"a": {"b": [1, 2]}}', { type: 'object' })).toEqual({
      a: { b: [1, 2] },
    });
    expect(typedParameter("{'a': True, 'b': None,}", { type: 'dict' })).toEqual({
      a: true,
      b: null,
    });
    expect(typedParameter('"{\\"a\\": 1}"', { type: 'object' })).toEqual({ a: 1 });
    expect(typedParameter('[1, "two"]', { type: 'array' })).toEqual([1, 'two']);
    expect(typedParameter('[1, 2]', { type: 'object' })).toBe('[1, 2]');
    expect(typedParameter('{"a": 1} trailing', { type: 'object' })).toBe('{"a": 1} trailing');
    expect(typedParameter('not json', { type: 'array' })).toBe('not json');
  });

  it('reads null where the schema allows it, or where it has no string type', () => {
    expect(typedParameter('null', { type: ['string', 'null'] })).toBeNull();
    expect(typedParameter('None', { anyOf: [{ type: 'string' }, { type: 'null' }] })).toBeNull();
    expect(typedParameter('null', { type: 'integer' })).toBeNull();
    expect(typedParameter('text', { type: 'null' })).toBe('text');
  });

  it('tries the types of a union in order, falling back to the text', () => {
    const union = { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'array' }] };
    expect(typedParameter('7', union)).toBe(7);
    expect(typedParameter('["x"]', union)).toEqual(['x']);
    expect(typedParameter('seven', union)).toBe('seven');
    expect(typedParameter('2', { enum: [1, 2, 3] })).toBe(2);
    expect(typedParameter('fast', { enum: ['fast', 'slow'] })).toBe('fast');
    expect(typedParameter('true', { const: true })).toBe(true);
  });

  it('reads JSON when there is no schema or no usable type, else keeps the text', () => {
    expect(typedParameter('12', undefined)).toBe(12);
    expect(typedParameter('{"k": [true]}', undefined)).toEqual({ k: [true] });
    expect(typedParameter('Paris, France', undefined)).toBe('Paris, France');
    expect(typedParameter('\nline\n', {})).toBe('line');
    expect(typedParameter('{"a": 1}', { type: 'whatever' })).toEqual({ a: 1 });
  });

  it('never throws, whatever the text and schema', () => {
    const schemas = fc.constantFrom<JsonSchema | undefined>(
      undefined,
      {},
      { type: 'string' },
      { type: 'integer' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'object' },
      { type: 'array' },
      { type: ['null', 'object'] },
      { anyOf: [{ type: 'integer' }, { enum: [null, 'x'] }] },
      { type: 42, enum: 'nope', anyOf: {} },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), schemas, (raw, schema) => {
        const value = typedParameter(raw, schema);
        expect(() => JSON.stringify(value)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps deeply nested JSON as text instead of recursing without bound', () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    expect(typedParameter(deep, { type: 'array' })).toBe(deep);
    expect(typedParameter(deep, undefined)).toBe(deep);
  });
});

describe('propertySchema and argumentsJson', () => {
  it('finds a property schema only where there is one', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' }, bad: 3 } };
    expect(propertySchema(parameters, 'city')).toEqual({ type: 'string' });
    expect(propertySchema(parameters, 'bad')).toBeUndefined();
    expect(propertySchema(parameters, 'toString')).toBeUndefined();
    expect(propertySchema({ properties: [] }, '0')).toBeUndefined();
    expect(propertySchema(undefined, 'city')).toBeUndefined();
  });

  it('serialises parameters in order, a later duplicate winning, __proto__ as a plain key', () => {
    expect(argumentsJson([])).toBe('{}');
    expect(
      argumentsJson([
        ['a', 1],
        ['b', { c: [true] }],
        ['a', 2],
      ]),
    ).toBe('{"a":2,"b":{"c":[true]}}');
    expect(JSON.parse(argumentsJson([['__proto__', { x: 1 }]]) ?? '')).toEqual(
      JSON.parse('{"__proto__": {"x": 1}}'),
    );
    expect(argumentsJson([['n', 10n]])).toBeUndefined();
  });

  it('writes what JSON.stringify writes for an object of the entries', () => {
    // The reference: the object a null prototype keeps every key of, serialised by JSON.stringify.
    const reference = (entries: readonly (readonly [string, unknown])[]) => {
      const object: Record<string, unknown> = Object.create(null);
      for (const [key, value] of entries) object[key] = value;
      return JSON.stringify(object);
    };
    const cases: (readonly (readonly [string, unknown])[])[] = [
      [['text', 'say "hi"\n\tand \\ go\u0001 \ud800 \ud83d\ude00 \u2028']],
      [
        ['2', 'b'],
        ['1', 'a'],
        ['x', null],
      ],
      [
        ['a', 1],
        ['b', 2],
        ['a', 3],
        ['c', [1, 'two']],
      ],
      [
        ['', 'empty key'],
        ['k"ey', -0],
        ['big', 1e21],
        ['gone', undefined],
      ],
      Array.from({ length: 12 }, (_, index) => [`p${index % 10}`, index] as const),
    ];
    for (const entries of cases) expect(argumentsJson(entries)).toBe(reference(entries));
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ maxLength: 4 }),
            fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null)),
          ),
          { maxLength: 12 },
        ),
        (entries) => {
          expect(argumentsJson(entries)).toBe(reference(entries));
        },
      ),
      { numRuns: 300, seed: 16 },
    );
  });

  it('types a plain string schema as text and an enum of other values by their type', () => {
    expect(typedParameter('\n7\n', { type: 'string' })).toBe('7');
    expect(typedParameter('7', { type: 'string', enum: ['a', 7] })).toBe(7);
    expect(typedParameter('none', { type: 'string', anyOf: [{ type: 'null' }] })).toBeNull();
    expect(typedParameter('true', { type: 'string', const: true })).toBe(true);
  });
});

describe('scanning helpers', () => {
  it('reads a short tag name, never across a line or tag', () => {
    expect(readTagText('<function=get_x>rest', 10)).toEqual({ value: 'get_x', end: 16 });
    expect(readTagText('<function=get\nx>', 10)).toBeUndefined();
    expect(readTagText('<function=>', 10)).toBeUndefined();
    expect(readTagText(`<function=${'a'.repeat(300)}>`, 10)).toBeUndefined();
  });

  it('finds only closing tags that another tag or the end follows', () => {
    const text = 'a</v>b</v> <k></v>c</v>\n';
    const next = createCloseFinder(text, '</v>', ['<k>']);
    expect(next(0)).toBe(text.indexOf('</v> <k>'));
    expect(next(text.indexOf('<k>'))).toBe(text.lastIndexOf('</v>'));
    expect(next(text.length)).toBe(-1);
  });

  it('joins prose the way the other readers do', () => {
    expect(joinPieces(['Before.\n\n', '\nAfter.'])).toBe('Before.\n\nAfter.');
    expect(joinPieces(['Before.', ' After.'])).toBe('Before. After.');
    expect(joinPieces(['  ', 'Only.', '\n'])).toBe('Only.');
    expect(joinPieces(['a\n', '   ', 'b'])).toBe('a\nb');
  });
});

describe('readMarkedBlocks', () => {
  /** A toy format: `@@name` is a call when `name` is offered. */
  const readToy = (text: string) =>
    readMarkedBlocks(text, {
      markers: ['@@'],
      thinkTags: THINK_TAGS,
      readBlock: (at): XmlBlock | XmlMiss => {
        const match = /^@@(\w+)/.exec(text.slice(at, at + 40));
        const name = match?.[1];
        if (match === null || name === undefined || name === 'bad') return { resume: at + 2 };
        return {
          start: at,
          end: at + match[0].length,
          calls: [{ name, arguments: '{}' }],
          kept: [],
        };
      },
    });

  it('cuts blocks out and joins the prose', () => {
    expect(readToy('Hi @@one and @@two bye')).toEqual({
      content: 'Hi and bye',
      calls: [
        { name: 'one', arguments: '{}' },
        { name: 'two', arguments: '{}' },
      ],
    });
    expect(readToy('@@bad only')).toBeUndefined();
  });

  it('skips markers in code fences, inline code and thinking', () => {
    expect(readToy('```\n@@one\n```')).toBeUndefined();
    expect(readToy('Say `@@one`.')).toBeUndefined();
    expect(readToy('<think>@@one</think>')).toBeUndefined();
    expect(readToy('draft @@one</think>answer')).toBeUndefined();
    expect(readToy('<think>unfinished @@one')).toBeUndefined();
    expect(readToy('  ```js\n@@one\n  ```\n@@two')?.calls).toEqual([
      { name: 'two', arguments: '{}' },
    ]);
    expect(readToy('<think>x</think> ``` inline ``` @@two')?.calls).toEqual([
      { name: 'two', arguments: '{}' },
    ]);
  });
});
