import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { functionaryV31Format, functionaryV32Format } from './functionary.js';
import type { OfferedToolSet, ReadToolCalls, ToolCallFormat } from './tool-call-format.js';

function offer(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}

const TOOLS = offer('get_weather', 'search_web', 'python');

function v32(reply: string, tools: OfferedToolSet = TOOLS): ReadToolCalls | undefined {
  return functionaryV32Format.read(reply, tools);
}

function v31(reply: string, tools: OfferedToolSet = TOOLS): ReadToolCalls | undefined {
  return functionaryV31Format.read(reply, tools);
}

const PARIS = '{"city":"Paris"}';

describe('functionaryV32Format: positive cases', () => {
  it('reads one call at the start of the reply (the prompt ended with >>>)', () => {
    expect(v32('get_weather\n{"city": "Paris"}')).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('reads text for the user and several calls', () => {
    const reply =
      'all\nLet me check both.>>>get_weather\n{"city": "Paris"}>>>search_web\n{"q": "Paris events"}<|eot_id|>';
    expect(v32(reply)).toEqual({
      content: 'Let me check both.',
      calls: [
        { name: 'get_weather', arguments: PARIS },
        { name: 'search_web', arguments: '{"q":"Paris events"}' },
      ],
    });
  });

  it('reads a reply that starts with >>> and has text after the calls', () => {
    const reply = '>>>get_weather\n{"city": "Paris"}\n>>>all\nI asked for the weather.';
    expect(v32(reply)).toEqual({
      content: 'I asked for the weather.',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('keeps nested JSON, unicode and multi-line values in the arguments', () => {
    const reply =
      '>>>search_web\n{\n  "q": "東京 ☔",\n  "filters": {"lang": ["ja", "en"], "range": {"from": 1}},\n  "note": "a\\nb"\n}';
    expect(JSON.parse(v32(reply)?.calls[0]?.arguments ?? '')).toEqual({
      q: '東京 ☔',
      filters: { lang: ['ja', 'en'], range: { from: 1 } },
      note: 'a\nb',
    });
  });

  it('reads raw code for the python tool as {"code": …}', () => {
    const reply = 'all\nComputing.>>>python\nimport math\nprint(math.pi)\n<|eot_id|>';
    expect(v32(reply)).toEqual({
      content: 'Computing.',
      calls: [
        { name: 'python', arguments: JSON.stringify({ code: 'import math\nprint(math.pi)' }) },
      ],
    });
  });

  it('reads a call whose end-of-turn token is missing at the end of the output', () => {
    expect(v32('all\nOne moment.\n>>>get_weather\n{"city": "Paris"}\n')?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
  });

  it('keeps a segment naming an unknown recipient as text, with its good neighbours read', () => {
    const reply = '>>>format_disk\n{"drive": "C"}>>>get_weather\n{"city": "Paris"}';
    expect(v32(reply)).toEqual({
      content: '>>>format_disk\n{"drive": "C"}',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });
});

describe('functionaryV32Format: negative cases', () => {
  it('leaves plain answers and JSON examples alone', () => {
    expect(v32('The weather is fine.')).toBeUndefined();
    expect(v32('all\nHere is JSON: {"city": "Paris"}')).toBeUndefined();
    expect(
      v32('Call it as {"name": "get_weather", "arguments": {"city": "Paris"}}.'),
    ).toBeUndefined();
  });

  it('does not read a call to a tool that was not offered', () => {
    expect(v32('>>>delete_all\n{"really": true}')).toBeUndefined();
    expect(v32('>>>python\nprint(1)', offer('get_weather'))).toBeUndefined();
  });

  it('keeps a truncated call in the text', () => {
    expect(v32('all\nSure.>>>get_weather\n{"city": "Par')).toBeUndefined();
  });

  it('does not read >>> inside a code fence (a Python prompt or an explanation)', () => {
    const reply = [
      'all',
      'In the REPL, and in the format:',
      '```',
      '>>>get_weather',
      '{"city": "Paris"}',
      '```',
    ].join('\n');
    expect(v32(reply)).toBeUndefined();
    expect(v32('all\nType `>>>get_weather\n{"city": "x"}` to call it.')).toBeUndefined();
  });

  it('does not read a recipient without its line break or JSON', () => {
    expect(v32('>>> get_weather {"city": "Paris"}')).toBeUndefined();
    expect(v32('>>>get_weather\nParis please')).toBeUndefined();
  });
});

describe('functionaryV32Format.visibleText', () => {
  const visible = (reply: string) => functionaryV32Format.visibleText?.(reply);

  it('shows the all segments of a reply with no call without their headers', () => {
    expect(visible('all\nThe weather is fine.')).toEqual({ content: 'The weather is fine.' });
    expect(visible(' >>>all\nFirst.>>>all\n Second.')).toEqual({ content: 'First. Second.' });
    expect(visible('all\nCompare a >>> b.')).toEqual({ content: 'Compare a >>> b.' });
  });

  it('leaves a reply that does not start with an all segment alone', () => {
    expect(visible('We all\nagree.')).toBeUndefined();
    expect(visible('get_weather\n{"city": "Paris"}')).toBeUndefined();
    expect(visible('allow\nit')).toBeUndefined();
  });
});

describe('functionaryV31Format', () => {
  it('reads <function=name>{…}</function> calls with prose around them', () => {
    const reply =
      'Looking it up.\n<function=get_weather>{"city": "Paris"}</function>\n<function=search_web>{"q": "x"}</function>\nDone.';
    expect(v31(reply)).toEqual({
      content: 'Looking it up.\nDone.',
      calls: [
        { name: 'get_weather', arguments: PARIS },
        { name: 'search_web', arguments: '{"q":"x"}' },
      ],
    });
  });

  it('reads a call without its closing tag at the end, and raw code after <|python_tag|>', () => {
    expect(v31('<function=get_weather>{"city": "Paris"}')?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
    expect(v31('<|python_tag|>print("héllo")\n<|eom_id|>')?.calls).toEqual([
      { name: 'python', arguments: JSON.stringify({ code: 'print("héllo")' }) },
    ]);
  });

  it('leaves unknown tools, truncated calls and explained formats alone', () => {
    expect(v31('<function=rm>{"path": "/"}</function>')).toBeUndefined();
    expect(v31('<function=get_weather>{"city": ')).toBeUndefined();
    expect(
      v31('Use:\n```\n<function=get_weather>{"city": "Paris"}</function>\n```\nlike this.'),
    ).toBeUndefined();
    expect(v31('<|python_tag|>print(1)', offer('get_weather'))).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// Fuzz: never throws, calls are offered tools with object arguments, linear time

const VALID = 'all\nSure.>>>get_weather\n{"city": "Paris"}>>>search_web\n{"q": "x"}';
const FRAGMENTS = [
  '>>>',
  '>>>all\n',
  '>>>get_weather\n',
  '>>>python\n',
  'get_weather\n{',
  '<function=',
  '<function=get_weather>',
  '</function>',
  '<|python_tag|>',
  '```',
  '"',
  '{',
  '}',
  '\n',
];

function checkResult(found: ReadToolCalls | undefined): void {
  for (const call of found?.calls ?? []) {
    expect(TOOLS.names.has(call.name)).toBe(true);
    expect(typeof JSON.parse(call.arguments)).toBe('object');
  }
}

function timed(format: ToolCallFormat, reply: string): number {
  const started = performance.now();
  checkResult(format.read(reply, TOOLS));
  return performance.now() - started;
}

describe('functionary formats: fuzz', () => {
  const formats = [functionaryV32Format, functionaryV31Format];

  it('never throws on random text and random splices of markers into valid replies', () => {
    const piece = fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.nat(VALID.length),
        fc.constantFrom(...FRAGMENTS),
        (pieces, at, marker) => {
          expect(functionaryV32Format.visibleText?.(pieces.join(''))?.content ?? '').not.toMatch(
            /^all\n/,
          );
          for (const format of formats) {
            checkResult(format.read(pieces.join(''), TOOLS));
            checkResult(format.read(VALID.slice(0, at) + marker + VALID.slice(at), TOOLS));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads 200 KB of adversarial input in linear time', () => {
    const size = 200_000;
    const repeat = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
    const inputs = [
      repeat('>>>get_weather\n{"city": "'),
      repeat('>>>'),
      repeat('>>>all\n```'),
      repeat('>>>get_weather\n{"a": [[[['),
      `>>>python\n${repeat('x = 1\n')}`,
      repeat('<function=get_weather>{"a": "'),
      `get_weather\n${repeat('{"a": ')}`,
      repeat('>>>get_weather\n{"city": "Paris"}'),
    ];
    for (const format of formats) {
      for (const input of inputs) expect(timed(format, input)).toBeLessThan(2000);
    }
  });
});
