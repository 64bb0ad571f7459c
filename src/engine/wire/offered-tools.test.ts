import { describe, expect, it } from 'vitest';
import type { OpenAIFunctionTool } from '../../core/index.js';
import { offeredTools, textToolSet } from './offered-tools.js';

const tool = (name: string): OpenAIFunctionTool => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object' } },
});

describe('offeredTools', () => {
  it('maps tool_choice onto the tools: none withholds, a name narrows, the rest offer all', () => {
    const tools = [tool('a'), tool('b')];
    expect(offeredTools({ model: 'm' })).toEqual([]);
    expect(offeredTools({ model: 'm', tools })).toEqual(tools);
    expect(offeredTools({ model: 'm', tools, toolChoice: 'auto' })).toEqual(tools);
    expect(offeredTools({ model: 'm', tools, toolChoice: 'required' })).toEqual(tools);
    expect(offeredTools({ model: 'm', tools, toolChoice: 'none' })).toEqual([]);
    const named = { type: 'function', function: { name: 'b' } } as const;
    expect(offeredTools({ model: 'm', tools, toolChoice: named })).toEqual([tool('b')]);
  });
});

describe('textToolSet', () => {
  it('gives each offered tool its parameter schema', () => {
    const set = textToolSet({ model: 'm', tools: [tool('a')] }, true);
    expect(set.parametersOf('a')).toEqual({ type: 'object' });
    expect(set.parametersOf('b')).toBeUndefined();
  });

  it('names the offered tools after tool_choice, and none when text tool calls are off', () => {
    const tools = [tool('a'), tool('b')];
    expect([...textToolSet({ model: 'm', tools }, true).names]).toEqual(['a', 'b']);
    expect([...textToolSet({ model: 'm', tools, toolChoice: 'none' }, true).names]).toEqual([]);
    const named = { type: 'function', function: { name: 'a' } } as const;
    expect([...textToolSet({ model: 'm', tools, toolChoice: named }, true).names]).toEqual(['a']);
    expect([...textToolSet({ model: 'm', tools }, false).names]).toEqual([]);
  });
});
