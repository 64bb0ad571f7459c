import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../core/index.js';
import { qwen3CoderFormat } from './qwen3-coder.js';
import type { OfferedToolSet, ReadToolCalls } from './tool-call-format.js';

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  get_weather: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { enum: ['c', 'f'] } },
  },
  write_file: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
  },
  search: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      filters: { type: 'object' },
      tags: { type: 'array', items: { type: 'string' } },
      exact: { type: 'boolean' },
      limit: { type: 'number' },
      cursor: { type: ['string', 'null'] },
    },
  },
  get_time: { type: 'object', properties: {} },
};

const TOOLS: OfferedToolSet = {
  names: new Set(Object.keys(SCHEMAS)),
  parametersOf: (name) => SCHEMAS[name],
};

/** The reply's calls with parsed arguments, so a case states what the tool receives. */
function read(reply: string): { content: string; calls: [string, unknown][] } | undefined {
  const found: ReadToolCalls | undefined = qwen3CoderFormat.read(reply, TOOLS);
  if (found === undefined) return undefined;
  for (const call of found.calls) expect(call.id).toBeUndefined();
  return {
    content: found.content,
    calls: found.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
  };
}

/** One Qwen3-Coder call the way its chat template writes it. */
function block(name: string, parameters: Readonly<Record<string, string>>): string {
  const body = Object.entries(parameters).map(
    ([key, value]) => `<parameter=${key}>\n${value}\n</parameter>\n`,
  );
  return `<tool_call>\n<function=${name}>\n${body.join('')}</function>\n</tool_call>`;
}

describe('qwen3CoderFormat: calls', () => {
  it('reads one call and types its values by the schema', () => {
    expect(read(block('get_weather', { city: 'Lisbon', days: '4', unit: 'c' }))).toEqual({
      content: '',
      calls: [['get_weather', { city: 'Lisbon', days: 4, unit: 'c' }]],
    });
  });

  it('reads several calls in order, in separate wrappers and in one', () => {
    const separate = `${block('get_weather', { city: 'Oslo' })}\n${block('get_time', {})}`;
    const shared =
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n' +
      '<function=get_time>\n</function>\n</tool_call>';
    const expected = [
      ['get_weather', { city: 'Oslo' }],
      ['get_time', {}],
    ];
    expect(read(separate)?.calls).toEqual(expected);
    expect(read(shared)).toEqual({ content: '', calls: expected });
  });

  it('keeps the prose before, between and after the calls', () => {
    const reply = `Checking both cities.\n\n${block('get_weather', { city: 'Rome' })}\nand\n${block('get_weather', { city: 'Bern' })}\n\nBack soon.`;
    expect(read(reply)).toEqual({
      content: 'Checking both cities.\n\nand\nBack soon.',
      calls: [
        ['get_weather', { city: 'Rome' }],
        ['get_weather', { city: 'Bern' }],
      ],
    });
  });

  it('reads nested objects and lists, also in Python spelling', () => {
    const reply = block('search', {
      query: 'tides',
      filters: '{"region": {"coast": ["north", "west"]}, "depth": {"max": 40}}',
      tags: "['sea', 'moon']",
      exact: 'True',
      limit: '2.5',
    });
    expect(read(reply)?.calls).toEqual([
      [
        'search',
        {
          query: 'tides',
          filters: { region: { coast: ['north', 'west'] }, depth: { max: 40 } },
          tags: ['sea', 'moon'],
          exact: true,
          limit: 2.5,
        },
      ],
    ]);
  });

  it('keeps unicode text as written', () => {
    const reply = `Voilà ✓ ${block('search', { query: 'Zürich → 東京 🚆 "quoted"' })}`;
    expect(read(reply)).toEqual({
      content: 'Voilà ✓',
      calls: [['search', { query: 'Zürich → 東京 🚆 "quoted"' }]],
    });
  });

  it('keeps a multi-line value whole, dropping only the line break after and before the tags', () => {
    const code = 'def main():\n    print("hi")\n\n\n    return 0\n';
    const reply = block('write_file', { path: 'main.py', content: code });
    expect(read(reply)?.calls).toEqual([['write_file', { path: 'main.py', content: code }]]);
  });

  it('keeps a value that quotes the closing tags (they close only before another tag)', () => {
    const content = 'The tag </parameter> ends a value; </function> ends a call.';
    expect(read(block('write_file', { path: 'notes.md', content }))?.calls).toEqual([
      ['write_file', { path: 'notes.md', content }],
    ]);
  });

  it('reads a call whose closing tags are missing at the end of the output', () => {
    const reply =
      'On it.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nKyiv\n</parameter>\n';
    expect(read(reply)).toEqual({ content: 'On it.', calls: [['get_weather', { city: 'Kyiv' }]] });
    const noFunctionClose = '<tool_call>\n<function=get_time>\n</tool_call>';
    expect(read(noFunctionClose)?.calls).toEqual([['get_time', {}]]);
  });

  it('reads calls without the <tool_call> wrapper (a server dropped the special token)', () => {
    const reply =
      'Sure.\n<function=get_weather>\n<parameter=city>\nLima\n</parameter>\n</function>';
    expect(read(reply)).toEqual({ content: 'Sure.', calls: [['get_weather', { city: 'Lima' }]] });
  });

  it('reads a call after the thinking, not the one drafted inside it', () => {
    const reply = `<think>Maybe ${block('get_weather', { city: 'Draft' })}? No, Quito.</think>\n${block('get_weather', { city: 'Quito' })}`;
    expect(read(reply)?.calls).toEqual([['get_weather', { city: 'Quito' }]]);
  });

  it('keeps text for parameters the schema does not know, reading JSON when the whole value is JSON', () => {
    const reply = block('get_weather', { city: 'null', extra: '[1, 2]', note: 'plain words' });
    expect(read(reply)?.calls).toEqual([
      ['get_weather', { city: 'null', extra: [1, 2], note: 'plain words' }],
    ]);
    expect(read(block('search', { cursor: 'None', limit: 'lots' }))?.calls).toEqual([
      ['search', { cursor: null, limit: 'lots' }],
    ]);
  });
});

describe('qwen3CoderFormat: not calls', () => {
  it('leaves a format example in a code fence or inline code alone', () => {
    const fenced = `To call a tool, write:\n\n\`\`\`xml\n${block('get_weather', { city: 'Paris' })}\n\`\`\`\n\nThat is all.`;
    const inline = 'Wrap it as `<function=get_weather>` then `<parameter=city>`.';
    expect(read(fenced)).toBeUndefined();
    expect(read(inline)).toBeUndefined();
  });

  it('reads a real call after a fenced example', () => {
    const reply = `Example:\n\`\`\`\n${block('get_weather', { city: 'Paris' })}\n\`\`\`\nNow for real:\n${block('get_weather', { city: 'Nice' })}`;
    expect(read(reply)).toEqual({
      content: `Example:\n\`\`\`\n${block('get_weather', { city: 'Paris' })}\n\`\`\`\nNow for real:`,
      calls: [['get_weather', { city: 'Nice' }]],
    });
  });

  it('leaves a call to a tool that was not offered in the text', () => {
    const unknown = block('delete_everything', { path: '/' });
    expect(read(unknown)).toBeUndefined();
    const mixed = `${unknown}\n${block('get_time', {})}`;
    expect(read(mixed)).toEqual({ content: unknown, calls: [['get_time', {}]] });
  });

  it('leaves a truncated block alone', () => {
    expect(read('<tool_call>\n<function=get_weather>\n<parameter=city>\nPar')).toBeUndefined();
    expect(read('<tool_call>\n<function=get_time>')).toBeUndefined();
    expect(read('<tool_call>\n<function=get_wea')).toBeUndefined();
  });

  it('leaves JSON or code that only shows a call alone', () => {
    expect(read('{"name": "get_weather", "arguments": {"city": "Paris"}}')).toBeUndefined();
    expect(
      read('<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>'),
    ).toBeUndefined();
    expect(read('html = "<function=" + name + ">"')).toBeUndefined();
    expect(read('<function={{ tool.name }}>\n</function>')).toBeUndefined();
  });

  it('keeps a block that does not parse in the text, with the good calls around it', () => {
    const broken = '<tool_call>\n<function=get_weather>\nstray words\n</function>\n</tool_call>';
    expect(read(broken)).toBeUndefined();
    const reply = `${broken}\n${block('get_time', {})}`;
    expect(read(reply)).toEqual({ content: broken, calls: [['get_time', {}]] });
  });
});

describe('qwen3CoderFormat: robustness', () => {
  const samples = [
    block('get_weather', { city: 'Paris', days: '2' }),
    `Hi ${block('search', { query: 'x', filters: '{"a": [1, {"b": 2}]}' })} bye`,
    '<function=get_time>\n</function>',
  ];
  const pieces = [
    '<tool_call>',
    '</tool_call>',
    '<function=',
    '<function=get_weather>',
    '</function>',
    '<parameter=',
    '<parameter=city>',
    '</parameter>',
    '>',
    '\n',
    '```',
    '`',
    '<think>',
    '</think>',
    '{',
    '"',
  ];

  it('never throws and returns calls with JSON object arguments on random and spliced input', () => {
    const spliced = fc
      .tuple(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces)), { maxLength: 6 }),
      )
      .map(([sample, splices]) =>
        splices.reduce((text, [at, piece]) => {
          const index = at % (text.length + 1);
          return text.slice(0, index) + piece + text.slice(index);
        }, sample),
      );
    const wellFormed = (reply: string): void => {
      const found = qwen3CoderFormat.read(reply, TOOLS);
      for (const call of found?.calls ?? []) {
        expect(TOOLS.names.has(call.name)).toBe(true);
        expect(typeof JSON.parse(call.arguments)).toBe('object');
      }
    };
    fc.assert(fc.property(spliced, wellFormed), { numRuns: 1500 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), wellFormed), {
      numRuns: 1500,
    });
  });

  it('reads 200 KB of adversarial input in linear time', () => {
    const size = 200_000;
    const patterns = [
      '<tool_call><function=get_weather><parameter=city>',
      '<function=get_weather>\n<parameter=city>\nx\n</parameter>\n',
      '</parameter>x',
      '<parameter=city>',
      '<function=',
      '```\n<function=get_time>\n',
      '<think><function=get_time></function>',
      `${block('get_time', {})}\n`,
    ];
    for (const pattern of patterns) {
      const reply = pattern.repeat(Math.ceil(size / pattern.length));
      const started = performance.now();
      qwen3CoderFormat.read(reply, TOOLS);
      // 200 ms is the budget; ×10 keeps the test steady on a loaded machine.
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
