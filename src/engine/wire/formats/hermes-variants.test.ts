import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hermesVariantsFormat, qwen25CoderFormat } from './hermes-variants.js';
import type { OfferedToolSet, ReadToolCalls, ToolCallFormat } from './tool-call-format.js';

function offer(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}

const TOOLS = offer('get_weather', 'search_web', 'send_email');

function read(
  reply: string,
  format: ToolCallFormat = hermesVariantsFormat,
): ReadToolCalls | undefined {
  return format.read(reply, TOOLS);
}

const PARIS = '{"city":"Paris"}';

describe('hermesVariantsFormat: positive cases', () => {
  it('reads one <tool_call> block', () => {
    const reply =
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('reads several blocks in the different wrappers, keeping the prose around them', () => {
    const reply = [
      'Checking three things.',
      '<tool>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool>',
      '<json>{"name": "search_web", "arguments": {"q": "louvre hours"}}</json>',
      'and then',
      '<response>{"name": "send_email", "arguments": {"to": "a@b.c"}}</response>',
      '<xml>{"name": "get_weather", "arguments": {"city": "Lyon"}}</xml>',
      '<tools>{"name": "get_weather", "arguments": {"city": "Nice"}}</tools>',
      '<JSON>{"name": "get_weather", "arguments": {"city": "Metz"}}</JSON>',
      '<function_call>{"name": "get_weather", "arguments": {"city": "Caen"}}</function_call>',
      'Done.',
    ].join('\n');
    const found = read(reply);
    expect(found?.content).toBe('Checking three things.\nand then\nDone.');
    expect(found?.calls.map((call) => call.arguments)).toEqual([
      PARIS,
      '{"q":"louvre hours"}',
      '{"to":"a@b.c"}',
      '{"city":"Lyon"}',
      '{"city":"Nice"}',
      '{"city":"Metz"}',
      '{"city":"Caen"}',
    ]);
  });

  it('reads <function=name>{…}</function> and <function name="name">{…}</function>', () => {
    const reply =
      'Let me look. <function=get_weather>{"city": "Paris"}</function>\n<function name="search_web">{"q": "rain"}</function> Back soon.';
    expect(read(reply)).toEqual({
      content: 'Let me look. Back soon.',
      calls: [
        { name: 'get_weather', arguments: PARIS },
        { name: 'search_web', arguments: '{"q":"rain"}' },
      ],
    });
  });

  it('keeps nested objects and lists in the arguments', () => {
    const reply =
      '<tool_call>{"name": "send_email", "arguments": {"to": ["a@b.c", "d@e.f"], "meta": {"tags": {"x": [1, {"y": null}]}}}}</tool_call>';
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      to: ['a@b.c', 'd@e.f'],
      meta: { tags: { x: [1, { y: null }] } },
    });
  });

  it('keeps unicode text and escapes', () => {
    const reply =
      'Météo 🌦️ :\n<tool_call>{"name": "get_weather", "arguments": {"city": "東京", "note": "\\u00e9t\\u00e9 ☀"}}</tool_call>';
    const found = read(reply);
    expect(found?.content).toBe('Météo 🌦️ :');
    expect(JSON.parse(found?.calls[0]?.arguments ?? '')).toEqual({ city: '東京', note: 'été ☀' });
  });

  it('keeps multi-line values, escaped or written raw', () => {
    const reply =
      '<tool_call>\n{"name": "send_email", "arguments": {"body": "Hi,\\nsee you\\n", "sig": "line one\nline two"}}\n</tool_call>';
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      body: 'Hi,\nsee you\n',
      sig: 'line one\nline two',
    });
  });

  it('reads a block whose closing tag is missing at the end of the output', () => {
    const reply =
      'One moment.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n';
    expect(read(reply)).toEqual({
      content: 'One moment.',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
    const fn = '<function=get_weather>{"city": "Paris"}';
    expect(read(fn)?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
  });

  it('reads a ```json fence inside the <tool_call> tag', () => {
    const reply =
      '<tool_call>\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\n</tool_call>\nok';
    expect(read(reply)).toEqual({
      content: 'ok',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('reads a reply that is one fence around tagged calls', () => {
    const reply =
      '```xml\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n```';
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('reads a list of calls in one tag, dropping only the entry that names an unknown tool', () => {
    const reply =
      '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "rm_rf", "arguments": {}}, {"name": "search_web", "arguments": {"q": "x"}}]</tool_call>';
    expect(read(reply)?.calls.map((call) => call.name)).toEqual(['get_weather', 'search_web']);
  });

  it('reads lenient JSON: single quotes, trailing commas, Python literals', () => {
    const reply =
      "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris', 'metric': True,},}</tool_call>";
    expect(read(reply)?.calls).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris","metric":true}' },
    ]);
  });

  it('takes a closing tag inside an argument string as text, and drops a doubled brace', () => {
    const reply =
      '<tool_call>{"name": "send_email", "arguments": {"body": "use </tool_call> here"}}}</tool_call>\nSent.';
    expect(read(reply)).toEqual({
      content: 'Sent.',
      calls: [{ name: 'send_email', arguments: '{"body":"use </tool_call> here"}' }],
    });
  });

  it('reads a call with no arguments key as a call without arguments', () => {
    expect(read('<tool_call>{"name": "get_weather"}</tool_call>')?.calls).toEqual([
      { name: 'get_weather', arguments: '{}' },
    ]);
  });

  it("reads OpenAI's {type: function, function: {…}} shape", () => {
    const reply =
      '<tool_call>{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}</tool_call>';
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
  });

  it('reads arguments written as a JSON string', () => {
    const reply =
      '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}</tool_call>';
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({ city: 'Paris' });
  });
});

describe('hermesVariantsFormat: negative cases', () => {
  it('leaves JSON that only shows an example (no marker) alone', () => {
    const reply =
      'A call looks like {"name": "get_weather", "arguments": {"city": "Paris"}} in this format.';
    expect(read(reply)).toBeUndefined();
  });

  it('does not read a call to a tool that was not offered; the text stays', () => {
    expect(
      read('<tool_call>{"name": "delete_files", "arguments": {"path": "/"}}</tool_call>'),
    ).toBeUndefined();
    expect(read('<function=delete_files>{"path": "/"}</function>')).toBeUndefined();
  });

  it('keeps a truncated block in the text', () => {
    expect(
      read('Sure.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Par'),
    ).toBeUndefined();
    const mixed =
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Par\n<tool_call>{"name": "search_web", "arguments": {"q": "x"}}</tool_call>';
    expect(read(mixed)).toEqual({
      content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Par',
      calls: [{ name: 'search_web', arguments: '{"q":"x"}' }],
    });
  });

  it('does not read a marker inside a code fence that explains the format', () => {
    const reply = [
      'To call a tool, write:',
      '```',
      '<tool_call>',
      '{"name": "get_weather", "arguments": {"city": "Paris"}}',
      '</tool_call>',
      '```',
      'and I will run it.',
    ].join('\n');
    expect(read(reply)).toBeUndefined();
  });

  it('does not read a marker in inline code', () => {
    const reply = 'Wrap it as `<json>{"name": "get_weather", "arguments": {}}</json>` and send it.';
    expect(read(reply)).toBeUndefined();
  });

  it('reads a call after a fence that only explains, and not the one inside it', () => {
    const reply = [
      'Example:',
      '```',
      '<tool>{"name": "search_web", "arguments": {"q": "example"}}</tool>',
      '```',
      'Now for real:',
      '<tool>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool>',
    ].join('\n');
    const found = read(reply);
    expect(found?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
    expect(found?.content).toContain('"q": "example"');
  });

  it("leaves Granite's <response>text</response> and Qwen3-Coder's XML to other readers", () => {
    expect(read('<response>It is sunny in Paris.</response>')).toBeUndefined();
    expect(
      read(
        '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
      ),
    ).toBeUndefined();
  });

  it('does not read <function=…> whose arguments are not an object', () => {
    expect(read('<function=get_weather>["Paris"]</function>')).toBeUndefined();
    expect(read('<function=get_weather>null</function>')).toBeUndefined();
  });

  it('does not take tool definitions echoed from the prompt for calls', () => {
    const reply =
      'My tools are:\n<tools>\n{"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}\n</tools>';
    expect(read(reply)).toBeUndefined();
  });

  it('reads nothing when no tools are offered', () => {
    const reply = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>';
    expect(hermesVariantsFormat.read(reply, offer())).toBeUndefined();
  });
});

describe('qwen25CoderFormat', () => {
  const qwen = (reply: string) => read(reply, qwen25CoderFormat);

  it('reads one object, a list, JSON Lines and comma-separated objects', () => {
    const one = '<tools>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tools>';
    expect(qwen(one)?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
    const bodies = [
      '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "search_web", "arguments": {"q": "x"}}]',
      '{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "search_web", "arguments": {"q": "x"}}',
      '{"name": "get_weather", "arguments": {"city": "Paris"}},\n{"name": "search_web", "arguments": {"q": "x"}}',
    ];
    for (const body of bodies) {
      expect(qwen(`<tools>\n${body}\n</tools>`)?.calls.map((call) => call.name)).toEqual([
        'get_weather',
        'search_web',
      ]);
    }
  });

  it('keeps prose around the block and reads it without its closing tag', () => {
    const reply = 'I will check.\n<tools>\n{"name": "get_weather", "arguments": {"city": "Paris"}}';
    expect(qwen(reply)).toEqual({
      content: 'I will check.',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('reads the Hermes <tool_call> block too, and leaves unknown tools and examples alone', () => {
    expect(
      qwen('<tool_call>{"name": "search_web", "arguments": {"q": "x"}}</tool_call>')?.calls,
    ).toHaveLength(1);
    expect(qwen('<tools>{"name": "format_disk", "arguments": {}}</tools>')).toBeUndefined();
    expect(
      qwen('```\n<tools>{"name": "get_weather", "arguments": {}}</tools>\n```\nlike that'),
    ).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// Fuzz: never throws, calls are offered tools with object arguments, linear time

const VALID = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
const FRAGMENTS = [
  ...hermesVariantsFormat.markers,
  '</tool_call>',
  '</function>',
  '```',
  '```json\n',
  '{"name": "get_weather", "arguments": {',
  '"',
  "'",
  '{',
  '[',
  '}',
  '\\',
  'get_weather">',
  'search_web>',
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

describe('hermes formats: fuzz', () => {
  const formats = [hermesVariantsFormat, qwen25CoderFormat];

  it('never throws on random text and random splices of markers into valid replies', () => {
    const piece = fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.nat(VALID.length),
        fc.constantFrom(...FRAGMENTS),
        (pieces, at, marker) => {
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
      repeat('<tool_call>{"name": "get_weather", "arguments": {"city": "'),
      repeat('<function='),
      repeat('<function name="get_weather'),
      repeat('<function=get_weather>{"a": ['),
      repeat('<tool>[[[[{"name": '),
      repeat('```<json>{"name": "get_weather", "arguments": {}}'),
      repeat('<tools>{"name": "get_weather", "arguments": {}} x'),
      `<tool_call>${repeat('{"a": "b", ')}`,
      `${'<tool_call>'.repeat(1000)}${repeat('x')}`,
    ];
    for (const format of formats) {
      for (const input of inputs) expect(timed(format, input)).toBeLessThan(2000);
    }
  });
});
