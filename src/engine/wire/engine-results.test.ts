import { describe, expect, it } from 'vitest';
import { type Clock, type StreamChunk, ZERO_USAGE } from '../../core/index.js';
import { toGenerateResult, withTextToolCalls, withTimeToFirstChunk } from './engine-results.js';
import type { OfferedToolSet } from './formats/tool-call-format.js';
import type { ParsedCompletion } from './wire-format.js';

const makeId = (index: number) => `id_${index}`;

/** The offered tools of these names (no schemas). */
function toolSet(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}
const PARSED: ParsedCompletion = {
  content: 'Sure. <tool_call>{"name": "calculator", "arguments": {"expression": "1"}}</tool_call>',
  reasoning: '',
  toolCalls: [],
  finishReason: 'stop',
  usage: ZERO_USAGE,
  model: 'm',
};

describe('withTextToolCalls', () => {
  it('keeps only the visible text of a reply with no call in a family markup, its reasoning added', () => {
    const parsed: ParsedCompletion = {
      ...PARSED,
      content:
        '<|channel|>analysis<|message|>The user greets.<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|>',
      reasoning: 'Earlier.',
      model: 'gpt-oss-20b',
    };
    expect(withTextToolCalls(parsed, toolSet('calculator'), makeId)).toEqual({
      ...parsed,
      content: 'Hello!',
      reasoning: 'Earlier.\n\nThe user greets.',
    });
    const prose = { ...PARSED, content: 'The analysis of all\nthe final answers.' };
    expect(withTextToolCalls(prose, toolSet('calculator'), makeId)).toBe(prose);
    // With no tool offered nothing is read (the stream passes such replies straight on too).
    expect(withTextToolCalls(parsed, toolSet(), makeId)).toBe(parsed);
  });

  it('moves calls of the named tools out of the text', () => {
    expect(withTextToolCalls(PARSED, toolSet('calculator'), makeId)).toEqual({
      ...PARSED,
      content: 'Sure.',
      toolCalls: [{ id: 'id_0', name: 'calculator', arguments: '{"expression":"1"}' }],
      finishReason: 'tool_calls',
    });
  });

  it('keeps the answer when no tool is named, none is found, or it has structured calls', () => {
    expect(withTextToolCalls(PARSED, toolSet(), makeId)).toBe(PARSED);
    expect(withTextToolCalls(PARSED, toolSet('get_weather'), makeId)).toBe(PARSED);
    const structured = { ...PARSED, toolCalls: [{ id: 'a', name: 'calculator', arguments: '{}' }] };
    expect(withTextToolCalls(structured, toolSet('calculator'), makeId)).toBe(structured);
  });
});

describe('toGenerateResult', () => {
  it('adds reasoning only when there is some', () => {
    expect(toGenerateResult(PARSED, 0.5)).toEqual({
      content: PARSED.content,
      toolCalls: [],
      usage: ZERO_USAGE,
      finishReason: 'stop',
      model: 'm',
      ttftSeconds: 0.5,
    });
    expect(toGenerateResult({ ...PARSED, reasoning: 'Hm.' }, 0.5).reasoning).toBe('Hm.');
  });
});

describe('withTimeToFirstChunk', () => {
  it('puts the time to the first chunk into the end chunk', async () => {
    let nowMs = 1_000;
    const clock: Clock = { nowMs: () => 0, monotonicMs: () => (nowMs += 250) };
    const end: StreamChunk = {
      type: 'end',
      finishReason: 'stop',
      usage: ZERO_USAGE,
      model: 'm',
      ttftSeconds: 0,
    };
    async function* source(): AsyncGenerator<StreamChunk> {
      yield { type: 'text_delta', text: 'a' };
      yield { type: 'text_delta', text: 'b' };
      yield end;
    }
    const chunks: StreamChunk[] = [];
    for await (const chunk of withTimeToFirstChunk(source(), clock, 1_000)) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['text_delta', 'text_delta', 'end']);
    expect(chunks.at(-1)).toEqual({ ...end, ttftSeconds: 0.25 });
  });
});
