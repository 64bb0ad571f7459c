import { describe, expect, it } from 'vitest';
import type { OpenAIFunctionTool } from '../../core/index.js';
import { selectFunctions, toToolCalls } from './embedded-llama-tools.js';

const tool = (name: string): OpenAIFunctionTool => ({
  type: 'function',
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { x: { type: 'number' } } },
  },
});

describe('selectFunctions', () => {
  const tools = [tool('alpha'), tool('beta')];

  it('offers nothing without tools or with toolChoice none', () => {
    expect(selectFunctions(undefined, undefined)).toEqual({ forced: false });
    expect(selectFunctions([], 'required')).toEqual({ forced: false });
    expect(selectFunctions(tools, 'none')).toEqual({ forced: false });
  });

  it('offers every tool for auto, and forces a call for required', () => {
    const auto = selectFunctions(tools, 'auto');
    expect(auto.forced).toBe(false);
    expect(Object.keys(auto.functions ?? {})).toEqual(['alpha', 'beta']);
    expect(auto.functions?.alpha).toEqual({
      description: 'The alpha tool.',
      params: { type: 'object', properties: { x: { type: 'number' } } },
    });
    expect(selectFunctions(tools, undefined).forced).toBe(false);
    expect(selectFunctions(tools, 'required').forced).toBe(true);
  });

  it('offers only the named function and forces it', () => {
    const named = selectFunctions(tools, { type: 'function', function: { name: 'beta' } });
    expect(named.forced).toBe(true);
    expect(Object.keys(named.functions ?? {})).toEqual(['beta']);
  });

  it('throws invalid_argument for a named function that was not offered, naming the offered ones', () => {
    expect(() => selectFunctions(tools, { type: 'function', function: { name: 'gamma' } })).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: expect.stringContaining('alpha, beta'),
      }),
    );
  });
});

describe('toToolCalls', () => {
  it('flattens calls with fresh ids and JSON arguments', () => {
    let next = 0;
    const calls = toToolCalls(
      [
        { functionName: 'alpha', params: { x: 1 } },
        { functionName: 'beta', params: undefined },
      ],
      () => `id${++next}`,
    );
    expect(calls).toEqual([
      { id: 'id1', name: 'alpha', arguments: '{"x":1}' },
      { id: 'id2', name: 'beta', arguments: '{}' },
    ]);
    expect(toToolCalls(undefined, () => 'never')).toEqual([]);
  });
});
