import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apertusFormat,
  gigaChat3Format,
  granite20bFcFormat,
  hunyuanFormat,
  internlm2Format,
  jambaFormat,
  nemotronFormat,
  xlamFormat,
} from './json-list-markers.js';
import type { OfferedToolSet, ReadToolCalls, ToolCallFormat } from './tool-call-format.js';

function offer(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}

const TOOLS = offer('get_weather', 'search_web');

interface Call {
  readonly name: string;
  readonly args: string;
}

/** How one format writes calls, so the shared cases below can be run against each. */
interface FormatCase {
  readonly format: ToolCallFormat;
  /** The reply text holding these calls. */
  readonly write: (calls: readonly Call[]) => string;
  /** Its end marker (to cut off for the "missing at the end" case), if it has one. */
  readonly close?: string;
  /** Whether one reply may hold several calls (GigaChat 3 writes one). */
  readonly several: boolean;
}

const entry = (call: Call) => `{"name": "${call.name}", "arguments": ${call.args}}`;
const list = (calls: readonly Call[]) => `[${calls.map(entry).join(', ')}]`;

const CASES: readonly FormatCase[] = [
  {
    format: nemotronFormat,
    write: (calls) => `<TOOLCALL>${list(calls)}</TOOLCALL>`,
    close: '</TOOLCALL>',
    several: true,
  },
  {
    format: jambaFormat,
    write: (calls) => `<tool_calls>${list(calls)}</tool_calls>`,
    close: '</tool_calls>',
    several: true,
  },
  {
    format: hunyuanFormat,
    write: (calls) => `<tool_calls>\n${list(calls)}\n</tool_calls>`,
    close: '</tool_calls>',
    several: true,
  },
  {
    format: apertusFormat,
    write: (calls) =>
      `<|tools_prefix|>[${calls.map((call) => `{"${call.name}": ${call.args}}`).join(', ')}]<|tools_suffix|>`,
    close: '<|tools_suffix|>',
    several: true,
  },
  {
    format: granite20bFcFormat,
    write: (calls) => calls.map((call) => `<function_call> ${entry(call)}`).join('\n'),
    several: true,
  },
  {
    format: internlm2Format,
    write: (calls) =>
      calls
        .map(
          (call) =>
            `<|action_start|><|plugin|>\n{"name": "${call.name}", "parameters": ${call.args}}<|action_end|>`,
        )
        .join('\n'),
    close: '<|action_end|>',
    several: true,
  },
  {
    format: gigaChat3Format,
    write: (calls) =>
      calls.map((call) => `<|message_sep|>\n\nfunction call<|role_sep|>\n${entry(call)}`).join(''),
    several: false,
  },
];

const WEATHER: Call = { name: 'get_weather', args: '{"city": "Paris"}' };
const SEARCH: Call = { name: 'search_web', args: '{"q": "museums"}' };
const PARIS = '{"city":"Paris"}';

describe.each(CASES)('$format.name: positive cases', ({ format, write, close, several }) => {
  const read = (reply: string) => format.read(reply, TOOLS);

  it('reads one call', () => {
    expect(read(write([WEATHER]))).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  if (several) {
    it('reads several calls', () => {
      expect(read(write([WEATHER, SEARCH]))?.calls).toEqual([
        { name: 'get_weather', arguments: PARIS },
        { name: 'search_web', arguments: '{"q":"museums"}' },
      ]);
    });
  }

  it('keeps the prose before and after the calls', () => {
    expect(read(`I will check.\n${write([WEATHER])}\nBack in a moment.`)).toEqual({
      content: 'I will check.\nBack in a moment.',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('keeps nested objects, unicode and multi-line values', () => {
    const args =
      '{"q": "café ☕ 北京", "filter": {"tags": ["a", {"b": [1, 2]}], "on": true}, "text": "one\\ntwo"}';
    const found = read(write([{ name: 'search_web', args }]));
    expect(JSON.parse(found?.calls[0]?.arguments ?? '')).toEqual({
      q: 'café ☕ 北京',
      filter: { tags: ['a', { b: [1, 2] }], on: true },
      text: 'one\ntwo',
    });
  });

  it('reads the calls when the end marker is missing at the end of the output', () => {
    const reply = write([WEATHER]);
    const cut = close === undefined ? reply : reply.slice(0, reply.lastIndexOf(close));
    expect(read(`${cut}\n`)?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
  });
});

describe.each(CASES)('$format.name: negative cases', ({ format, write }) => {
  const read = (reply: string) => format.read(reply, TOOLS);

  it('leaves JSON that only shows an example alone', () => {
    expect(read(`A call is written as ${list([WEATHER])} or ${entry(WEATHER)}.`)).toBeUndefined();
  });

  it('does not read a call to a tool that was not offered', () => {
    expect(read(write([{ name: 'wipe_disk', args: '{"disk": 0}' }]))).toBeUndefined();
  });

  it('keeps a truncated block in the text', () => {
    const reply = write([WEATHER]);
    expect(read(reply.slice(0, reply.indexOf('Paris')))).toBeUndefined();
  });

  it('does not read a marker inside a code fence that explains the format', () => {
    expect(
      read(`To call a tool, write:\n\`\`\`\n${write([WEATHER])}\n\`\`\`\nThen wait.`),
    ).toBeUndefined();
  });

  it('reads nothing when no tools are offered', () => {
    expect(format.read(write([WEATHER]), offer())).toBeUndefined();
  });
});

describe('format details', () => {
  it('keeps the good entries of a list with an unknown tool or a bad shape', () => {
    const reply = `<TOOLCALL>[${entry(WEATHER)}, {"name": "nope", "arguments": {}}, 42, {"name": "search_web", "arguments": [1]}]</TOOLCALL>`;
    expect(nemotronFormat.read(reply, TOOLS)?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
  });

  it('reads a single object in <TOOLCALL> and <tool_calls>', () => {
    expect(
      nemotronFormat.read(`<TOOLCALL>${entry(WEATHER)}</TOOLCALL>`, TOOLS)?.calls,
    ).toHaveLength(1);
    expect(
      jambaFormat.read(`<tool_calls>${entry(WEATHER)}</tool_calls>`, TOOLS)?.calls,
    ).toHaveLength(1);
  });

  it("reads Apertus's short form with arguments written as a string or left out", () => {
    const reply =
      '<|tools_prefix|>[{"get_weather": "{\\"city\\": \\"Paris\\"}"}, {"search_web": null}]<|tools_suffix|>';
    expect(apertusFormat.read(reply, TOOLS)?.calls).toEqual([
      { name: 'get_weather', arguments: '{"city": "Paris"}' },
      { name: 'search_web', arguments: '{}' },
    ]);
  });

  it('reads GigaChat 3 <|function_call|> and refuses a call without arguments', () => {
    expect(gigaChat3Format.read(`<|function_call|>${entry(WEATHER)}</s>`, TOOLS)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
    const bare = '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather"}';
    expect(gigaChat3Format.read(bare, TOOLS)).toBeUndefined();
  });

  it('reads InternLM2 blocks written with "arguments" too', () => {
    const reply = `<|action_start|><|plugin|>\n${entry(WEATHER)}<|action_end|>`;
    expect(internlm2Format.read(reply, TOOLS)?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
  });

  it('reads a block whole or value by value alike (end marker in a string, stray brackets, JSON Lines, depth)', () => {
    const calls = (reply: string) => nemotronFormat.read(reply, TOOLS)?.calls.length ?? 0;
    // The first end marker lies inside an argument: the block does not end there.
    const inString = '{"name": "get_weather", "arguments": {"city": "a</TOOLCALL>"}}';
    expect(nemotronFormat.read(`<TOOLCALL>${inString}</TOOLCALL>`, TOOLS)?.calls).toEqual([
      { name: 'get_weather', arguments: '{"city":"a</TOOLCALL>"}' },
    ]);
    expect(calls(`<TOOLCALL>${list([WEATHER])}]]</TOOLCALL>`)).toBe(1);
    expect(calls(`<TOOLCALL>${entry(WEATHER)}\n${entry(WEATHER)}</TOOLCALL>`)).toBe(2);
    expect(calls(`<TOOLCALL>${entry(WEATHER)}, {"name": "search_web",}</TOOLCALL>`)).toBe(2);
    // Nested 65 deep a value is read leniently (past the strict scan's 64); 66 deep, not at all.
    const nested = (depth: number) =>
      `<TOOLCALL>[{"name": "get_weather", "arguments": {"a": ${'['.repeat(depth - 3)}${']'.repeat(depth - 3)}}}]</TOOLCALL>`;
    expect(calls(nested(64))).toBe(1);
    expect(calls(nested(65))).toBe(1);
    expect(calls(nested(66))).toBe(0);
    expect(calls(`<function_call> ${entry(WEATHER)} {"x": 1}`)).toBe(0);
    expect(granite20bFcFormat.read(`<function_call> ${entry(WEATHER)}`, TOOLS)?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
  });

  it('leaves a block that holds no call in the text', () => {
    expect(jambaFormat.read('<tool_calls>[]</tool_calls>', TOOLS)).toBeUndefined();
    expect(jambaFormat.read('<tool_calls>not json</tool_calls>', TOOLS)).toBeUndefined();
  });
});

describe('gigaChat3Format.visibleText', () => {
  it('shows a reply with no call without its message ends, and leaves other replies alone', () => {
    const visible = (reply: string) => gigaChat3Format.visibleText?.(reply);
    expect(visible('Hello there.<|message_sep|>\n')).toEqual({ content: 'Hello there.' });
    expect(visible('One.<|message_sep|> Two.')).toEqual({ content: 'One.Two.' });
    expect(visible('No markup here.')).toBeUndefined();
  });
});

describe('xlamFormat', () => {
  const read = (reply: string) => xlamFormat.read(reply, TOOLS);

  it('reads a reply that is a JSON list of calls, bare or fenced', () => {
    const expected = {
      content: '',
      calls: [
        { name: 'get_weather', arguments: PARIS },
        { name: 'search_web', arguments: '{"q":"museums"}' },
      ],
    };
    expect(read(list([WEATHER, SEARCH]))).toEqual(expected);
    expect(read(`\`\`\`json\n${list([WEATHER, SEARCH])}\n\`\`\``)).toEqual(expected);
    expect(read(`  ${list([WEATHER])}\n`)?.calls).toHaveLength(1);
  });

  it('keeps nested, unicode and multi-line arguments', () => {
    const args = '{"q": "Ōsaka\\nKyōto", "opts": {"n": [1, {"m": null}]}}';
    expect(
      JSON.parse(read(list([{ name: 'search_web', args }]))?.calls[0]?.arguments ?? ''),
    ).toEqual({
      q: 'Ōsaka\nKyōto',
      opts: { n: [1, { m: null }] },
    });
  });

  it('drops entries naming unknown tools and keeps the others', () => {
    expect(read(list([WEATHER, { name: 'nuke', args: '{}' }]))?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
  });

  it('reads nothing from prose, a list inside prose, other JSON, or a truncated list', () => {
    expect(read(`Here you go: ${list([WEATHER])}`)).toBeUndefined();
    expect(read(`${list([WEATHER])}\nThat is the call.`)).toBeUndefined();
    expect(read('[{"name": "get_weather", "population": 2100000}]')).toBeUndefined();
    expect(read('[{"name": "get_weather"}]')).toBeUndefined();
    expect(read('[1, 2, 3]')).toBeUndefined();
    expect(read(list([WEATHER]).slice(0, -2))).toBeUndefined();
    expect(read(list([{ name: 'nuke', args: '{}' }]))).toBeUndefined();
  });

  it('reads nothing from a fence that explains the format among prose', () => {
    expect(read(`Write:\n\`\`\`json\n${list([WEATHER])}\n\`\`\`\nto call it.`)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// Fuzz: never throws, calls are offered tools with object arguments, linear time

const FORMATS = [...CASES.map((entry) => entry.format), xlamFormat];
const FRAGMENTS = [
  ...FORMATS.flatMap((format) => format.markers),
  '</TOOLCALL>',
  '</tool_calls>',
  '<|tools_suffix|>',
  '<|action_end|>',
  '<|message_sep|>',
  entry(WEATHER),
  '{"get_weather": {',
  '```',
  '"',
  '[',
  '{',
  '}',
  ']',
];

function checkResult(found: ReadToolCalls | undefined): void {
  for (const call of found?.calls ?? []) {
    expect(TOOLS.names.has(call.name)).toBe(true);
    expect(typeof JSON.parse(call.arguments)).toBe('object');
  }
}

describe('JSON list formats: fuzz', () => {
  it('never throws on random text and random splices of markers into valid replies', () => {
    const piece = fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.nat(200),
        fc.constantFrom(...FRAGMENTS),
        (pieces, at, marker) => {
          for (const { format, write } of CASES) {
            const valid = write([WEATHER, SEARCH]);
            const cut = at % (valid.length + 1);
            checkResult(format.read(pieces.join(''), TOOLS));
            checkResult(format.read(valid.slice(0, cut) + marker + valid.slice(cut), TOOLS));
          }
          checkResult(xlamFormat.read(pieces.join(''), TOOLS));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads 200 KB of adversarial input in linear time', () => {
    const size = 200_000;
    const repeat = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
    const inputs = [
      ...FORMATS.flatMap((format) =>
        format.markers.map((marker) => repeat(`${marker}[{"name": "`)),
      ),
      ...FORMATS.flatMap((format) => format.markers.map((marker) => repeat(`\`\`\`${marker}{`))),
      repeat(`<TOOLCALL>${list([WEATHER])}</TOOLCALL> `),
      `[${repeat('{"name": "get_weather", "arguments": {}}, ')}`,
      `<tool_calls>${repeat('[')}`,
    ];
    for (const format of FORMATS) {
      for (const input of inputs) {
        const started = performance.now();
        checkResult(format.read(input, TOOLS));
        expect(performance.now() - started).toBeLessThan(2000);
      }
    }
  });
});
