import { describe, expect, it } from 'vitest';
import { createToolSpec, type ToolSpec } from '../core/index.js';
import {
  findToolCallBlocks,
  MAX_TOOL_CALL_BLOCKS,
  stripToolCallBlocks,
  type ToolCallBlock,
} from './tool-call-blocks.js';

const SPECS: readonly ToolSpec[] = [
  createToolSpec({
    name: 'calculator',
    description: 'Math.',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
    },
  }),
  createToolSpec({
    name: 'write_note',
    description: 'Writes a note.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        body: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        priority: { type: 'integer' },
      },
      required: ['title'],
    },
  }),
];

/** The calls found in `text`, as name and parsed arguments; a malformed block shows as its problem. */
function calls(text: string): unknown[] {
  return findToolCallBlocks(text, SPECS).blocks.map(summarize);
}

function summarize(block: ToolCallBlock): unknown {
  return block.kind === 'call'
    ? { name: block.name, args: JSON.parse(block.arguments) as unknown }
    : { malformed: block.toolName, errorCode: block.errorCode, problem: block.problem };
}

const SEVEN_BY_SIX = [{ name: 'calculator', args: { expression: '7*6' } }];

describe('findToolCallBlocks: the forms the original reads', () => {
  it.each([
    ['upstream test: closed by </toolname>', '<tool_call>calculator\n$expression=7*6</calculator>'],
    ['closed by </tool_call>', '<tool_call>calculator\n$expression=7*6\n</tool_call>'],
    ['closed by any tag, as upstream', '<tool_call>calculator $expression=7*6</function>'],
    ['<param>value</param>', '<tool_call>calculator\n<expression>7*6</expression>\n</tool_call>'],
    ['GLM param: value', '<tool_call>calculator\nexpression: "7*6"\n</tool_call>'],
    ['a JSON object after the name', '<tool_call>calculator\n{"expression": "7*6"}</tool_call>'],
    ['plain text for the one text parameter', '<tool_call>calculator\n7*6\n</tool_call>'],
    [
      'JSON form',
      '<tool_call>{"name": "calculator", "arguments": {"expression": "7*6"}}</tool_call>',
    ],
    [
      'JSON form in a ```json fence with newlines',
      '<tool_call>\n```json\n{"name": "calculator", "arguments": {"expression": "7*6"}}\n```\n</tool_call>',
    ],
    [
      'JSON form with "parameters"',
      '<tool_call>{"name": "calculator", "parameters": {"expression": "7*6"}}</tool_call>',
    ],
    [
      "JSON form in OpenAI's function shape",
      '<tool_call>{"function": {"name": "calculator", "arguments": {"expression": "7*6"}}}</tool_call>',
    ],
    [
      'JSON form with arguments as JSON text',
      '<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"7*6\\"}"}</tool_call>',
    ],
    ['a loosely written tool name', '<tool_call>Calculator\n$expression=7*6</Calculator>'],
    [
      'prose around the block',
      'Let me work it out.\n<tool_call>calculator\n$expression=7*6</tool_call>\nOne moment.',
    ],
  ])('%s', (_name, text) => {
    expect(calls(text)).toEqual(SEVEN_BY_SIX);
  });

  it('reads several $param lines, multi-line values and JSON values for non-text parameters', () => {
    const text = [
      '<tool_call>write_note',
      '$title=Shopping',
      '$body=eggs',
      'milk costs $3',
      '  and bread',
      '$tags=["food", "weekly"]',
      '$priority=2',
      '</tool_call>',
    ].join('\n');
    expect(calls(text)).toEqual([
      {
        name: 'write_note',
        args: {
          title: 'Shopping',
          body: 'eggs\nmilk costs $3\n  and bread',
          tags: ['food', 'weekly'],
          priority: 2,
        },
      },
    ]);
  });

  it('keeps a </param> element inside the block and reads several elements', () => {
    const text =
      '<tool_call>write_note\n<title>A <b>bold</b> plan</title>\n<priority>3</priority>\n</write_note>';
    expect(calls(text)).toEqual([
      { name: 'write_note', args: { title: 'A <b>bold</b> plan', priority: 3 } },
    ]);
  });

  it('reads GLM lines for declared parameters only; other lines continue the value', () => {
    const text =
      '<tool_call>write_note\ntitle: Links\nbody: see\nhttps://example.com\n</tool_call>';
    expect(calls(text)).toEqual([
      { name: 'write_note', args: { title: 'Links', body: 'see\nhttps://example.com' } },
    ]);
  });

  it('reads a name with no parameters as {} and keeps </tool_call> inside JSON strings', () => {
    expect(calls('<tool_call>calculator</tool_call>')).toEqual([{ name: 'calculator', args: {} }]);
    const literal =
      '<tool_call>{"name": "write_note", "arguments": {"title": "write </tool_call> here"}}</tool_call>';
    expect(calls(literal)).toEqual([
      { name: 'write_note', args: { title: 'write </tool_call> here' } },
    ]);
  });

  it('finds several blocks in order, and counts those past the limit', () => {
    const block = (n: number) => `<tool_call>calculator\n$expression=${n}+${n}</tool_call>`;
    const two = calls(`${block(1)}\n${block(2)}`);
    expect(two).toEqual([
      { name: 'calculator', args: { expression: '1+1' } },
      { name: 'calculator', args: { expression: '2+2' } },
    ]);
    const many = Array.from({ length: MAX_TOOL_CALL_BLOCKS + 3 }, (_, n) => block(n)).join('');
    const found = findToolCallBlocks(many, SPECS);
    expect(found.blocks).toHaveLength(MAX_TOOL_CALL_BLOCKS);
    expect(found.omitted).toBe(3);
  });

  it('finds nothing in text without <tool_call>, and counts blocks inside code fences, as upstream', () => {
    expect(calls('The answer is 42. </calculator>')).toEqual([]);
    const fenced = 'Calling it:\n```xml\n<tool_call>calculator\n$expression=7*6</tool_call>\n```';
    expect(calls(fenced)).toEqual(SEVEN_BY_SIX);
  });
});

describe('findToolCallBlocks: malformed blocks are reported, not dropped', () => {
  it('an unknown tool is passed on under its own name for the executor to refuse', () => {
    expect(calls('<tool_call>delete_everything\n$path=/</tool_call>')).toEqual([
      { name: 'delete_everything', args: { path: '/' } },
    ]);
  });

  it('bad JSON', () => {
    const [block] = calls(
      '<tool_call>{"name": "calculator", "arguments": {expression: 7}}</tool_call>',
    );
    expect(block).toMatchObject({ malformed: 'calculator', errorCode: 'invalid_arguments' });
    expect((block as { problem: string }).problem).toMatch(/not valid JSON .*<tool_call>\{"name"/);
  });

  it('an incomplete JSON object', () => {
    const [block] = calls(
      '<tool_call>{"name": "calculator", "arguments": {"expression": "1"</tool_call>',
    );
    expect(block).toMatchObject({ malformed: 'calculator', errorCode: 'invalid_arguments' });
    expect((block as { problem: string }).problem).toContain('not complete');
  });

  it.each([
    ['name form', '<tool_call>calculator\n$expression=7*6', 'calculator'],
    ['JSON form', '<tool_call>{"name": "calculator", "arguments": {}}', 'calculator'],
    ['bare tag', 'I will call <tool_call>', 'tool_call'],
  ])('an unclosed tag (%s)', (_name, text, toolName) => {
    const [block] = calls(text);
    expect(block).toMatchObject({ malformed: toolName, errorCode: 'invalid_arguments' });
    expect((block as { problem: string }).problem).toContain('is not closed');
  });

  it('an unclosed block does not swallow the next one', () => {
    const text =
      '<tool_call>calculator\n$expression=1\n<tool_call>calculator\n$expression=2</tool_call>';
    expect(calls(text)).toEqual([
      expect.objectContaining({ malformed: 'calculator' }),
      { name: 'calculator', args: { expression: '2' } },
    ]);
  });

  it.each([
    ['no name', '<tool_call>\n$expression=7*6</tool_call>'],
    ['JSON without a name', '<tool_call>{"arguments": {}}</tool_call>'],
    ['JSON that is not an object', '<tool_call>{"name": 7}</tool_call>'],
  ])('a block that names no tool (%s)', (_name, text) => {
    expect(calls(text)).toEqual([expect.objectContaining({ errorCode: 'unknown_tool' })]);
  });

  it('arguments that are not an object', () => {
    expect(calls('<tool_call>{"name": "calculator", "arguments": [1]}</tool_call>')).toEqual([
      expect.objectContaining({ malformed: 'calculator', errorCode: 'invalid_arguments' }),
    ]);
  });
});

describe('stripToolCallBlocks', () => {
  it('removes blocks, closed or not, and stray tags, keeping the prose', () => {
    expect(
      stripToolCallBlocks('Let me check.\n<tool_call>calculator\n$expression=7*6</calculator>'),
    ).toBe('Let me check.');
    expect(stripToolCallBlocks('It is 42.</tool_call>')).toBe('It is 42.');
    expect(stripToolCallBlocks('Working: <tool_call>{"name": "x"')).toBe('Working:');
    expect(stripToolCallBlocks('No markup here.')).toBe('No markup here.');
  });
});

describe('findToolCallBlocks: hostile input', () => {
  it('answers large inputs built to be slow (a quadratic reading would time out)', () => {
    const size = 300_000;
    const hostile = [
      '<tool_call>'.repeat(size / 11),
      '<tool_call>{"name": "calculator", "arguments": {"expression": "'.repeat(size / 60),
      `<tool_call>{"name": "calculator", "arguments": {"expression": "${'x'.repeat(size)}`,
      `<tool_call>calculator\n${'<a>'.repeat(size / 3)}`,
      `<tool_call>calculator\n${'<a>'.repeat(size / 6)}${'</b>'.repeat(size / 8)}`,
      `<tool_call>write_note\n${'$title='.repeat(size / 7)}`,
      `<tool_call>write_note\n${' $a'.repeat(size / 3)}</tool_call>`,
      `<tool_call>write_note\n${'title:\n'.repeat(size / 7)}</tool_call>`,
      `${'<tool_call>```'.repeat(size / 14)}`,
      `<tool_call>calculator${'</'.repeat(size / 2)}`,
      `<tool_call>{${'"'.repeat(size)}`,
      `<tool_call>${'{'.repeat(size)}</tool_call>`,
    ];
    for (const text of hostile) {
      const found = findToolCallBlocks(text, SPECS);
      expect(found.blocks.length).toBeGreaterThan(0);
      expect(found.blocks.length).toBeLessThanOrEqual(MAX_TOOL_CALL_BLOCKS);
      expect(stripToolCallBlocks(text).includes('<tool_call>')).toBe(false);
    }
    const big = `<tool_call>write_note\n$title=${'y'.repeat(size)}</tool_call>`;
    expect(calls(big)).toEqual([{ name: 'write_note', args: { title: 'y'.repeat(size) } }]);
  });
});
