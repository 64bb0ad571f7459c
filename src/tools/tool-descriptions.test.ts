import { describe, expect, it } from 'vitest';
import { createToolSpec, type Tool } from '../core/index.js';
import { ThinkTool } from './builtin/think.js';
import { defineTool } from './define-tool.js';
import { buildToolDescriptions } from './tool-descriptions.js';

function specOnly(init: Parameters<typeof createToolSpec>[0]): Tool {
  return {
    toolId: init.name,
    spec: createToolSpec(init),
    execute: async () => Promise.reject(new Error('unused')),
  };
}

describe('buildToolDescriptions', () => {
  it('says so when there are no tools', () => {
    expect(buildToolDescriptions([])).toBe('No tools available.');
  });

  it('renders the tools.md format: heading, description, category, parameters', () => {
    const calculator = specOnly({
      name: 'calculator',
      description: 'Evaluate a mathematical expression safely.',
      category: 'math',
      parameters: {
        type: 'object',
        properties: { expression: { type: 'string', description: 'Math expression to evaluate' } },
        required: ['expression'],
      },
    });
    expect(buildToolDescriptions([calculator, new ThinkTool()])).toMatchInlineSnapshot(`
      "### calculator
      Evaluate a mathematical expression safely.
      Category: math
      Parameters:
        - expression (string, required): Math expression to evaluate

      ### think
      A reasoning scratchpad. Think through a problem step by step. Input is echoed.
      Category: reasoning
      Parameters:
        - thought (string, required): Your reasoning or thought process."
    `);
  });

  it('omits the category on request or when empty, and the Parameters line when there are none', () => {
    const bare = specOnly({ name: 'bare', description: '', category: 'misc' });
    expect(buildToolDescriptions([bare], { includeCategory: false })).toBe('### bare\n');
    expect(buildToolDescriptions([specOnly({ name: 'x', description: 'd' })])).toBe('### x\nd');
  });

  it('shows non-zero cost and latency estimates only when asked', () => {
    const costly = specOnly({
      name: 'web',
      description: 'Search.',
      costEstimate: 0.001,
      latencyEstimate: 1.25,
    });
    const free = specOnly({ name: 'free', description: 'Free.', latencyEstimate: 0.5 });
    expect(buildToolDescriptions([costly], { includeCost: true })).toBe(
      '### web\nSearch.\nCost estimate: $0.0010\nLatency estimate: 1.2s',
    );
    expect(buildToolDescriptions([free], { includeCost: true })).toBe(
      '### free\nFree.\nLatency estimate: 0.5s',
    );
    expect(buildToolDescriptions([costly])).toBe('### web\nSearch.');
  });

  it('renders enum values, defaults, union types and parameters without type or description', () => {
    const tool = specOnly({
      name: 'list_scheduled_tasks',
      description: 'List tasks.',
      category: 'scheduler',
      parameters: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['active', 'paused'], description: 'Filter by status' },
          top_k: { type: 'integer', default: 5, description: 'Number of results' },
          when: { type: ['string', 'null'] },
          anything: {},
        },
        required: ['status'],
      },
    });
    expect(buildToolDescriptions([tool])).toBe(
      [
        '### list_scheduled_tasks',
        'List tasks.',
        'Category: scheduler',
        'Parameters:',
        '  - status (string, required, one of: "active", "paused"): Filter by status',
        '  - top_k (integer, default: 5): Number of results',
        '  - when (string | null)',
        '  - anything (any)',
      ].join('\n'),
    );
  });

  it('describes tools defined with zod the same way', async () => {
    const tool = defineTool({
      name: 'greet',
      description: 'Greets.',
      category: 'demo',
      parameters: (await import('zod')).z.object({}),
      execute: () => 'hi',
    });
    expect(buildToolDescriptions([tool])).toBe('### greet\nGreets.\nCategory: demo');
  });
});

describe('estimate formatting', () => {
  it('rounds exact ties to even like Python and everything else to nearest', () => {
    const line = (latencyEstimate: number) =>
      buildToolDescriptions([specOnly({ name: 't', description: 'd', latencyEstimate })], {
        includeCost: true,
      }).split('\n')[2];
    expect(line(1.25)).toBe('Latency estimate: 1.2s');
    expect(line(1.35)).toBe('Latency estimate: 1.4s');
    expect(line(0.05)).toBe('Latency estimate: 0.1s');
    expect(line(2.75)).toBe('Latency estimate: 2.8s');
    expect(line(0.25)).toBe('Latency estimate: 0.2s');
    expect(line(1.26)).toBe('Latency estimate: 1.3s');
    expect(line(-0.25)).toBe('Latency estimate: -0.2s');
  });
});
