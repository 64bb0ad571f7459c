import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, OpenAIFunctionTool } from '../core/index.js';
import {
  CalibratedCounter,
  estimateMessageTokens,
  estimateTokens,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_OVERHEAD_TOKENS,
  type TokenCounter,
  utf8Bytes,
} from './token-count.js';

const tool: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } } },
  },
};

describe('utf8Bytes', () => {
  it('agrees with Buffer.byteLength for ASCII, accents, CJK, emoji and lone surrogates', () => {
    for (const text of ['', 'hello', 'héllo', '日本語', 'a😀b', '\ud800', 'x\udc00y', '\ud83d']) {
      expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
    );
  });
});

describe('estimateTokens', () => {
  it('counts bytes over 3 plus 4 per message, tool calls included, like the Ollama estimate', () => {
    const messages: Message[] = [
      { role: 'user', content: 'x'.repeat(30) },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'calc', arguments: '{"a":1}' }],
      },
    ];
    expect(estimateTokens(messages, [])).toBe(10 + 4 + Math.ceil(11 / 3) + 4);
    expect(estimateMessageTokens({ role: 'user', content: '日本' })).toBe(
      2 + MESSAGE_OVERHEAD_TOKENS,
    );
  });

  it('adds each tool definition: its JSON bytes over 3 plus a template share', () => {
    const one = Math.ceil(Buffer.byteLength(JSON.stringify(tool)) / 3) + TOOL_OVERHEAD_TOKENS;
    expect(estimateTokens([], [tool])).toBe(one);
    expect(estimateTokens([], [tool, tool])).toBe(2 * one);
  });

  it('is additive over messages, so turns can be counted apart and summed', () => {
    const a: Message = { role: 'user', content: 'abc'.repeat(50) };
    const b: Message = { role: 'assistant', content: 'é'.repeat(33) };
    expect(estimateTokens([a, b])).toBe(estimateTokens([a]) + estimateTokens([b]));
  });
});

describe('CalibratedCounter', () => {
  const messages: Message[] = [{ role: 'user', content: 'x'.repeat(300) }];
  const base = estimateTokens(messages); // 104

  it('starts at the estimate plus a 5 % safety margin', () => {
    const counter = new CalibratedCounter();
    expect(counter.ratio).toBeCloseTo(1.05);
    expect(counter.count(messages, [])).toBe(Math.ceil(base * 1.05));
  });

  it('learns to count higher fast and lower slowly, and stays within its clamp', () => {
    const counter = new CalibratedCounter();
    const estimated = counter.count(messages, []) as number;
    counter.observe(estimated, base * 2); // the model's tokenizer counts twice as many
    expect(counter.ratio).toBeGreaterThan(1.5 * 1.05 - 0.01);
    const high = counter.ratio;
    counter.observe(counter.count(messages, []) as number, base); // back to the estimate
    expect(counter.ratio).toBeLessThan(high);
    expect(counter.ratio).toBeGreaterThan(high * 0.85);
    for (let i = 0; i < 200; i += 1) counter.observe(counter.count(messages, []) as number, 1);
    // The applied ratio follows the learned one in steps of at most the 3 % drift tolerance.
    expect(counter.ratio).toBeGreaterThanOrEqual(0.5 * 1.05);
    expect(counter.ratio).toBeLessThanOrEqual(0.5 * 1.05 * 1.03);
    for (let i = 0; i < 50; i += 1) counter.observe(counter.count(messages, []) as number, 1e9);
    expect(counter.ratio).toBeLessThanOrEqual(3 * 1.05);
    expect(counter.ratio).toBeGreaterThanOrEqual((3 * 1.05) / 1.03);
  });

  it('errs high: after steady observations its count is at least the real count', () => {
    const counter = new CalibratedCounter();
    for (let i = 0; i < 40; i += 1) {
      const real = Math.round(base * (0.8 + 0.05 * Math.sin(i)));
      counter.observe(counter.count(messages, []) as number, real);
    }
    expect(counter.count(messages, [])).toBeGreaterThanOrEqual(Math.round(base * 0.85));
  });

  it('moves its epoch only when the learned ratio drifts past the tolerance', () => {
    const counter = new CalibratedCounter();
    const estimated = counter.count(messages, []) as number;
    counter.observe(estimated, estimated); // the estimate was right
    counter.observe(estimated, Math.round(estimated / 1.05)); // within 3 %
    expect(counter.epoch).toBe(0);
    counter.observe(estimated, estimated * 2);
    expect(counter.epoch).toBe(1);
  });

  it('ignores nonsense observations', () => {
    const counter = new CalibratedCounter();
    for (const [estimated, actual] of [
      [0, 10],
      [10, 0],
      [-5, 10],
      [Number.NaN, 10],
      [10, Number.POSITIVE_INFINITY],
    ] as const) {
      counter.observe(estimated, actual);
    }
    expect(counter.ratio).toBeCloseTo(1.05);
    expect(counter.epoch).toBe(0);
  });

  it('wraps an asynchronous counter (an engine tokenizer)', async () => {
    const tokenizer: TokenCounter = { count: async (list) => list.length * 100 };
    const counter = new CalibratedCounter({ base: tokenizer, safetyMargin: 0 });
    await expect(counter.count(messages, [])).resolves.toBe(100);
  });
});
