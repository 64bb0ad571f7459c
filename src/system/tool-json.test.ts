import { describe, expect, it } from 'vitest';
import type { ToolCatalogEntry } from './tool-catalog.js';
import { toolJson } from './tool-json.js';

const CALCULATOR: ToolCatalogEntry = {
  name: 'calculator',
  category: 'math',
  description: 'Evaluate a mathematical expression safely.',
  requiresConfirmation: false,
  costEstimate: 0,
  latencyEstimate: 0.001,
  parameters: { type: 'object', properties: { expression: { type: 'string' } } },
};

describe('toolJson', () => {
  it('writes the snake_case keys of `jarvis tools list --json` in order', () => {
    expect(JSON.stringify(toolJson(CALCULATOR))).toBe(
      '{"name":"calculator","category":"math","description":"Evaluate a mathematical expression safely.","requires_confirmation":false,"cost_estimate":0,"latency_estimate":0.001,"parameters":{"type":"object","properties":{"expression":{"type":"string"}}}}',
    );
  });

  it('adds `problem` last, only when the tool could not be built', () => {
    const broken = { ...CALCULATOR, problem: 'needs constructor arguments' };
    expect(Object.keys(toolJson(broken)).at(-1)).toBe('problem');
    expect('problem' in toolJson(CALCULATOR)).toBe(false);
  });
});
