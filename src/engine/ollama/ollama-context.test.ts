import { describe, expect, it } from 'vitest';
import type { Message, OpenAIFunctionTool } from '../../core/index.js';
import {
  CONTEXT_STEP_TOKENS,
  checkContextLimits,
  chooseContextTokens,
  DEFAULT_ANSWER_TOKENS,
  DEFAULT_MAX_CONTEXT_TOKENS,
  DEFAULT_MIN_CONTEXT_TOKENS,
  estimatePromptTokens,
} from './ollama-context.js';

const TOOL: OpenAIFunctionTool = {
  type: 'function',
  function: { name: 'calculator', description: 'Arithmetic.', parameters: { type: 'object' } },
};

function user(content: string): Message {
  return { role: 'user', content };
}

describe('estimatePromptTokens', () => {
  it('counts a third of a token per byte, rounded up, plus 4 per message', () => {
    expect(estimatePromptTokens([])).toBe(0);
    expect(estimatePromptTokens([user('')])).toBe(4);
    expect(estimatePromptTokens([user('abc')])).toBe(5);
    expect(estimatePromptTokens([user('abcd')])).toBe(6);
    expect(estimatePromptTokens([user('a'.repeat(3000)), user('b')])).toBe(1001 + 8);
  });

  it('counts tool calls and tool definitions', () => {
    const call: Message = {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'calc', arguments: '{"x":12}' }],
    };
    expect(estimatePromptTokens([call])).toBe(Math.ceil(12 / 3) + 4);
    expect(estimatePromptTokens([], [TOOL])).toBe(Math.ceil(JSON.stringify([TOOL]).length / 3));
  });

  it('counts UTF-8 bytes, so CJK text counts about one token per character', () => {
    expect(estimatePromptTokens([user('你好世界')])).toBe(4 + 4);
  });
});

describe('chooseContextTokens', () => {
  it('adds the answer budget and rounds up to a multiple of 2048, at least 4096', () => {
    expect(DEFAULT_ANSWER_TOKENS).toBe(1024);
    expect(CONTEXT_STEP_TOKENS).toBe(2048);
    expect(chooseContextTokens({ messages: [user('hi')] })).toBe(DEFAULT_MIN_CONTEXT_TOKENS);
    // 3 * 4000 bytes = 4000 tokens, + 4 + 1024 = 5028 -> 6144.
    expect(chooseContextTokens({ messages: [user('x'.repeat(12_000))] })).toBe(6144);
    expect(chooseContextTokens({ messages: [user('x'.repeat(12_000))], maxTokens: 100 })).toBe(
      6144,
    );
    expect(chooseContextTokens({ messages: [user('x'.repeat(12_000))], maxTokens: 4000 })).toBe(
      8192,
    );
  });

  it('lands exactly on a step when the need is a multiple of 2048', () => {
    // 6144 - 1024 - 4 = 5116 tokens = 15_348 bytes.
    expect(chooseContextTokens({ messages: [user('x'.repeat(15_348))] })).toBe(6144);
    expect(chooseContextTokens({ messages: [user('x'.repeat(15_349))] })).toBe(8192);
  });

  it('includes the tools offered', () => {
    const tools = Array.from({ length: 40 }, (_, index) => ({
      ...TOOL,
      function: { ...TOOL.function, name: `tool_${index}`, description: 'd'.repeat(300) },
    }));
    // About 15_400 bytes of definitions: 5134 tokens, + 5 + 1024 -> 8192; without them 4096.
    expect(chooseContextTokens({ messages: [user('hi')], tools })).toBe(8192);
    expect(chooseContextTokens({ messages: [user('hi')] })).toBe(4096);
  });

  it('caps at 32768 by default, and at the configured cap', () => {
    const huge = { messages: [user('x'.repeat(1_000_000))] };
    expect(DEFAULT_MAX_CONTEXT_TOKENS).toBe(32_768);
    expect(chooseContextTokens(huge)).toBe(32_768);
    expect(chooseContextTokens(huge, { maxContextTokens: 131_072 })).toBe(131_072);
    expect(chooseContextTokens(huge, { maxContextTokens: 10_000 })).toBe(10_000);
  });

  it('never goes below an explicit floor, even above the cap; a low cap lowers the default floor', () => {
    expect(chooseContextTokens({ messages: [] }, { minContextTokens: 16_384 })).toBe(16_384);
    expect(
      chooseContextTokens({ messages: [] }, { minContextTokens: 16_384, maxContextTokens: 8192 }),
    ).toBe(16_384);
    expect(chooseContextTokens({ messages: [] }, { maxContextTokens: 2048 })).toBe(2048);
    expect(
      chooseContextTokens({ messages: [user('x'.repeat(30_000))] }, { minContextTokens: 2048 }),
    ).toBe(12_288);
  });

  it('ignores a non-positive answer budget', () => {
    expect(chooseContextTokens({ messages: [user('x'.repeat(12_000))], maxTokens: 0 })).toBe(6144);
  });
});

describe('checkContextLimits', () => {
  it('accepts positive whole numbers and rejects anything else', () => {
    expect(() => checkContextLimits({})).not.toThrow();
    expect(() => checkContextLimits({ minContextTokens: 1, maxContextTokens: 8192 })).not.toThrow();
    for (const value of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => checkContextLimits({ maxContextTokens: value })).toThrow(/maxContextTokens/);
      expect(() => checkContextLimits({ minContextTokens: value })).toThrow(/minContextTokens/);
    }
  });
});
