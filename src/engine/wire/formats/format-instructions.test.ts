import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema, Message, OpenAIFunctionTool } from '../../../core/index.js';
import { TOOL_CALL_FORMATS, toolCallFormatsNamed } from './family-formats.js';
import {
  type CallToWrite,
  toolCallExample,
  toolInstructions,
  WRITTEN_FORMAT_NAMES,
  withToolInstructions,
  writeToolCalls,
} from './format-instructions.js';
import { readTextToolCalls } from './read-text-tool-calls.js';
import type { OfferedToolSet, ToolCallFormat } from './tool-call-format.js';

function tool(
  name: string,
  parameters: JsonSchema,
  description = `Does ${name}.`,
): OpenAIFunctionTool {
  return { type: 'function', function: { name, description, parameters } };
}

function toolSet(tools: readonly OpenAIFunctionTool[]): OfferedToolSet {
  const schemas = new Map(tools.map((t) => [t.function.name, t.function.parameters]));
  return { names: new Set(schemas.keys()), parametersOf: (name) => schemas.get(name) };
}

function ids(): () => string {
  let next = 0;
  return () => `id_${next++}`;
}

/** Name and parsed arguments of each call, so `{"a":1}` and `{"a": 1}` compare equal. */
function plain(calls: readonly { name: string; arguments: string }[]) {
  return calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) }));
}

/** What the calls look like after a JSON round trip (`-0` is `0`). */
function expected(calls: readonly CallToWrite[]) {
  return calls.map((call) => ({
    name: call.name,
    arguments: JSON.parse(JSON.stringify(call.arguments)),
  }));
}

/** The calls `format`'s own reader and `readTextToolCalls` (the format named in config) read from `reply`. */
function readBoth(format: ToolCallFormat, reply: string, tools: readonly OpenAIFunctionTool[]) {
  const set = toolSet(tools);
  const own = format.read(reply, set);
  const all = readTextToolCalls(reply, set, {
    formats: toolCallFormatsNamed(format.name),
    generateId: ids(),
  });
  return { own: plain(own?.calls ?? []), all: plain(all?.toolCalls ?? []), content: all?.content };
}

const WEATHER = tool('get_weather', {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    days: { type: 'integer' },
    metric: { type: 'boolean' },
  },
  required: ['city', 'days'],
});

const TIME = tool('get_time', {
  type: 'object',
  properties: { zone: { type: 'string' } },
});

const ROUND_ONE = [
  { id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo","days":2,"metric":true}' },
  { id: 'c2', name: 'get_time', arguments: '{"zone":"Europe/Oslo"}' },
];
const ROUND_TWO = [{ id: 'c3', name: 'get_weather', arguments: '{"city":"Bergen","days":1}' }];

const TWO_ROUNDS: Message[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather and time in Oslo, then Bergen?' },
  { role: 'assistant', content: '', toolCalls: ROUND_ONE },
  { role: 'tool', content: 'sunny', toolCallId: 'c1' },
  { role: 'tool', content: '12:00', toolCallId: 'c2' },
  { role: 'assistant', content: '', toolCalls: ROUND_TWO },
  { role: 'tool', content: 'rain', toolCallId: 'c3' },
  { role: 'assistant', content: 'Sunny now, rain tomorrow.' },
];

// ---------------------------------------------------------------------------------------------------------
// Arbitraries

/** Tool names as servers accept them (`^[a-zA-Z0-9_-]{1,64}$`), minus Functionary's reserved `all` recipient. */
const toolName = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,20}$/)
  .filter((name) => name !== 'all');
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/);
/**
 * Text values: quotes, backslashes, brackets, line breaks, non-ASCII. No `<` or backtick: no format escapes its
 * own tags inside a raw XML value, and a value that quotes them is out of scope for every reader.
 */
const text = fc.string({
  unit: fc.constantFrom(...('aZ09 _-.,:;=!?/|{}[]()"\'\\\n\t\r>é中😀'.match(/./gsu) ?? [])),
  maxLength: 20,
});
const scalar = fc.oneof(
  text,
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const argumentsObject = fc.dictionary(key, value, { maxKeys: 4 });

/** A schema for `args`: each property typed as its value is, or left without a schema. */
function schemaFor(args: Readonly<Record<string, unknown>>, typed: readonly boolean[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  Object.entries(args).forEach(([name, item], index) => {
    if (typed[index % Math.max(typed.length, 1)] === true)
      properties[name] = { type: jsonType(item) };
  });
  return { type: 'object', properties, required: Object.keys(args) };
}

function jsonType(item: unknown): string {
  if (item === null) return 'null';
  if (Array.isArray(item)) return 'array';
  if (typeof item === 'number') return Number.isInteger(item) ? 'integer' : 'number';
  return typeof item;
}

const randomTools = fc
  .uniqueArray(
    fc.record({ name: toolName, args: argumentsObject, typed: fc.array(fc.boolean()) }),
    {
      minLength: 1,
      maxLength: 3,
      selector: (entry) => entry.name,
    },
  )
  .map((entries) => ({
    tools: entries.map((entry) => tool(entry.name, schemaFor(entry.args, entry.typed))),
    calls: entries.map((entry): CallToWrite => ({ name: entry.name, arguments: entry.args })),
  }));

// ---------------------------------------------------------------------------------------------------------

describe('toolInstructions', () => {
  it('has a writer for every format name', () => {
    expect([...WRITTEN_FORMAT_NAMES].sort()).toEqual(TOOL_CALL_FORMATS.map((f) => f.name).sort());
  });

  describe.each(TOOL_CALL_FORMATS.map((format) => [format.name, format] as const))(
    '%s',
    (_name, format) => {
      it('shows an example call that its reader reads back as the same call', () => {
        const example = toolCallExample(format, [WEATHER]);
        expect(example?.call).toEqual({ name: 'get_weather', arguments: { city: '...', days: 1 } });
        expect(toolInstructions(format, [WEATHER])).toContain(example?.text);
        const read = readBoth(format, example?.text ?? '', [WEATHER]);
        expect(read.own).toEqual(expected([example?.call as CallToWrite]));
        expect(read.all).toEqual(read.own);
      });

      it('writes random calls to random tools so that its reader reads the same calls', () => {
        fc.assert(
          fc.property(randomTools, ({ tools, calls }) => {
            const example = toolCallExample(format, tools);
            expect(toolInstructions(format, tools)).toContain(example?.text);
            const fromExample = readBoth(format, example?.text ?? '', tools);
            expect(fromExample.own).toEqual(expected([example?.call as CallToWrite]));
            expect(fromExample.all).toEqual(fromExample.own);
            const read = readBoth(format, writeToolCalls(format, calls, tools), tools);
            expect(read.own).toEqual(expected(calls));
            expect(read.all).toEqual(expected(calls));
          }),
          { numRuns: 50, seed: 16 },
        );
      });

      it('rewrites a two-round conversation so that each assistant turn reads back as its calls', () => {
        const rewritten = withToolInstructions(TWO_ROUNDS, [WEATHER, TIME], format);
        expect(rewritten.map((m) => m.role)).toEqual([
          'system',
          'user',
          'assistant',
          'user',
          'assistant',
          'user',
          'assistant',
        ]);
        expect(rewritten.some((m) => m.toolCalls !== undefined || m.toolCallId !== undefined)).toBe(
          false,
        );
        expect(rewritten[0]?.content).toMatch(/^You are terse\.\n\n# Tools\n/);
        const first = readBoth(format, rewritten[2]?.content ?? '', [WEATHER, TIME]);
        expect(first.own).toEqual(plain(ROUND_ONE));
        expect(first.all).toEqual(plain(ROUND_ONE));
        const second = readBoth(format, rewritten[4]?.content ?? '', [WEATHER, TIME]);
        expect(second.own).toEqual(plain(ROUND_TWO));
        // Both results of round one, in call order, in one user message.
        const results = rewritten[3]?.content ?? '';
        expect(results.indexOf('sunny')).toBeGreaterThan(-1);
        expect(results.indexOf('sunny')).toBeLessThan(results.indexOf('12:00'));
        expect(rewritten[5]?.content).toContain('rain');
        expect(rewritten[6]).toEqual({ role: 'assistant', content: 'Sunny now, rain tomorrow.' });
      });
    },
  );

  it('stays short: three tools take under 1,200 characters besides their schemas and descriptions', () => {
    const tools = [
      WEATHER,
      TIME,
      tool('search', { type: 'object', properties: { q: { type: 'string' } } }),
    ];
    const own = tools.reduce(
      (sum, t) =>
        sum + JSON.stringify(t.function.parameters).length + t.function.description.length,
      0,
    );
    for (const format of [undefined, ...TOOL_CALL_FORMATS]) {
      const length = toolInstructions(format, tools).length - own;
      expect(length, format?.name ?? 'default').toBeLessThan(1200);
    }
  });

  it('lists each tool on one line with its description and compact schema, and says how to answer without a call', () => {
    const text = toolInstructions(undefined, [
      tool('f', { type: 'object' }, 'Line one.\n  Line two.'),
    ]);
    expect(text).toContain('- f: Line one. Line two. Parameters: {"type":"object"}');
    expect(text).toContain('<tool_call>\n{"name":"f","arguments":{}}\n</tool_call>');
    expect(text).toMatch(/If no tool is needed, answer in plain text/);
    expect(toolInstructions(undefined, [])).toBe('');
  });

  it('uses the default Hermes form for no format and for a format it has no writer for', () => {
    const custom: ToolCallFormat = { name: 'custom', markers: [], read: () => undefined };
    const hermes = toolInstructions(undefined, [WEATHER]);
    expect(hermes).toContain(
      '<tool_call>\n{"name":"get_weather","arguments":{"city":"...","days":1}}\n</tool_call>',
    );
    expect(toolInstructions(custom, [WEATHER])).toBe(hermes);
    const found = readTextToolCalls(
      toolCallExample(undefined, [WEATHER])?.text ?? '',
      toolSet([WEATHER]),
      {
        generateId: ids(),
      },
    );
    expect(plain(found?.toolCalls ?? [])).toEqual([
      { name: 'get_weather', arguments: { city: '...', days: 1 } },
    ]);
  });

  it('fills the example from enums, defaults and types', () => {
    const example = toolCallExample(undefined, [
      tool('t', {
        type: 'object',
        properties: {
          unit: { type: 'string', enum: ['c', 'f'] },
          n: { type: 'number', default: 5 },
          tags: { type: 'array' },
          on: { type: 'boolean' },
          skip: { type: 'string' },
        },
        required: ['unit', 'n', 'tags', 'on', 'missing'],
      }),
    ]);
    expect(example?.call.arguments).toEqual({ unit: 'c', n: 5, tags: [], on: true });
  });
});

describe('withToolInstructions', () => {
  it('adds a system message when there is none and keeps other messages as they are', () => {
    const messages: Message[] = [{ role: 'user', content: 'hi', name: 'ann' }];
    const rewritten = withToolInstructions(messages, [WEATHER], undefined);
    expect(rewritten[0]?.role).toBe('system');
    expect(rewritten[0]?.content).toMatch(/^# Tools\n/);
    expect(rewritten[1]).toEqual({ role: 'user', content: 'hi', name: 'ann' });
    expect(messages).toHaveLength(1);
  });

  it('keeps the text before the calls and writes results in the template form', () => {
    const rewritten = withToolInstructions(
      [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: 'Let me check.',
          toolCalls: [{ id: 'a', name: 'get_weather', arguments: '{"city":"Oslo","days":1}' }],
        },
        { role: 'tool', content: 'sunny', toolCallId: 'a' },
      ],
      [WEATHER],
      undefined,
    );
    expect(rewritten[2]?.content).toBe(
      'Let me check.\n<tool_call>\n{"name":"get_weather","arguments":{"city":"Oslo","days":1}}\n</tool_call>',
    );
    expect(rewritten[3]).toEqual({
      role: 'user',
      content: '<tool_response>\nsunny\n</tool_response>',
    });
  });

  it('names the call a result answers where the template does (Kimi K2)', () => {
    const kimi = TOOL_CALL_FORMATS.find((f) => f.name === 'kimi-k2');
    const rewritten = withToolInstructions(TWO_ROUNDS, [WEATHER, TIME], kimi);
    expect(rewritten[3]?.content).toBe(
      '## Return of functions.get_weather:0\nsunny\n## Return of functions.get_time:1\n12:00',
    );
  });

  it('writes arguments that are not a JSON object as no arguments', () => {
    const rewritten = withToolInstructions(
      [
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'a', name: 'get_time', arguments: 'oops' }],
        },
      ],
      [TIME],
      undefined,
    );
    expect(rewritten[1]?.content).toBe(
      '<tool_call>\n{"name":"get_time","arguments":{}}\n</tool_call>',
    );
  });
});
