import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../core/index.js';
import { minimaxFormat } from './minimax.js';
import type { OfferedToolSet } from './tool-call-format.js';

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  send_email: {
    type: 'object',
    properties: {
      to: { type: 'array', items: { type: 'string' } },
      subject: { type: 'string' },
      body: { type: 'string' },
      urgent: { type: 'boolean' },
      meta: { type: 'object' },
    },
  },
  convert: {
    type: 'object',
    properties: { amount: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } },
  },
  ping: { type: 'object', properties: {} },
};

const TOOLS: OfferedToolSet = {
  names: new Set(Object.keys(SCHEMAS)),
  parametersOf: (name) => SCHEMAS[name],
};

function read(reply: string): { content: string; calls: [string, unknown][] } | undefined {
  const found = minimaxFormat.read(reply, TOOLS);
  if (found === undefined) return undefined;
  return {
    content: found.content,
    calls: found.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
  };
}

/** One `<invoke>` as MiniMax-M2's chat template writes it. */
function invoke(name: string, parameters: Readonly<Record<string, string>>): string {
  const body = Object.entries(parameters).map(
    ([key, value]) => `<parameter name="${key}">${value}</parameter>\n`,
  );
  return `<invoke name="${name}">\n${body.join('')}</invoke>\n`;
}

function m2(...invokes: string[]): string {
  return `<minimax:tool_call>\n${invokes.join('')}</minimax:tool_call>`;
}

describe('minimaxFormat: M2 calls', () => {
  it('reads one call and types its values by the schema', () => {
    const reply = m2(invoke('convert', { amount: '12.5', from: 'EUR', to: 'JPY' }));
    expect(read(reply)).toEqual({
      content: '',
      calls: [['convert', { amount: 12.5, from: 'EUR', to: 'JPY' }]],
    });
  });

  it('reads several invokes in one block and keeps the prose around it', () => {
    const reply = `Two things first.\n\n${m2(invoke('ping', {}), invoke('convert', { amount: '3', from: 'USD', to: 'CHF' }))}\n\nBack shortly.`;
    expect(read(reply)).toEqual({
      content: 'Two things first.\n\nBack shortly.',
      calls: [
        ['ping', {}],
        ['convert', { amount: 3, from: 'USD', to: 'CHF' }],
      ],
    });
  });

  it('reads nested JSON, unicode and multi-line values', () => {
    const body = 'Hi Zoë,\n\n  the 東京 trip is on. 🎌\n\nBest';
    const reply = m2(
      invoke('send_email', {
        to: '["zoe@example.com", "ops@example.com"]',
        subject: 'Trip ✈',
        body,
        urgent: 'true',
        meta: '{"thread": {"id": 7, "tags": ["travel"]}}',
      }),
    );
    expect(read(reply)?.calls).toEqual([
      [
        'send_email',
        {
          to: ['zoe@example.com', 'ops@example.com'],
          subject: 'Trip ✈',
          body,
          urgent: true,
          meta: { thread: { id: 7, tags: ['travel'] } },
        },
      ],
    ]);
  });

  it('reads a block whose closing tags are missing at the end of the output', () => {
    const reply =
      'Sending.\n<minimax:tool_call>\n<invoke name="convert">\n<parameter name="amount">1</parameter>\n';
    expect(read(reply)).toEqual({ content: 'Sending.', calls: [['convert', { amount: 1 }]] });
  });

  it('keeps a value quoting </parameter> and skips calls drafted while thinking', () => {
    const body = 'Use </parameter> to end a value.';
    const reply = `<think>${m2(invoke('ping', {}))}</think>\n${m2(invoke('send_email', { body }))}`;
    expect(read(reply)?.calls).toEqual([['send_email', { body }]]);
  });

  it('keeps the good invokes of a block and leaves one naming an unknown tool in the text', () => {
    const unknown = invoke('wipe_inbox', { all: 'true' });
    const reply = m2(invoke('ping', {}), unknown, invoke('convert', { amount: '2' }));
    expect(read(reply)).toEqual({
      content: unknown.trim(),
      calls: [
        ['ping', {}],
        ['convert', { amount: 2 }],
      ],
    });
  });
});

describe('minimaxFormat: M1 calls', () => {
  it('reads JSON lines inside <tool_calls>', () => {
    const reply = [
      'Let me do both.',
      '<tool_calls>',
      '{"name": "convert", "arguments": {"amount": 5, "from": "GBP", "to": "EUR"}}',
      '{"name": "ping", "arguments": {}}',
      '</tool_calls>',
    ].join('\n');
    expect(read(reply)).toEqual({
      content: 'Let me do both.',
      calls: [
        ['convert', { amount: 5, from: 'GBP', to: 'EUR' }],
        ['ping', {}],
      ],
    });
  });

  it('reads a JSON list, arguments as a JSON string, and a missing closing tag', () => {
    const reply =
      '<tool_calls>\n[{"name": "ping", "arguments": "{}"}, {"name": "convert", "arguments": {"amount": 1}}]\n';
    expect(read(reply)?.calls).toEqual([
      ['ping', {}],
      ['convert', { amount: 1 }],
    ]);
  });

  it('keeps the good lines of a block; bad and unknown lines stay in the text', () => {
    const reply = [
      '<tool_calls>',
      '{"name": "ping", "arguments": {}}',
      '{"name": "shutdown", "arguments": {}}',
      '{"name": "convert", "arguments": {"amount": 9}}',
      '{"name": "convert", "argum',
      '</tool_calls>',
    ].join('\n');
    expect(read(reply)).toEqual({
      content: '{"name": "shutdown", "arguments": {}}\n{"name": "convert", "argum',
      calls: [
        ['ping', {}],
        ['convert', { amount: 9 }],
      ],
    });
  });
});

describe('minimaxFormat: not calls', () => {
  it('leaves a format example in a code fence alone', () => {
    const reply = `Write it like this:\n\`\`\`xml\n${m2(invoke('ping', {}))}\n\`\`\``;
    expect(read(reply)).toBeUndefined();
  });

  it('leaves unknown tools, truncated blocks and plain JSON alone', () => {
    expect(read(m2(invoke('wipe_inbox', {})))).toBeUndefined();
    expect(
      read('<minimax:tool_call>\n<invoke name="convert">\n<parameter name="amount">1'),
    ).toBeUndefined();
    expect(read('<minimax:tool_call>\n<invoke name="ping">')).toBeUndefined();
    expect(read('{"name": "ping", "arguments": {}}')).toBeUndefined();
    expect(read('<tool_calls>\n{"name": "ping", "argu')).toBeUndefined();
  });
});

describe('minimaxFormat: robustness', () => {
  const pieces = [
    '<minimax:tool_call>',
    '</minimax:tool_call>',
    '<invoke name="ping">',
    '</invoke>',
  ];
  const more = [
    '<parameter name="amount">',
    '</parameter>',
    '<tool_calls>',
    '</tool_calls>',
    '{',
    '"',
  ];

  it('never throws on random and spliced input', () => {
    const samples = [
      m2(invoke('convert', { amount: '1' }), invoke('ping', {})),
      '<tool_calls>\n{"name": "ping", "arguments": {}}\n</tool_calls>',
    ];
    const spliced = fc
      .tuple(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces, ...more)), { maxLength: 6 }),
      )
      .map(([sample, splices]) =>
        splices.reduce((text, [at, piece]) => {
          const index = at % (text.length + 1);
          return text.slice(0, index) + piece + text.slice(index);
        }, sample),
      );
    const wellFormed = (reply: string): void => {
      for (const call of minimaxFormat.read(reply, TOOLS)?.calls ?? []) {
        expect(TOOLS.names.has(call.name)).toBe(true);
        expect(typeof JSON.parse(call.arguments)).toBe('object');
      }
    };
    fc.assert(fc.property(spliced, wellFormed), { numRuns: 1500 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), wellFormed), {
      numRuns: 1000,
    });
  });

  it('reads 200 KB of adversarial input in linear time', () => {
    const patterns = [
      '<minimax:tool_call><invoke name="convert"><parameter name="amount">',
      '</parameter>x',
      '<minimax:tool_call>',
      '<tool_calls>{"name": "ping", "arguments": {"a": "',
      '<tool_calls>[[[[',
      `${m2(invoke('ping', {}))}\n`,
    ];
    for (const pattern of patterns) {
      const reply = pattern.repeat(Math.ceil(200_000 / pattern.length));
      const started = performance.now();
      minimaxFormat.read(reply, TOOLS);
      // 200 ms is the budget; ×10 keeps the test steady on a loaded machine.
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
