import { describe, expect, it } from 'vitest';
import type { OpenAIFunctionTool } from '../../core/index.js';
import { offeredTools, textToolNames } from './offered-tools.js';

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

describe('textToolNames', () => {
  it('names the offered tools after tool_choice, and none when text tool calls are off', () => {
    const tools = [tool('a'), tool('b')];
    expect(textToolNames({ model: 'm', tools }, true)).toEqual(['a', 'b']);
    expect(textToolNames({ model: 'm', tools, toolChoice: 'none' }, true)).toEqual([]);
    const named = { type: 'function', function: { name: 'a' } } as const;
    expect(textToolNames({ model: 'm', tools, toolChoice: named }, true)).toEqual(['a']);
    expect(textToolNames({ model: 'm', tools }, false)).toEqual([]);
  });
});
