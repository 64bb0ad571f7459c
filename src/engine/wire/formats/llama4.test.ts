import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { llama4Format } from './llama4.js';
import type { OfferedToolSet } from './tool-call-format.js';

const TOOLS: OfferedToolSet = {
  names: new Set(['get_weather', 'web_search', 'send_email']),
  parametersOf: () => undefined,
};

const START = '<|python_start|>';
const END = '<|python_end|>';

const read = (reply: string) => llama4Format.read(reply, TOOLS);

describe('llama4Format', () => {
  it('reads one pythonic call', () => {
    expect(read(`${START}[get_weather(city="Austin")]${END}`)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Austin"}' }],
    });
  });

  it('reads several calls with prose before and after, and the end-of-message token', () => {
    const reply = `I'll search and check.\n\n${START}[web_search(query="llama 4 release"), get_weather(city='Menlo Park', days=2)]${END}<|eom|>\n\nResults below.`;
    expect(read(reply)).toEqual({
      content: "I'll search and check.\n\nResults below.",
      calls: [
        { name: 'web_search', arguments: '{"query":"llama 4 release"}' },
        { name: 'get_weather', arguments: '{"city":"Menlo Park","days":2}' },
      ],
    });
  });

  it('reads the JSON form, several objects separated by `;`', () => {
    const reply = `${START}{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "web_search", "parameters": {"query": "louvre"}}${END}`;
    expect(read(reply)?.calls).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'web_search', arguments: '{"query":"louvre"}' },
    ]);
  });

  it('keeps nested values, unicode and multi-line strings', () => {
    const reply = `${START}[send_email(to=["ana@example.com"], body="Olá 👋\nSegunda linha", meta={"priority": 1, "tags": None})]${END}`;
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      to: ['ana@example.com'],
      body: 'Olá 👋\nSegunda linha',
      meta: { priority: 1, tags: null },
    });
  });

  it('reads a call whose end token is missing at the end of the output', () => {
    expect(read(`Sure. ${START}[get_weather(city="Oslo")]`)).toEqual({
      content: 'Sure.',
      calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }],
    });
  });

  it('keeps the good calls of a list with an unknown tool', () => {
    const reply = `${START}[format_disk(drive="C"), get_weather(city="Lagos")]${END}`;
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Lagos"}' }]);
  });

  it('leaves unknown tools, truncated blocks and code in the content', () => {
    expect(read(`${START}[format_disk(drive="C")]${END}`)).toBeUndefined();
    expect(read(`${START}[get_weather(city="Lag`)).toBeUndefined();
    expect(read(`${START}print("hello")${END}`)).toBeUndefined();
  });

  it('does not read the format explained in a code fence, nor a bare example in prose', () => {
    expect(read(`Format:\n\`\`\`\n${START}[get_weather(city="X")]${END}\n\`\`\``)).toBeUndefined();
    expect(read('Llama 4 writes [get_weather(city="X")] for a call.')).toBeUndefined();
  });

  it('never throws on random text or markers spliced into valid replies', () => {
    const valid = `Hi ${START}[get_weather(city="Oslo")]${END} bye`;
    const pieces = [START, END, '<|eom|>', '[', ']', '(', ')', '{', '}', '"', ';', '```'];
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
      `${START}${'{"name": "get_weather", "parameters": {}}; '.repeat(5_000)}{`,
      `${START}[${'get_weather(city="x"), '.repeat(9_000)}`,
      START.repeat(12_000),
      `${START}${'{'.repeat(200_000)}`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      read(input);
      // 200 ms is the goal; ×10 keeps a loaded two-core machine from failing the build.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
