import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { BaseTool } from './base-tool.js';
import { defineTool } from './define-tool.js';
import { ToolExecutor } from './executor.js';

describe('defineTool', () => {
  it('derives the JSON Schema from a zod object and types the arguments', async () => {
    const weather = defineTool({
      name: 'weather',
      description: 'Weather for a city.',
      category: 'demo',
      parameters: z.object({
        city: z.string().describe('City name'),
        days: z.number().int().min(1).max(7).default(1),
        unit: z.enum(['c', 'f']).optional(),
      }),
      execute: ({ city, days, unit }) => {
        expectTypeOf(city).toEqualTypeOf<string>();
        expectTypeOf(days).toEqualTypeOf<number>();
        expectTypeOf(unit).toEqualTypeOf<'c' | 'f' | undefined>();
        return `${city} for ${days} day(s)${unit ? ` in ${unit}` : ''}`;
      },
    });
    expect(weather).toBeInstanceOf(BaseTool);
    expect(weather.toolId).toBe('weather');
    expect(weather.toOpenAIFunction()).toEqual({
      type: 'function',
      function: {
        name: 'weather',
        description: 'Weather for a city.',
        parameters: {
          type: 'object',
          properties: {
            city: { type: 'string', description: 'City name' },
            days: { type: 'integer', default: 1, minimum: 1, maximum: 7 },
            unit: { type: 'string', enum: ['c', 'f'] },
          },
          required: ['city'],
        },
      },
    });
    const executor = new ToolExecutor([weather]);
    expect(
      (await executor.execute({ id: 'c', name: 'weather', arguments: '{"city": "Oslo"}' })).content,
    ).toBe('Oslo for 1 day(s)');
    const invalid = await executor.execute({
      id: 'c',
      name: 'weather',
      arguments: '{"city": "Oslo", "days": 9}',
    });
    expect(invalid).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    expect(invalid.content).toContain("argument 'days' must be <= 7");
  });

  it('validates with zod when called directly, bypassing the executor', async () => {
    const tool = defineTool({
      name: 'square',
      description: 'Squares.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => String(n * n),
    });
    expect(await tool.execute({ n: 4 })).toMatchObject({ success: true, content: '16' });
    const bad = await tool.execute({ n: 'four' });
    expect(bad).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    expect(bad.content).toMatch(/^Invalid arguments for tool 'square': .*expected number/s);
  });

  it('accepts a JSON Schema and rich outputs with metadata, usage and cost', async () => {
    const tool = defineTool<{ q: string }>({
      name: 'lookup',
      description: 'Looks up.',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      costEstimate: 0.01,
      timeoutMs: 1234,
      execute: async ({ q }, context) => ({
        content: `found ${q}`,
        metadata: { hits: 1, aborted: context.signal.aborted },
        usage: { promptTokens: 3 },
        costUsd: 0.002,
      }),
    });
    expect(tool.spec).toMatchObject({
      name: 'lookup',
      costEstimate: 0.01,
      timeoutMs: 1234,
      requiresConfirmation: false,
    });
    const result = await new ToolExecutor([tool]).execute({
      id: 'c',
      name: 'lookup',
      arguments: '{"q":"x"}',
    });
    expect(result).toMatchObject({
      success: true,
      content: 'found x',
      metadata: { hits: 1, aborted: false },
      usage: { promptTokens: 3 },
      costUsd: 0.002,
    });
  });

  it('defaults to accepting any arguments object when no parameters are given', async () => {
    const tool = defineTool({
      name: 'anything',
      description: 'Takes anything.',
      execute: (args) => JSON.stringify(args),
    });
    expect(tool.spec.parameters).toEqual({});
    const result = await new ToolExecutor([tool]).execute({
      id: 'c',
      name: 'anything',
      arguments: '{"a": [1]}',
    });
    expect(result.content).toBe('{"a":[1]}');
  });
});
