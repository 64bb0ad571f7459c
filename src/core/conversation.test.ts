import { describe, expect, it } from 'vitest';
import { Conversation } from './conversation.js';
import { createMessage, Role } from './messages.js';
import { toolFailure, toolSuccess } from './tool-result.js';
import { createToolSpec, toOpenAIFunction } from './tool-spec.js';
import { addUsage, ZERO_USAGE } from './usage.js';

describe('Role and messages', () => {
  it('uses the OpenAI wire names', () => {
    expect(Object.values(Role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(createMessage(Role.TOOL, '4', { toolCallId: 'call_1' })).toEqual({
      role: 'tool',
      content: '4',
      toolCallId: 'call_1',
    });
  });
});

describe('Conversation', () => {
  it('keeps only the latest maxMessages and windows from the end', () => {
    const conversation = new Conversation({ maxMessages: 2 });
    for (const text of ['a', 'b', 'c']) conversation.add(createMessage('user', text));
    expect(conversation.messages.map((m) => m.content)).toEqual(['b', 'c']);
    expect(conversation.window(1).map((m) => m.content)).toEqual(['c']);
    expect(conversation.window(0)).toEqual([]);
    expect(conversation.window(10)).toHaveLength(2);
    expect(conversation.length).toBe(2);
  });

  it('is unlimited by default and refuses a maxMessages that is not a positive integer', () => {
    const conversation = new Conversation({
      messages: [createMessage('system', 's'), createMessage('user', 'u')],
    });
    expect(conversation.length).toBe(2);
    expect(() => new Conversation({ maxMessages: 0 })).toThrow(
      'maxMessages must be a positive integer',
    );
    expect(() => new Conversation({ maxMessages: 1.5 })).toThrow(
      'maxMessages must be a positive integer',
    );
  });
});

describe('ToolSpec and ToolResult', () => {
  it('fills the documented defaults', () => {
    expect(createToolSpec({ name: 'x', description: 'd' })).toEqual({
      name: 'x',
      description: 'd',
      parameters: {},
      category: '',
      costEstimate: 0,
      latencyEstimate: 0,
      requiresConfirmation: false,
      metadata: {},
    });
    expect(toolSuccess('x', 'ok')).toEqual({
      toolName: 'x',
      content: 'ok',
      success: true,
      usage: {},
      costUsd: 0,
      latencySeconds: 0,
      metadata: {},
    });
    expect(toolFailure('x', 'tool_error', 'bad')).toMatchObject({
      success: false,
      errorCode: 'tool_error',
    });
  });

  it('converts a spec to the OpenAI function format with parameters passed through', () => {
    const spec = createToolSpec({ name: 'x', description: 'd', parameters: { type: 'object' } });
    expect(toOpenAIFunction(spec)).toEqual({
      type: 'function',
      function: { name: 'x', description: 'd', parameters: { type: 'object' } },
    });
  });

  it('adds token usage, deriving totals when missing', () => {
    const sum = addUsage(addUsage(ZERO_USAGE, { promptTokens: 3, completionTokens: 4 }), {
      promptTokens: 1,
      completionTokens: 1,
      totalTokens: 2,
    });
    expect(sum).toEqual({ promptTokens: 4, completionTokens: 5, totalTokens: 9 });
  });
});
