import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../core/index.js';
import { deepseekV3Format, deepseekV31Format, deepseekV32Format } from './deepseek.js';
import type { OfferedToolSet, ToolCallFormat } from './tool-call-format.js';

const SCHEMAS: Record<string, JsonSchema> = {
  get_weather: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  },
  run_shell: { type: 'object', properties: { command: { type: 'string' } } },
  search: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } } },
};

const TOOLS: OfferedToolSet = {
  names: new Set(Object.keys(SCHEMAS)),
  parametersOf: (name) => SCHEMAS[name],
};

// Tokens spelled out once, so the cases below read as the model writes them.
const CALLS = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';

/** An R1 / V3 call: the type, the name on its line, then the arguments in a ```json fence. */
function v3(name: string, json: string): string {
  return `${CALL}function${SEP}${name}\n\`\`\`json\n${json}\n\`\`\`${CALL_END}`;
}

function v31(name: string, json: string): string {
  return `${CALL}${name}${SEP}${json}${CALL_END}`;
}

function dsmlParameter(name: string, value: string, isString = true): string {
  return `<｜DSML｜parameter name="${name}" string="${isString}">${value}</｜DSML｜parameter>`;
}

function dsmlInvoke(name: string, body: string): string {
  return `<｜DSML｜invoke name="${name}">\n${body}\n</｜DSML｜invoke>`;
}

function dsml(...invokes: string[]): string {
  return `<｜DSML｜function_calls>\n${invokes.join('\n')}\n</｜DSML｜function_calls>`;
}

describe('deepseekV3Format (R1 / V3)', () => {
  const read = (reply: string) => deepseekV3Format.read(reply, TOOLS);

  it('reads one call in its ```json fence', () => {
    const reply = `${CALLS}${v3('get_weather', '{"city": "Lyon", "days": 2}')}${CALLS_END}`;
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Lyon","days":2}' }],
    });
  });

  it('reads several calls and keeps the prose before and after', () => {
    const reply = [
      'Checking both cities.\n\n',
      CALLS,
      v3('get_weather', '{"city": "Oslo"}'),
      '\n',
      v3('search', '{"query": "fjords", "limit": 3}'),
      CALLS_END,
      '<｜end▁of▁sentence｜>',
      '\nDone.',
    ].join('');
    expect(read(reply)).toEqual({
      content: 'Checking both cities.\n\nDone.',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { name: 'search', arguments: '{"query":"fjords","limit":3}' },
      ],
    });
  });

  it('keeps nested objects, unicode and multi-line values', () => {
    const json =
      '{\n  "query": "café ☕ 東京\\nline two",\n  "limit": 1,\n  "filter": {"tags": ["a", {"b": null}]}\n}';
    const result = read(`${CALLS}${v3('search', json)}${CALLS_END}`);
    expect(JSON.parse(result?.calls[0]?.arguments ?? '')).toEqual({
      query: 'café ☕ 東京\nline two',
      limit: 1,
      filter: { tags: ['a', { b: null }] },
    });
  });

  it('reads a call whose closing tokens were cut at the end of the output', () => {
    const reply = `${CALLS}${CALL}function${SEP}get_weather\n\`\`\`json\n{"city": "Rome"}\n\`\`\``;
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Rome"}' }]);
  });

  it('reads the section opener variants llama.cpp meets (R1 distills)', () => {
    for (const opener of [
      '<｜tool_calls_begin｜>',
      '<｜tool calls begin｜>',
      '<｜tool\\_calls\\_begin｜>',
      '<｜tool▁calls｜>',
    ]) {
      const reply = `${opener}${v3('get_weather', '{"city": "Bern"}')}${CALLS_END}`;
      expect(read(reply)?.calls, opener).toEqual([
        { name: 'get_weather', arguments: '{"city":"Bern"}' },
      ]);
    }
  });

  it('reads sections opened by different spellings in one reply, each up to its own closer', () => {
    const reply = `A <｜tool▁calls｜>${v3('get_weather', '{"city": "Bern"}')}${CALLS_END} B <｜tool calls begin｜>${v31('search', '{"query": "q"}')}${CALLS_END} C`;
    expect(read(reply)).toEqual({
      content: 'A B C',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Bern"}' },
        { name: 'search', arguments: '{"query":"q"}' },
      ],
    });
  });

  it('also reads the V3.1 shape written with the same tokens', () => {
    const reply = `${CALLS}${v31('get_weather', '{"city": "Nice"}')}${CALLS_END}`;
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Nice"}' }]);
  });

  it('drops an entry naming an unknown tool and keeps the good ones', () => {
    const reply = `${CALLS}${v3('delete_everything', '{}')}${v3('get_weather', '{"city": "Kyiv"}')}${CALLS_END}`;
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Kyiv"}' }],
    });
  });

  it('leaves a section with only unknown tools alone', () => {
    expect(read(`${CALLS}${v3('format_disk', '{}')}${CALLS_END}`)).toBeUndefined();
  });

  it('leaves a truncated call in the content', () => {
    expect(
      read(`${CALLS}${CALL}function${SEP}get_weather\n\`\`\`json\n{"city": "Ro`),
    ).toBeUndefined();
  });

  it('keeps a truncated second call visible after a good first one', () => {
    const tail = `${CALL}function${SEP}search\n\`\`\`json\n{"query": "x`;
    const result = read(`${CALLS}${v3('get_weather', '{"city": "Riga"}')}${tail}`);
    expect(result?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Riga"}' }]);
    expect(result?.content).toBe(tail);
  });

  it('does not read the format explained inside a code fence', () => {
    const reply = `DeepSeek writes calls like this:\n\`\`\`\n${CALLS}${v3('get_weather', '{"city": "X"}')}${CALLS_END}\n\`\`\``;
    expect(read(reply)).toBeUndefined();
  });

  it('does not read JSON that only shows an example', () => {
    expect(
      read('Use {"name": "get_weather", "arguments": {"city": "Paris"}} to call it.'),
    ).toBeUndefined();
  });

  it('refuses arguments that are not an object', () => {
    expect(read(`${CALLS}${v3('get_weather', '["Paris"]')}${CALLS_END}`)).toBeUndefined();
  });
});

describe('deepseekV31Format', () => {
  const read = (reply: string) => deepseekV31Format.read(reply, TOOLS);

  it('reads one call', () => {
    expect(read(`${CALLS}${v31('get_weather', '{"city": "Porto"}')}${CALLS_END}`)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Porto"}' }],
    });
  });

  it('reads several calls after reasoning prose, with the call-begin token left out by the model', () => {
    const reply = `Let me look.${CALLS}get_weather${SEP}{"city": "Cork"}${CALL_END}${v31('run_shell', '{"command": "ls -la\\nwc -l"}')}${CALLS_END}`;
    expect(read(reply)).toEqual({
      content: 'Let me look.',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Cork"}' },
        { name: 'run_shell', arguments: '{"command":"ls -la\\nwc -l"}' },
      ],
    });
  });

  it('reads a call whose end tokens are missing at the end of the output', () => {
    expect(read(`${CALLS}${CALL}search${SEP}{"query": "ünïcödé"}`)?.calls).toEqual([
      { name: 'search', arguments: '{"query":"ünïcödé"}' },
    ]);
  });

  it('keeps a bad entry out and the good one in', () => {
    const reply = `${CALLS}${v31('get_weather', '{"city": ')}${v31('search', '{"query": "ok"}')}${CALLS_END}`;
    expect(read(reply)?.calls).toEqual([{ name: 'search', arguments: '{"query":"ok"}' }]);
  });

  it('ignores the tokens in prose without a section opener', () => {
    expect(read(`The separator is ${SEP} and calls end with ${CALL_END}.`)).toBeUndefined();
  });
});

describe('deepseekV32Format (DSML)', () => {
  const read = (reply: string) => deepseekV32Format.read(reply, TOOLS);

  it('reads one invoke, typing parameters by their string flag', () => {
    const reply = dsml(
      dsmlInvoke(
        'get_weather',
        `${dsmlParameter('city', '杭州')}\n${dsmlParameter('days', '3', false)}`,
      ),
    );
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"杭州","days":3}' }],
    });
  });

  it('reads several invokes with prose around them', () => {
    const reply = `I will check two things.\n\n${dsml(
      dsmlInvoke('get_weather', dsmlParameter('city', 'Paris')),
      dsmlInvoke(
        'search',
        `${dsmlParameter('query', 'louvre hours')}\n${dsmlParameter('limit', '5', false)}`,
      ),
    )}\nBack soon.`;
    expect(read(reply)).toEqual({
      content: 'I will check two things.\n\nBack soon.',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'search', arguments: '{"query":"louvre hours","limit":5}' },
      ],
    });
  });

  it('keeps raw multi-line strings, and reads nested JSON values with string="false"', () => {
    const command = 'cat <<EOF\n{"a": 1}\nEOF';
    const reply = dsml(
      dsmlInvoke(
        'run_shell',
        `${dsmlParameter('command', command)}\n${dsmlParameter('options', '{"env": {"X": [1, 2]}}', false)}`,
      ),
    );
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      command,
      options: { env: { X: [1, 2] } },
    });
  });

  it('keeps bare XML tags inside a DSML value (a DSML tag is closed by its own spelling)', () => {
    const snippet = '<invoke name="search">\n<parameter name="query">x</parameter>\n</invoke>';
    const reply = dsml(dsmlInvoke('run_shell', dsmlParameter('command', `echo '${snippet}'`)));
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      command: `echo '${snippet}'`,
    });
  });

  it('reads a JSON object body and V4 / bare tag spellings', () => {
    const v4 = `<｜DSML｜tool_calls>\n<｜DSML｜invoke name="search">\n{"query": "q"}\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>`;
    expect(read(v4)?.calls).toEqual([{ name: 'search', arguments: '{"query":"q"}' }]);
    const bare =
      '<function_calls>\n<invoke name="get_weather">\n<parameter name="city" string="true">Oslo</parameter>\n</invoke>\n</function_calls>';
    expect(read(bare)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
  });

  it('types a parameter without a string flag by the tool schema', () => {
    const reply =
      '<function_calls><invoke name="search"><parameter name="query">42</parameter><parameter name="limit">7</parameter></invoke></function_calls>';
    expect(read(reply)?.calls).toEqual([{ name: 'search', arguments: '{"query":"42","limit":7}' }]);
  });

  it('reads an invoke whose closing tags were cut at the end of the output', () => {
    const reply = `<｜DSML｜function_calls>\n${dsmlInvoke('get_weather', dsmlParameter('city', 'Lima'))}`;
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Lima"}' }]);
  });

  it('drops an invoke of an unknown tool and keeps the good one', () => {
    const reply = dsml(
      dsmlInvoke('wipe', dsmlParameter('path', '/')),
      dsmlInvoke('get_weather', dsmlParameter('city', 'Quito')),
    );
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Quito"}' }]);
  });

  it('leaves a truncated parameter in the content', () => {
    const reply =
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Li';
    expect(read(reply)).toBeUndefined();
  });

  it('does not read the format explained in a code fence', () => {
    const reply = `Example:\n\`\`\`xml\n${dsml(dsmlInvoke('get_weather', dsmlParameter('city', 'X')))}\n\`\`\`\nThat is all.`;
    expect(read(reply)).toBeUndefined();
  });
});

describe('deepseek formats: robustness', () => {
  const formats: readonly ToolCallFormat[] = [
    deepseekV3Format,
    deepseekV31Format,
    deepseekV32Format,
  ];
  const valid = [
    `Hi ${CALLS}${v3('get_weather', '{"city": "Oslo"}')}${CALLS_END} bye`,
    `${CALLS}${v31('search', '{"query": "a"}')}${CALLS_END}`,
    dsml(dsmlInvoke('get_weather', dsmlParameter('city', 'Oslo'))),
  ];
  const pieces = [
    CALLS,
    CALLS_END,
    CALL,
    CALL_END,
    SEP,
    '```',
    '```json\n',
    '{',
    '}',
    '"',
    "'",
    '\n',
    'get_weather',
    'function',
  ];
  const dsmlPieces = [
    '<｜DSML｜function_calls>',
    '<｜DSML｜invoke name="get_weather">',
    '</｜DSML｜invoke>',
    '<｜DSML｜parameter name="city" string="true">',
    '</｜DSML｜parameter>',
    '<invoke name="search">',
  ];

  it('never throws on random text or markers spliced into valid replies', () => {
    const splice = fc
      .tuple(
        fc.constantFrom(...valid),
        fc.nat(),
        fc.array(fc.constantFrom(...pieces, ...dsmlPieces), { maxLength: 6 }),
      )
      .map(([reply, at, inserted]) => {
        const index = at % (reply.length + 1);
        return reply.slice(0, index) + inserted.join('') + reply.slice(index);
      });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), splice), (reply) => {
        for (const format of formats) {
          const result = format.read(reply, TOOLS);
          if (result === undefined) continue;
          expect(typeof result.content).toBe('string');
          for (const call of result.calls) expect(TOOLS.names.has(call.name)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads 200 KB of adversarial input in bounded time', () => {
    const inputs = [
      `${CALLS}${`${CALL}get_weather${SEP}{'a`.repeat(12_000)}`,
      `${CALLS}${`${CALL}function${SEP}get_weather`.repeat(8_000)}`,
      `${CALLS}${CALL}${'x'.repeat(200_000)}`,
      CALLS.repeat(10_000) + SEP.repeat(5_000),
      `<｜DSML｜function_calls>${'<｜DSML｜invoke name="get_weather"><｜DSML｜parameter name="city" string="true">x'.repeat(2_500)}`,
      '<function_calls>'.repeat(12_000),
      `${'```'.repeat(30_000)}${CALLS}${v31('search', '{}')}`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      for (const format of formats) format.read(input, TOOLS);
      // 200 ms is the goal; ×10 keeps a loaded two-core machine from failing the build.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
