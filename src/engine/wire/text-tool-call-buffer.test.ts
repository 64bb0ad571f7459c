import { describe, expect, it } from 'vitest';
import type { StreamChunk } from '../../core/index.js';
import type { OfferedToolSet } from './formats/tool-call-format.js';
import { findTextToolCalls, TextToolCallBuffer } from './text-tool-call-buffer.js';

const makeId = (index: number) => `id_${index}`;

/** The offered tools of these names (no schemas). */
function toolSet(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}
const CALL_TEXT =
  '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>';
const USAGE = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
const END = { finishReason: 'stop', usage: USAGE, model: 'm' } as const;

function text(value: string): StreamChunk {
  return { type: 'text_delta', text: value };
}

function endOf(finishReason: string): StreamChunk {
  return { type: 'end', finishReason, usage: USAGE, model: 'm', ttftSeconds: 0 };
}

describe('findTextToolCalls', () => {
  it('finds calls of the named tools, ids from the factory numbered from 0 on every call', () => {
    const twice = `${CALL_TEXT}\n${CALL_TEXT}`;
    for (let round = 0; round < 2; round += 1) {
      expect(
        findTextToolCalls(twice, toolSet('calculator'), undefined, makeId)?.toolCalls.map(
          (c) => c.id,
        ),
      ).toEqual(['id_0', 'id_1']);
    }
    expect(findTextToolCalls(CALL_TEXT, toolSet('get_weather'), undefined, makeId)).toBeUndefined();
    expect(findTextToolCalls(CALL_TEXT, toolSet(), undefined, makeId)).toBeUndefined();
  });
});

describe('TextToolCallBuffer', () => {
  it('passes every chunk straight on when no tool is named', () => {
    const buffer = new TextToolCallBuffer(toolSet(), 'm', makeId);
    const reasoning: StreamChunk = { type: 'reasoning_delta', text: 'hm' };
    expect([...buffer.pass([reasoning, text(CALL_TEXT)])]).toEqual([reasoning, text(CALL_TEXT)]);
    expect([...buffer.end([text('!')], END)]).toEqual([text('!'), endOf('stop')]);
  });

  it('holds the text back and turns the calls in it into tool calls at the end', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const reasoning: StreamChunk = { type: 'reasoning_delta', text: 'hm' };
    const half = CALL_TEXT.length / 2;
    expect([
      ...buffer.pass([text('Let me add. '), reasoning, text(CALL_TEXT.slice(0, half))]),
    ]).toEqual([reasoning]);
    expect([...buffer.pass([text(CALL_TEXT.slice(half))])]).toEqual([]);
    expect([...buffer.end([reasoning], END)]).toEqual([
      text('Let me add.'),
      reasoning,
      {
        type: 'tool_call',
        toolCall: { id: 'id_0', name: 'calculator', arguments: '{"expression":"2+2"}' },
      },
      endOf('tool_calls'),
    ]);
  });

  it('gives the held text back whole, with the finish reason, when it holds no call', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    expect([...buffer.pass([text('Four'), text('.')])]).toEqual([]);
    expect([...buffer.end([], { ...END, finishReason: 'length' })]).toEqual([
      text('Four.'),
      endOf('length'),
    ]);
  });

  it('leaves the text alone when the answer has structured calls', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const call: StreamChunk = {
      type: 'tool_call',
      toolCall: { id: 'call_1', name: 'calculator', arguments: '{}' },
    };
    expect([...buffer.pass([text(CALL_TEXT)])]).toEqual([]);
    expect([...buffer.end([call], { ...END, finishReason: 'tool_calls' })]).toEqual([
      text(CALL_TEXT),
      call,
      endOf('tool_calls'),
    ]);
  });
});
