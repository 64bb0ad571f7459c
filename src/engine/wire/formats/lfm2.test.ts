import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lfm2Format, readCallList } from './lfm2.js';
import type { OfferedToolSet } from './tool-call-format.js';

const TOOLS: OfferedToolSet = {
  names: new Set(['get_weather', 'calculator', 'get_candidate_status']),
  parametersOf: () => undefined,
};

const START = '<|tool_call_start|>';
const END = '<|tool_call_end|>';

const read = (reply: string) => lfm2Format.read(reply, TOOLS);

describe('lfm2Format: pythonic calls', () => {
  it('reads one call', () => {
    expect(read(`${START}[get_weather(location="Paris")]${END}`)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"location":"Paris"}' }],
    });
  });

  it('reads several calls with prose before and after', () => {
    const reply = `Let me check.\n${START}[get_weather(location='Paris', days=3), calculator(expression="2*21")]${END}\nThe weather in Paris is sunny.`;
    expect(read(reply)).toEqual({
      content: 'Let me check.\nThe weather in Paris is sunny.',
      calls: [
        { name: 'get_weather', arguments: '{"location":"Paris","days":3}' },
        { name: 'calculator', arguments: '{"expression":"2*21"}' },
      ],
    });
  });

  it('keeps nested values, unicode and multi-line strings', () => {
    const reply = `${START}[get_weather(location="Zürich 🇨🇭", options={'units': ['metric'], 'alerts': True}, note="line one\nline two")]${END}`;
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      location: 'Zürich 🇨🇭',
      options: { units: ['metric'], alerts: true },
      note: 'line one\nline two',
    });
  });

  it('reads a call whose end token is missing at the end of the output', () => {
    expect(read(`${START}[calculator(expression="1+1")]`)?.calls).toEqual([
      { name: 'calculator', arguments: '{"expression":"1+1"}' },
    ]);
  });

  it('drops the echo LFM2 writes after the end token, capped by a second end token', () => {
    const reply = `${START}[calculator(expression="1+1")]${END}[calculator(expression="1+1")]${END}It is 2.`;
    expect(read(reply)).toEqual({
      content: 'It is 2.',
      calls: [{ name: 'calculator', arguments: '{"expression":"1+1"}' }],
    });
  });

  it('keeps the good calls of a list with an unknown tool or a bad entry', () => {
    const reply = `${START}[launch_missiles(target="moon"), get_weather(location=b'x'), calculator(expression="3+4")]${END}`;
    expect(read(reply)?.calls).toEqual([{ name: 'calculator', arguments: '{"expression":"3+4"}' }]);
  });

  it('leaves unknown tools, a truncated list and non-call text in the content', () => {
    expect(read(`${START}[launch_missiles(target="moon")]${END}`)).toBeUndefined();
    expect(read(`${START}[get_weather(location="Par`)).toBeUndefined();
    expect(read(`${START}[get_weather(location="Paris")] and more${END}`)).toBeUndefined();
  });

  it('does not read the format explained in a code fence, nor a list in prose', () => {
    expect(
      read(`Write:\n\`\`\`\n${START}[get_weather(location="X")]${END}\n\`\`\``),
    ).toBeUndefined();
    expect(read('You could run [get_weather(location="Paris")] yourself.')).toBeUndefined();
  });
});

describe('lfm2Format: JSON calls', () => {
  it('reads the JSON list its template teaches, with ids', () => {
    const reply = `${START}[{"name": "get_candidate_status", "arguments": {"candidate_id": "12345"}, "id": "c1"}]${END}Checking candidate 12345.`;
    expect(read(reply)).toEqual({
      content: 'Checking candidate 12345.',
      calls: [{ name: 'get_candidate_status', arguments: '{"candidate_id":"12345"}', id: 'c1' }],
    });
  });

  it('reads several JSON entries, nested arguments and a call without arguments', () => {
    const reply = `${START}[{"name": "get_weather", "arguments": {"location": {"city": "Köln", "geo": [50.9, 6.9]}}}, {"name": "calculator"}]${END}`;
    expect(read(reply)?.calls).toEqual([
      { name: 'get_weather', arguments: '{"location":{"city":"Köln","geo":[50.9,6.9]}}' },
      { name: 'calculator', arguments: '{}' },
    ]);
  });

  it('drops a JSON entry of an unknown tool and keeps the good one', () => {
    const reply = `${START}[{"name": "nope", "arguments": {}}, {"name": "calculator", "arguments": {"expression": "5*7"}}]${END}`;
    expect(read(reply)?.calls).toEqual([{ name: 'calculator', arguments: '{"expression":"5*7"}' }]);
  });
});

describe('readCallList', () => {
  it('reports where the list ends and refuses an unclosed or empty list', () => {
    const text =
      'x [calculator(expression="1"), {"name": "get_weather", "parameters": {"q": 1}}] y';
    expect(readCallList(text, 2, text.length, TOOLS)).toEqual({
      calls: [
        { name: 'calculator', arguments: '{"expression":"1"}' },
        { name: 'get_weather', arguments: '{"q":1}' },
      ],
      end: text.length - 2,
    });
    expect(readCallList('[calculator(expression="1")', 0, 27, TOOLS)).toBeUndefined();
    expect(readCallList('[]', 0, 2, TOOLS)).toBeUndefined();
  });
});

describe('lfm2Format: robustness', () => {
  it('never throws on random text or markers spliced into valid replies', () => {
    const valid = `Hi ${START}[get_weather(location="Oslo"), {"name": "calculator", "arguments": {}}]${END} bye`;
    const pieces = [
      START,
      END,
      '[',
      ']',
      '(',
      ')',
      '{',
      '}',
      '"',
      "'",
      '\\',
      ',',
      '=',
      '```',
      'get_weather(',
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
      `${START}[${'get_weather(location="x"), '.repeat(7_000)}`,
      `${START}[${'bad(x=b"1"), '.repeat(15_000)}]${END}`,
      `${START}[${"{'name': 'get_weather', 'arguments': {'a': \"".repeat(4_000)}`,
      `${START}[${'('.repeat(100_000)}`,
      START.repeat(10_000) + END.repeat(10_000),
      `${START}[calculator(expression="1")]${END}`.repeat(4_000),
    ];
    for (const input of inputs) {
      const started = performance.now();
      read(input);
      // 200 ms is the goal; ×10 keeps a loaded two-core machine from failing the build.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
