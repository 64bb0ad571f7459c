import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../core/index.js';
import { seedOssFormat } from './seed-oss.js';
import type { OfferedToolSet } from './tool-call-format.js';

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  book_table: {
    type: 'object',
    properties: {
      venue: { type: 'string' },
      guests: { type: 'integer' },
      outdoor: { type: 'boolean' },
      extras: { type: 'object' },
      times: { type: 'array' },
    },
  },
  list_venues: { type: 'object', properties: {} },
};

const TOOLS: OfferedToolSet = {
  names: new Set(Object.keys(SCHEMAS)),
  parametersOf: (name) => SCHEMAS[name],
};

function read(reply: string): { content: string; calls: [string, unknown][] } | undefined {
  const found = seedOssFormat.read(reply, TOOLS);
  if (found === undefined) return undefined;
  return {
    content: found.content,
    calls: found.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
  };
}

/** One call the way Seed-OSS's chat template writes it (values right after the tag, Python `str` of others). */
function block(name: string, parameters: Readonly<Record<string, string>>): string {
  const body = Object.entries(parameters).map(
    ([key, value]) => `<parameter=${key}>${value}</parameter>\n`,
  );
  return `<seed:tool_call>\n<function=${name}>\n${body.join('')}</function>\n</seed:tool_call>`;
}

describe('seedOssFormat: calls', () => {
  it('reads one call, typing Python-style values by the schema', () => {
    const reply = block('book_table', {
      venue: 'Chez Léa',
      guests: '4',
      outdoor: 'True',
      extras: "{'cake': True, 'note': None}",
      times: "['19:00', '19:30']",
    });
    expect(read(reply)).toEqual({
      content: '',
      calls: [
        [
          'book_table',
          {
            venue: 'Chez Léa',
            guests: 4,
            outdoor: true,
            extras: { cake: true, note: null },
            times: ['19:00', '19:30'],
          },
        ],
      ],
    });
  });

  it('reads several calls and keeps the prose around them', () => {
    const reply = `Let me look.\n${block('list_venues', {})}\n${block('book_table', { venue: 'Sol 🌞' })}\nDone soon.`;
    expect(read(reply)).toEqual({
      content: 'Let me look.\nDone soon.',
      calls: [
        ['list_venues', {}],
        ['book_table', { venue: 'Sol 🌞' }],
      ],
    });
  });

  it('keeps multi-line values and reads calls without the wrapper or its closing tag', () => {
    const note = 'line one\n  line two\n';
    expect(read(block('book_table', { venue: note }))?.calls).toEqual([
      ['book_table', { venue: 'line one\n  line two' }],
    ]);
    const bare = '<function=book_table>\n<parameter=guests>2</parameter>\n</function>';
    expect(read(bare)?.calls).toEqual([['book_table', { guests: 2 }]]);
    const cut = '<seed:tool_call>\n<function=book_table>\n<parameter=guests>2</parameter>\n';
    expect(read(cut)?.calls).toEqual([['book_table', { guests: 2 }]]);
  });

  it('skips calls drafted while thinking', () => {
    const reply = `<seed:think>Try ${block('book_table', { venue: 'A' })} maybe.</seed:think>${block('book_table', { venue: 'B' })}`;
    expect(read(reply)).toEqual({
      content: `<seed:think>Try ${block('book_table', { venue: 'A' })} maybe.</seed:think>`,
      calls: [['book_table', { venue: 'B' }]],
    });
  });
});

describe('seedOssFormat: not calls', () => {
  it('leaves examples, unknown tools and truncated blocks in the text', () => {
    expect(read(`Format:\n\`\`\`\n${block('book_table', { venue: 'X' })}\n\`\`\``)).toBeUndefined();
    expect(read(block('cancel_all', { venue: 'X' }))).toBeUndefined();
    expect(read('<seed:tool_call>\n<function=book_table>\n<parameter=venue>Par')).toBeUndefined();
    expect(read('{"name": "book_table", "arguments": {}}')).toBeUndefined();
  });
});

describe('seedOssFormat: robustness', () => {
  const pieces = ['<seed:tool_call>', '</seed:tool_call>', '<function=book_table>', '</function>'];
  const more = ['<parameter=guests>', '</parameter>', '<seed:think>', '</seed:think>', '```\n'];

  it('never throws on random and spliced input', () => {
    const spliced = fc
      .tuple(
        fc.constantFrom(block('book_table', { guests: '3' }), block('list_venues', {})),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces, ...more)), { maxLength: 6 }),
      )
      .map(([sample, splices]) =>
        splices.reduce((text, [at, piece]) => {
          const index = at % (text.length + 1);
          return text.slice(0, index) + piece + text.slice(index);
        }, sample),
      );
    const wellFormed = (reply: string): void => {
      for (const call of seedOssFormat.read(reply, TOOLS)?.calls ?? []) {
        expect(typeof JSON.parse(call.arguments)).toBe('object');
      }
    };
    fc.assert(fc.property(spliced, wellFormed), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ maxLength: 300 }), wellFormed), { numRuns: 1000 });
  });

  it('reads 200 KB of adversarial input in linear time', () => {
    const patterns = [
      '<seed:tool_call><function=book_table><parameter=venue>',
      '</parameter>',
      '<seed:think><function=list_venues></function>',
      `${block('list_venues', {})}`,
    ];
    for (const pattern of patterns) {
      const reply = pattern.repeat(Math.ceil(200_000 / pattern.length));
      const started = performance.now();
      seedOssFormat.read(reply, TOOLS);
      // 200 ms is the budget; ×10 keeps the test steady on a loaded machine.
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
