import { describe, expect, it } from 'vitest';
import { createToolSpec, type Tool } from '../core/index.js';
import { CalculatorTool, ThinkTool } from '../tools/index.js';
import { buildStructuredSystemPrompt, buildToolSelectionGuide } from './orchestrator-prompt.js';

function specOnly(name: string, category: string, costEstimate = 0): Tool {
  return {
    toolId: name,
    spec: createToolSpec({ name, description: `${name} tool`, category, costEstimate }),
    execute: async () => Promise.reject(new Error('unused')),
  };
}

describe('buildToolSelectionGuide', () => {
  it('groups tools by category in first-seen order with the category headings', () => {
    const tools = [
      new CalculatorTool(),
      specOnly('retrieval', 'memory'),
      specOnly('llm', ''),
      specOnly('code_interpreter', 'utility'),
      specOnly('web_search', 'search'),
      specOnly('sub_model', 'llm'),
      new ThinkTool(),
    ];
    expect(buildToolSelectionGuide(tools)).toBe(
      [
        'Choose tools based on task type:',
        'MATH PROBLEMS:',
        '- calculator',
        '',
        'GENERAL Q&A / FACTUAL:',
        '- retrieval',
        '',
        'REASONING/LOGIC:',
        '- llm',
        '- sub_model',
        '',
        'UTILITY / CODING TASKS:',
        '- code_interpreter',
        '',
        'SEARCH:',
        '- web_search',
        '',
        'REASONING:',
        '- think',
      ].join('\n'),
    );
  });
});

describe('buildStructuredSystemPrompt', () => {
  it('has the four sections in order with tool descriptions including cost', () => {
    const prompt = buildStructuredSystemPrompt([
      new CalculatorTool(),
      specOnly('web', 'search', 0.001),
    ]);
    const headings = [
      'AVAILABLE TOOLS',
      'TOOL SELECTION GUIDE',
      'RESPONSE FORMAT',
      'CRITICAL RULES',
    ];
    const positions = headings.map((heading) => prompt.indexOf(`=== ${heading} ===`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).toContain('### calculator');
    expect(prompt).toContain('  - expression (string, required)');
    expect(prompt).toContain('Cost estimate: $0.0010');
    for (const label of ['THOUGHT:', 'TOOL:', 'INPUT:', 'FINAL_ANSWER:'])
      expect(prompt).toContain(label);
    expect(prompt).toContain('at least one tool');
  });

  it('does not demand a tool call when there are no tools', () => {
    const prompt = buildStructuredSystemPrompt([]);
    expect(prompt).toContain('No tools available.');
    expect(prompt).not.toContain('at least one tool');
  });
});
