import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../core/index.js';
import { glmFormat } from './glm.js';
import type { OfferedToolSet } from './tool-call-format.js';

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  get_weather: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  },
  run_query: {
    type: 'object',
    properties: {
      sql: { type: 'string' },
      params: { type: 'array' },
      options: { type: 'object' },
      dry_run: { type: 'boolean' },
    },
  },
  now: { type: 'object', properties: {} },
};

const TOOLS: OfferedToolSet = {
  names: new Set(Object.keys(SCHEMAS)),
  parametersOf: (name) => SCHEMAS[name],
};

function read(reply: string): { content: string; calls: [string, unknown][] } | undefined {
  const found = glmFormat.read(reply, TOOLS);
  if (found === undefined) return undefined;
  return {
    content: found.content,
    calls: found.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
  };
}

/** GLM-4.5/4.6's layout: the name on the tag's line, each key and value on its own line. */
function block(name: string, args: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(args).map(
    ([key, value]) => `<arg_key>${key}</arg_key>\n<arg_value>${value}</arg_value>\n`,
  );
  return `<tool_call>${name}\n${pairs.join('')}</tool_call>`;
}

/** GLM-4.7's layout: no line breaks at all. */
function compact(name: string, args: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(args).map(
    ([key, value]) => `<arg_key>${key}</arg_key><arg_value>${value}</arg_value>`,
  );
  return `<tool_call>${name}${pairs.join('')}</tool_call>`;
}

describe('glmFormat: calls', () => {
  it('reads one call in the 4.5 and the 4.7 layout', () => {
    const expected = { content: '', calls: [['get_weather', { city: 'Hanoi', days: 2 }]] };
    expect(read(block('get_weather', { city: 'Hanoi', days: '2' }))).toEqual(expected);
    expect(read(compact('get_weather', { city: 'Hanoi', days: '2' }))).toEqual(expected);
  });

  it('reads several calls and keeps the prose around them', () => {
    const reply = `I will check two things.\n${block('get_weather', { city: 'Pune' })}\n${compact('now', {})}\nThen I answer.`;
    expect(read(reply)).toEqual({
      content: 'I will check two things.\nThen I answer.',
      calls: [
        ['get_weather', { city: 'Pune' }],
        ['now', {}],
      ],
    });
  });

  it('reads nested JSON values, unicode and multi-line text', () => {
    const sql = 'SELECT *\n  FROM t\n WHERE name = ?;';
    const reply = block('run_query', {
      sql,
      params: '["Ωmega", {"nested": [1, 2, {"deep": true}]}]',
      options: '{"timeout": 30, "labels": {"team": "données"}}',
      dry_run: 'false',
    });
    expect(read(reply)?.calls).toEqual([
      [
        'run_query',
        {
          sql,
          params: ['Ωmega', { nested: [1, 2, { deep: true }] }],
          options: { timeout: 30, labels: { team: 'données' } },
          dry_run: false,
        },
      ],
    ]);
  });

  it('keeps a value that quotes the closing tag', () => {
    const sql = "SELECT '</arg_value>' AS tag";
    expect(read(block('run_query', { sql }))?.calls).toEqual([['run_query', { sql }]]);
  });

  it('reads a call whose </tool_call> is missing at the end of the output', () => {
    const reply =
      'Looking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Accra</arg_value>\n';
    expect(read(reply)).toEqual({
      content: 'Looking.',
      calls: [['get_weather', { city: 'Accra' }]],
    });
  });

  it('accepts GLM-4.7 writing a literal \\n between the tags', () => {
    const reply =
      '<tool_call>get_weather<arg_key>city</arg_key>\\n<arg_value>Cusco</arg_value></tool_call>';
    expect(read(reply)?.calls).toEqual([['get_weather', { city: 'Cusco' }]]);
  });

  it('skips calls drafted while thinking', () => {
    const reply = `<think>${block('get_weather', { city: 'Draft' })}</think>\n${block('get_weather', { city: 'Real' })}`;
    expect(read(reply)?.calls).toEqual([['get_weather', { city: 'Real' }]]);
  });
});

describe('glmFormat: not calls', () => {
  it('leaves Hermes JSON in a <tool_call> block to its own reader', () => {
    expect(
      read('<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>'),
    ).toBeUndefined();
    expect(read('<tool_call>{"name": "get_weather"}</tool_call>')).toBeUndefined();
  });

  it('leaves a format example in a code fence alone', () => {
    const reply = `The model writes:\n\`\`\`\n${block('get_weather', { city: 'X' })}\n\`\`\``;
    expect(read(reply)).toBeUndefined();
  });

  it('leaves a call to a tool that was not offered, and keeps the good one next to it', () => {
    const unknown = block('format_disk', { drive: 'C' });
    expect(read(unknown)).toBeUndefined();
    expect(read(`${unknown}\n${block('now', {})}`)).toEqual({
      content: unknown,
      calls: [['now', {}]],
    });
  });

  it('leaves a truncated block alone', () => {
    expect(read('<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ber')).toBeUndefined();
    expect(read('<tool_call>get_weather\n<arg_key>ci')).toBeUndefined();
    expect(read('<tool_call>now')).toBeUndefined();
  });

  it('leaves a block with a key but no value in the text', () => {
    const reply = '<tool_call>get_weather\n<arg_key>city</arg_key>\n</tool_call>';
    expect(read(reply)).toBeUndefined();
  });
});

describe('glmFormat: robustness', () => {
  const pieces = ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>'];
  const more = ['</arg_value>', 'get_weather', '\n', '```\n', '<think>', '</think>', '\\n'];

  it('never throws on random and spliced input', () => {
    const spliced = fc
      .tuple(
        fc.constantFrom(block('get_weather', { city: 'A', days: '1' }), compact('now', {})),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces, ...more)), { maxLength: 6 }),
      )
      .map(([sample, splices]) =>
        splices.reduce((text, [at, piece]) => {
          const index = at % (text.length + 1);
          return text.slice(0, index) + piece + text.slice(index);
        }, sample),
      );
    const wellFormed = (reply: string): void => {
      for (const call of glmFormat.read(reply, TOOLS)?.calls ?? []) {
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
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>',
      '</arg_value>x',
      '<tool_call>get_weather',
      '<tool_call>',
      '\\n',
      `${block('now', {})}`,
    ];
    for (const pattern of patterns) {
      const reply = pattern.repeat(Math.ceil(200_000 / pattern.length));
      const started = performance.now();
      glmFormat.read(reply, TOOLS);
      // 200 ms is the budget; ×10 keeps the test steady on a loaded machine.
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
