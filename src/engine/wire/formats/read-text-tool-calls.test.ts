import { describe, expect, it } from 'vitest';
import { toolCallFormatsFor, UNAMBIGUOUS_FORMATS } from './family-formats.js';
import { readTextToolCalls, readVisibleText } from './read-text-tool-calls.js';
import type { OfferedToolSet, ToolCallFormat } from './tool-call-format.js';

const WEATHER: OfferedToolSet = {
  names: new Set(['get_weather']),
  parametersOf: () => ({
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  }),
};

function ids(): () => string {
  let next = 0;
  return () => `call_${next++}`;
}

describe('readTextToolCalls', () => {
  it('reads the common formats first', () => {
    const found = readTextToolCalls(
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
      WEATHER,
      { generateId: ids() },
    );
    expect(found?.toolCalls).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
  });

  it("reads a family's format with nothing known about the model, values typed by the schema", () => {
    const qwen =
      'Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>';
    const glm =
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>';
    const kimi =
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>';
    expect(readTextToolCalls(qwen, WEATHER, { generateId: ids() })).toEqual({
      content: 'Let me check.',
      toolCalls: [{ id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo","days":3}' }],
    });
    expect(readTextToolCalls(glm, WEATHER, { generateId: ids() })?.toolCalls).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(readTextToolCalls(kimi, WEATHER, { generateId: ids() })?.toolCalls).toEqual([
      { id: 'functions.get_weather:0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
  });

  it('reads formats that also occur in prose only for a model known to write them', () => {
    const functionary = '>>>get_weather\n{"city": "Oslo"}';
    expect(readTextToolCalls(functionary, WEATHER, { generateId: ids() })).toBeUndefined();
    expect(
      readTextToolCalls(functionary, WEATHER, {
        model: 'meetkai/functionary-small-v3.2',
        generateId: ids(),
      })?.toolCalls,
    ).toEqual([{ id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(toolCallFormatsFor(undefined)).toBe(UNAMBIGUOUS_FORMATS);
    // One list per model name, kept: readers keep what they work out per list.
    expect(toolCallFormatsFor('hermes-3')).toBe(toolCallFormatsFor('hermes-3'));
    expect(toolCallFormatsFor('hermes-3')[0]?.name).toBe('hermes');
  });

  it('invents no call: unknown tools, examples in code fences, no tools offered', () => {
    const fenced =
      'Qwen3-Coder writes calls like this:\n```\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>\n```';
    expect(readTextToolCalls(fenced, WEATHER, { generateId: ids() })).toBeUndefined();
    const unknown = '<tool_call>\n<function=delete_all>\n</function>\n</tool_call>';
    expect(readTextToolCalls(unknown, WEATHER, { generateId: ids() })).toBeUndefined();
    const none: OfferedToolSet = { names: new Set(), parametersOf: () => undefined };
    expect(
      readTextToolCalls('<function=get_weather></function>', none, { generateId: ids() }),
    ).toBeUndefined();
  });

  it("cuts a family's whole block out, tags included, before the bare-JSON and inner-marker readers see it", () => {
    const seed =
      'Sure.\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</seed:tool_call>';
    const internlm2 =
      'Sure.\n<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Oslo"}}<|action_end|>';
    for (const reply of [seed, internlm2]) {
      const found = readTextToolCalls(reply, WEATHER, { generateId: ids() });
      expect(found?.content).toBe('Sure.');
      expect(found?.toolCalls).toEqual([
        { id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ]);
    }
  });

  it("tries a given list's formats by any of their markers: unlisted ones, ones without `<`, none (NUL)", () => {
    const call = { calls: [{ name: 'get_weather', arguments: '{}' }] };
    const tried: string[] = [];
    const format = (name: string, markers: readonly string[]): ToolCallFormat => ({
      name,
      markers,
      read: (reply) => {
        tried.push(name);
        return { content: reply.length > 0 ? 'rest' : '', ...call };
      },
    });
    const formats = [
      format('unlisted', ['@@call']),
      format('angled', ['<not-listed>', '<tool_call>']),
      format('none', []),
    ];
    const read = (reply: string) =>
      readTextToolCalls(reply, WEATHER, { formats, generateId: ids() });
    expect(read('Plain prose, no marker.')).toBeUndefined();
    expect(read('x @@call y')?.content).toBe('rest');
    expect(read('x <not-listed> y')?.content).toBe('rest');
    expect(read('x \u0000 y')?.content).toBe('rest');
    expect(tried).toEqual(['unlisted', 'angled', 'none']);
  });
});

describe('readVisibleText', () => {
  it("gives the text of a reply with no call in one of the model's formats, its reasoning apart", () => {
    const harmony =
      '<|channel|>analysis<|message|>Greeting.<|end|><|start|>assistant<|channel|>final<|message|>Hi!<|return|>';
    expect(readVisibleText(harmony, {})).toEqual({ content: 'Hi!', reasoning: 'Greeting.' });
    expect(readVisibleText('<|START_RESPONSE|>Hi!<|END_RESPONSE|>', { model: 'm' })).toEqual({
      content: 'Hi!',
    });
    expect(readVisibleText('all\nHi!', { model: 'functionary-small-v3.2' })).toEqual({
      content: 'Hi!',
    });
    expect(readVisibleText('Hi!<|message_sep|>', { model: 'gigachat-3' })).toEqual({
      content: 'Hi!',
    });
  });

  it('leaves prose, and markup of formats the model does not write, alone', () => {
    expect(readVisibleText('Plain prose with a [link](x).', {})).toBeUndefined();
    expect(readVisibleText('all\nHi!', { model: 'qwen3' })).toBeUndefined();
    expect(readVisibleText('Hi!<|message_sep|>', {})).toBeUndefined();
    expect(
      readVisibleText('<|START_RESPONSE|>Hi!', { formats: UNAMBIGUOUS_FORMATS.slice(0, 2) }),
    ).toBeUndefined();
  });
});
