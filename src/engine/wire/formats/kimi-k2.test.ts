import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kimiK2Format } from './kimi-k2.js';
import type { OfferedToolSet } from './tool-call-format.js';

const TOOLS: OfferedToolSet = {
  names: new Set(['get_weather', 'search', 'fs.read_file']),
  parametersOf: () => undefined,
};

const SECTION = '<|tool_calls_section_begin|>';
const SECTION_END = '<|tool_calls_section_end|>';
const CALL = '<|tool_call_begin|>';
const ARGS = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';

function call(id: string, json: string): string {
  return `${CALL}${id}${ARGS}${json}${CALL_END}`;
}

function section(...calls: string[]): string {
  return `${SECTION}${calls.join('')}${SECTION_END}`;
}

const read = (reply: string) => kimiK2Format.read(reply, TOOLS);

describe('kimiK2Format', () => {
  it('reads one call and keeps its id', () => {
    expect(read(section(call('functions.get_weather:0', '{"city": "Tokyo"}')))).toEqual({
      content: '',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Tokyo"}', id: 'functions.get_weather:0' },
      ],
    });
  });

  it('reads several calls with prose before and after', () => {
    const reply = `Looking both up.\n${section(
      call('functions.get_weather:0', '{"city": "Osaka"}'),
      '\n',
      call('functions.search:1', '{"query": "ramen", "limit": 2}'),
    )}\nOne moment.`;
    expect(read(reply)).toEqual({
      content: 'Looking both up.\nOne moment.',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Osaka"}', id: 'functions.get_weather:0' },
        { name: 'search', arguments: '{"query":"ramen","limit":2}', id: 'functions.search:1' },
      ],
    });
  });

  it('keeps nested objects, unicode and multi-line strings', () => {
    const json =
      '{\n "query": "naïve 🚀\\nsecond line",\n "filters": {"lang": ["ja", "en"], "safe": true}\n}';
    const result = read(section(call(' functions.search:3 ', json)));
    expect(JSON.parse(result?.calls[0]?.arguments ?? '')).toEqual({
      query: 'naïve 🚀\nsecond line',
      filters: { lang: ['ja', 'en'], safe: true },
    });
    expect(result?.calls[0]?.id).toBe('functions.search:3');
  });

  it('keeps a dotted tool name whole and reads the singular section spelling', () => {
    const reply = `<|tool_call_section_begin|>${call('functions.fs.read_file:0', '{"path": "/tmp/a"}')}<|tool_call_section_end|>`;
    expect(read(reply)?.calls).toEqual([
      { name: 'fs.read_file', arguments: '{"path":"/tmp/a"}', id: 'functions.fs.read_file:0' },
    ]);
  });

  it('reads a section whose opener and closer differ in spelling', () => {
    // The plural opener is as long as the argument token: both are told apart, and both spellings close.
    const reply = `A ${SECTION}${call('functions.get_weather:0', '{"city": "Kobe"}')}<|tool_call_section_end|> B`;
    expect(read(reply)).toEqual({
      content: 'A B',
      calls: [{ name: 'get_weather', arguments: '{"city":"Kobe"}', id: 'functions.get_weather:0' }],
    });
  });

  it('reads a call whose end tokens are missing at the end of the output', () => {
    expect(read(`${SECTION}${CALL}functions.get_weather:0${ARGS}{"city": "Kobe"}`)?.calls).toEqual([
      { name: 'get_weather', arguments: '{"city":"Kobe"}', id: 'functions.get_weather:0' },
    ]);
  });

  it('drops a call of an unknown tool or with broken JSON and keeps the good ones', () => {
    const reply = section(
      call('functions.rm_rf:0', '{}'),
      call('functions.search:1', '{broken json'),
      call('functions.get_weather:2', '{"city": "Nara"}'),
    );
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Nara"}', id: 'functions.get_weather:2' }],
    });
  });

  it('leaves a section without a known tool, or a truncated call, in the content', () => {
    expect(read(section(call('functions.unknown:0', '{}')))).toBeUndefined();
    expect(read(`${SECTION}${CALL}functions.get_weather:0${ARGS}{"city": "Ky`)).toBeUndefined();
  });

  it('does not read the format explained in a code fence', () => {
    const reply = `Kimi writes:\n\`\`\`\n${section(call('functions.get_weather:0', '{"city": "X"}'))}\n\`\`\``;
    expect(read(reply)).toBeUndefined();
  });

  it('does not read JSON that only shows an example', () => {
    expect(
      read('Call it as {"name": "get_weather", "arguments": {"city": "Paris"}}.'),
    ).toBeUndefined();
  });

  it('never throws on random text or markers spliced into valid replies', () => {
    const valid = `Hi ${section(call('functions.get_weather:0', '{"city": "Oslo"}'))} bye`;
    const pieces = [
      SECTION,
      SECTION_END,
      CALL,
      ARGS,
      CALL_END,
      '{',
      '}',
      '"',
      ':0',
      'functions.',
      '```',
    ];
    const splice = fc
      .tuple(fc.nat(), fc.array(fc.constantFrom(...pieces), { maxLength: 6 }))
      .map(([at, inserted]) => {
        const index = at % (valid.length + 1);
        return valid.slice(0, index) + inserted.join('') + valid.slice(index);
      });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), splice), (reply) => {
        const result = read(reply);
        if (result !== undefined) {
          for (const found of result.calls) expect(TOOLS.names.has(found.name)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads 200 KB of adversarial input in bounded time', () => {
    const inputs = [
      `${SECTION}${`${CALL}functions.get_weather:0${ARGS}{'x`.repeat(5_000)}`,
      `${SECTION}${CALL}${'functions.get_weather'.repeat(10_000)}${ARGS}{}`,
      `${SECTION}${`${CALL}${'a'.repeat(400)}`.repeat(500)}`,
      SECTION.repeat(7_000),
      `${SECTION}${call('functions.search:0', '{"query": "x"}')}`.repeat(2_000),
    ];
    for (const input of inputs) {
      const started = performance.now();
      read(input);
      // 200 ms is the goal; ×10 keeps a loaded two-core machine from failing the build.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
