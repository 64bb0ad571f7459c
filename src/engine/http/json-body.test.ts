import { describe, expect, it } from 'vitest';
import { frozenJsonText, JsonText, jsonBody } from './json-body.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

const tool = () => ({
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluate "math" safely \u2028 ü',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['x'] },
  },
});

describe('frozenJsonText', () => {
  it('writes a deeply frozen list once and gives the same text again', () => {
    const tools = deepFreeze([tool()]);
    const text = frozenJsonText(tools);
    expect(text).toBe(JSON.stringify(tools));
    expect(frozenJsonText(tools)).toBe(text);
  });

  it('leaves alone lists that could still change or do not serialize as plain data', () => {
    expect(frozenJsonText([tool()])).toBeUndefined();
    // Frozen on top, but a tool inside can still be changed.
    expect(frozenJsonText(Object.freeze([tool()]))).toBeUndefined();
    const withGetter = Object.freeze([
      Object.freeze(Object.defineProperty({}, 'name', { get: () => 'x', enumerable: true })),
    ]);
    expect(frozenJsonText(withGetter)).toBeUndefined();
    expect(frozenJsonText(deepFreeze([{ toJSON: () => 'x' }]))).toBeUndefined();
    expect(frozenJsonText(deepFreeze([new Date(0)]))).toBeUndefined();
    expect(frozenJsonText(deepFreeze([{ big: 1n }]))).toBeUndefined();
  });
});

describe('jsonBody', () => {
  const tools = deepFreeze([tool(), tool()]);
  const messages = [{ role: 'user', content: 'What is "15%" of 340?' }];

  it('writes a body whose frozen tools come last exactly as JSON.stringify would', () => {
    const bodies: Record<string, unknown>[] = [
      { model: 'm', messages, stream: false, temperature: 0.7, max_tokens: 1024, tools },
      { model: undefined, messages, stream: false, tools },
      { tools },
      { model: 'm', tools, tool_choice: undefined },
      { model: 'm', tools, skipped: () => 1 },
    ];
    for (const body of bodies) {
      const sent = jsonBody(body);
      expect(sent).toBeInstanceOf(JsonText);
      expect((sent as JsonText).text).toBe(JSON.stringify(body));
    }
  });

  it('sends other bodies as they are', () => {
    const withChoice = { model: 'm', tools, tool_choice: 'auto' };
    expect(jsonBody(withChoice)).toBe(withChoice);
    const streaming = { model: 'm', tools, stream_options: { include_usage: true } };
    expect(jsonBody(streaming)).toBe(streaming);
    const unfrozen = { model: 'm', tools: [tool()] };
    expect(jsonBody(unfrozen)).toBe(unfrozen);
    const noTools = { model: 'm', messages };
    expect(jsonBody(noTools)).toBe(noTools);
    const ownJson = { tools, toJSON: () => ({}) };
    expect(jsonBody(ownJson)).toBe(ownJson);
  });
});
