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

  it('streams the text up to where a call starts, holds the rest, and turns the call into a tool call', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const reasoning: StreamChunk = { type: 'reasoning_delta', text: 'hm' };
    const half = CALL_TEXT.length / 2;
    expect([
      ...buffer.pass([text('Let me add. '), reasoning, text(CALL_TEXT.slice(0, half))]),
    ]).toEqual([text('Let me add. '), reasoning]);
    expect([...buffer.pass([text(CALL_TEXT.slice(half))])]).toEqual([]);
    expect([...buffer.end([reasoning], END)]).toEqual([
      reasoning,
      {
        type: 'tool_call',
        toolCall: { id: 'id_0', name: 'calculator', arguments: '{"expression":"2+2"}' },
      },
      endOf('tool_calls'),
    ]);
  });

  it('passes a reply with no call on as it arrives, holding only what could begin a marker', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    expect([...buffer.pass([text('Four'), text('.')])]).toEqual([text('Four'), text('.')]);
    // `<tool` may begin `<tool_call>`: held until the next chunk shows it does not.
    expect([...buffer.pass([text(' See <tool')])]).toEqual([text(' See ')]);
    expect([...buffer.pass([text('kit> too.')])]).toEqual([text('<toolkit> too.')]);
    expect([...buffer.end([], { ...END, finishReason: 'length' })]).toEqual([endOf('length')]);
  });

  it('holds from a brace or bracket on and gives it back whole when it is no call', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    expect([...buffer.pass([text('In JSON: {"a": 1}'), text(' is an object.')])]).toEqual([
      text('In JSON: '),
    ]);
    expect([...buffer.end([], END)]).toEqual([text('{"a": 1} is an object.'), endOf('stop')]);
  });

  it("holds a family's marker split across chunks and reads the call at the end", () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'qwen3-coder', makeId);
    const xml =
      '<tool_call>\n<function=calculator>\n<parameter=expression>\n2+2\n</parameter>\n</function>\n</tool_call>';
    const streamed = [...buffer.pass([text('Sure.\n<tool_'), text(xml.slice(6))])];
    expect(streamed).toEqual([text('Sure.\n')]);
    expect([...buffer.end([], END)]).toEqual([
      {
        type: 'tool_call',
        toolCall: { id: 'id_0', name: 'calculator', arguments: '{"expression":"2+2"}' },
      },
      endOf('tool_calls'),
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
