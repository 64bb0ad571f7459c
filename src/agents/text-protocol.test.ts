import { describe, expect, it } from 'vitest';
import { createToolSpec, type ToolSpec } from '../core/index.js';
import { CalculatorTool, ThinkTool } from '../tools/index.js';
import {
  buildTextToolCall,
  normalizeToolInput,
  parseTextProtocolReply,
  resolveToolSpec,
  type TextProtocolReply,
} from './text-protocol.js';

const calculator = new CalculatorTool().spec;
const think = new ThinkTool().spec;
const webSearch = createToolSpec({
  name: 'web_search',
  description: 'Search the web.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string' }, max_results: { type: 'integer' } },
    required: ['query'],
  },
});
const twoStrings = createToolSpec({
  name: 'file_write',
  description: 'Write a file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, text: { type: 'string' } },
    required: ['path', 'text'],
  },
});
const clock = createToolSpec({ name: 'clock', description: 'The time.' });
const specs: readonly ToolSpec[] = [calculator, think, webSearch, twoStrings, clock];

/** Parses a reply and turns it into the call the executor would get (or the answer). */
function decide(content: string): { name: string; arguments: unknown } | string {
  const reply = parseTextProtocolReply(content);
  if (reply.kind !== 'tool_call') return reply.answer;
  const call = buildTextToolCall(reply, specs, 'id');
  return { name: call.name, arguments: JSON.parse(call.arguments) as unknown };
}

function toolCall(content: string): Extract<TextProtocolReply, { kind: 'tool_call' }> {
  const reply = parseTextProtocolReply(content);
  if (reply.kind !== 'tool_call') throw new Error(`not a tool call: ${JSON.stringify(reply)}`);
  return reply;
}

describe('parseTextProtocolReply: final answers', () => {
  it.each([
    ['THOUGHT: done\nFINAL_ANSWER: 128', '128'],
    ['THOUGHT: done\nFINAL ANSWER: 128', '128'],
    ['Thought: done\nFinal Answer: The result is 128.', 'The result is 128.'],
    ['final_answer:   128  \n', '128'],
    ['FinalAnswer: 128', '128'],
    ['**Final Answer:** 128', '128'],
    ['Thought: x\nFinal Answer: line one\nline two', 'line one\nline two'],
    ['<think>TOOL: calculator</think>\nFINAL_ANSWER: 128', '128'],
    ['Final Answer: <think>hmm</think>128', '128'],
  ])('%j -> %j', (content, answer) => {
    expect(parseTextProtocolReply(content)).toMatchObject({ kind: 'final', answer });
  });

  it('lets FINAL_ANSWER win over a tool call in the same reply', () => {
    const reply = parseTextProtocolReply(
      'THOUGHT: compute\nTOOL: calculator\nINPUT: 2+2\nFINAL_ANSWER: 4',
    );
    expect(reply).toEqual({ kind: 'final', answer: '4', thought: 'compute' });
  });

  it('keeps text without any protocol markers as the answer (think blocks removed)', () => {
    expect(parseTextProtocolReply('<think>let me see</think>\nParis is the capital.')).toEqual({
      kind: 'answer',
      answer: 'Paris is the capital.',
      thought: '',
    });
  });
});

describe('parseTextProtocolReply: tool calls', () => {
  it.each([
    ['THOUGHT: compute\nTOOL: calculator\nINPUT: 15 * 7 + 23', '15 * 7 + 23'],
    ['thought: compute\ntool: calculator\ninput: 15 * 7 + 23', '15 * 7 + 23'],
    ['Thought: compute\nAction: calculator\nAction Input: 2+2', '2+2'],
    ['Action:   calculator  \nAction Input:    2+2   ', '2+2'],
    ['Action : calculator\nAction_Input : 2+2', '2+2'],
    ['**Action:** calculator\n**Action Input:** 2+2', '2+2'],
    ['- Action: calculator\n- Action Input: 2+2', '2+2'],
    ['Thought 1: compute\nAction 1: calculator\nAction Input 1: 2+2', '2+2'],
    ['TOOL:\ncalculator\nINPUT:\n2+2', '2+2'],
    ['Action: calculator\r\nAction Input: 2+2\r\n', '2+2'],
  ])('%j reads input %j', (content, input) => {
    expect(toolCall(content)).toMatchObject({ toolName: 'calculator', input });
  });

  it('reads a tool named with decorations: backticks, quotes, bold, brackets, a trailing dot', () => {
    for (const name of [
      '`calculator`',
      '"calculator"',
      '**calculator**',
      '[calculator]',
      'calculator.',
    ]) {
      expect(toolCall(`TOOL: ${name}\nINPUT: 1`).toolName).toBe('calculator');
    }
  });

  it('reads inline input: calculator(2+2), calculator("2+2") and calculator {json}', () => {
    expect(toolCall('Action: calculator(2+2)').input).toBe('2+2');
    expect(toolCall('Action: calculator("sqrt(16)")').input).toBe('"sqrt(16)"');
    expect(toolCall('TOOL: calculator {"expression": "1+1"}').input).toBe('{"expression": "1+1"}');
  });

  it('prefers the INPUT line over inline input', () => {
    expect(toolCall('Action: calculator(1)\nAction Input: 2').input).toBe('2');
  });

  it('accepts a JSON object or fenced block right after the tool line without an INPUT label', () => {
    expect(toolCall('TOOL: calculator\n{"expression": "1+1"}').input).toBe('{"expression": "1+1"}');
    expect(toolCall('TOOL: calculator\n```json\n{"expression": "1"}\n```').input).toBe(
      '{"expression": "1"}',
    );
  });

  it('reports a missing input as undefined', () => {
    expect(toolCall('THOUGHT: what time is it\nTOOL: clock').input).toBeUndefined();
  });

  it('reads a fenced input and a multi-line JSON object, and stops there', () => {
    const fenced = toolCall(
      'Action: calculator\nAction Input: ```json\n{"expression": "2+2"}\n```\nI will wait.',
    );
    expect(fenced.input).toBe('{"expression": "2+2"}');
    expect(fenced.callText).toBe(
      'Action: calculator\nAction Input: ```json\n{"expression": "2+2"}\n```',
    );
    const multiLine = toolCall('TOOL: think\nINPUT: {\n  "thought": "a } b"\n}\nextra words');
    expect(multiLine.input).toBe('{\n  "thought": "a } b"\n}');
  });

  it('stops plain-text input at a blank line', () => {
    expect(toolCall('TOOL: calculator\nINPUT: 2+2\n\nLet me wait for the result.').input).toBe(
      '2+2',
    );
  });

  it('keeps a multi-line plain-text input up to the next label', () => {
    const reply = toolCall('TOOL: think\nINPUT: first line\nsecond line\nTHOUGHT: later');
    expect(reply.input).toBe('first line\nsecond line');
  });

  it('drops a made-up observation and everything after the call from the call text', () => {
    const reply = toolCall(
      'Thought: add\nAction: calculator\nAction Input: 2+2\nObservation: 5\nThought: so it is 5',
    );
    expect(reply).toMatchObject({
      input: '2+2',
      thought: 'add',
      callText: 'Thought: add\nAction: calculator\nAction Input: 2+2',
    });
  });

  it('uses the first of several calls', () => {
    const reply = toolCall('TOOL: calculator\nINPUT: 1+1\nTOOL: think\nINPUT: hi');
    expect(reply).toMatchObject({ toolName: 'calculator', input: '1+1' });
  });

  it('does not read TOOL: inside THOUGHT prose as a call', () => {
    expect(
      parseTextProtocolReply(
        'THOUGHT: I could use a tool: calculator, but 2+2 is simply 4. The answer is 4.',
      ),
    ).toMatchObject({ kind: 'answer' });
    expect(parseTextProtocolReply('The stool: it has three legs.')).toMatchObject({
      kind: 'answer',
    });
    const reply = toolCall(
      'THOUGHT: the best tool: think is not needed\nsince action: none\nTOOL: calculator\nINPUT: 3*3',
    );
    expect(reply).toMatchObject({ toolName: 'calculator', input: '3*3' });
  });

  it('treats TOOL: none as no call', () => {
    expect(parseTextProtocolReply('THOUGHT: easy\nTOOL: none\nINPUT: none')).toMatchObject({
      kind: 'answer',
    });
  });
});

describe('resolveToolSpec', () => {
  it('matches exactly, then ignoring case and -/_, then a single tool named in the line', () => {
    expect(resolveToolSpec('calculator', '', specs)?.name).toBe('calculator');
    expect(resolveToolSpec('Calculator', '', specs)?.name).toBe('calculator');
    expect(resolveToolSpec('web-search', '', specs)?.name).toBe('web_search');
    expect(resolveToolSpec('Use', 'Use the calculator tool', specs)?.name).toBe('calculator');
    expect(resolveToolSpec('abacus', 'abacus', specs)).toBeUndefined();
    expect(resolveToolSpec('Use', 'Use think or calculator', specs)).toBeUndefined();
  });
});

describe('normalizeToolInput', () => {
  it.each([
    ['15 * 7 + 23', calculator, { expression: '15 * 7 + 23' }],
    ["'15 * 7 + 23'", calculator, { expression: '15 * 7 + 23' }],
    ['"sqrt(16)"', calculator, { expression: 'sqrt(16)' }],
    ['`2+2`', calculator, { expression: '2+2' }],
    ['{"expression": "2+2"}', calculator, { expression: '2+2' }],
    ['```json\n{"expression": "2+2"}\n```', calculator, { expression: '2+2' }],
    ['```\n2+2\n```', calculator, { expression: '2+2' }],
    ["{'expression': '2+2'}", calculator, { expression: '2+2' }],
    ['expression = 2+2', calculator, { expression: '2+2' }],
    ['expression: "2+2"', calculator, { expression: '2+2' }],
    ['cats and dogs', webSearch, { query: 'cats and dogs' }],
    ['max_results = 3', webSearch, { max_results: 3 }],
    ['anything', clock, {}],
    ['', calculator, {}],
    ['42', think, { thought: '42' }],
  ])('%j for %s', (input, spec, expected) => {
    expect(JSON.parse(normalizeToolInput(input, spec))).toEqual(expected);
  });

  it('uses JSON object text exactly as written', () => {
    expect(normalizeToolInput('{"expression":  "2+2", "extra": 1}', calculator)).toBe(
      '{"expression":  "2+2", "extra": 1}',
    );
  });

  it('gives {} for a missing input', () => {
    expect(normalizeToolInput(undefined, clock)).toBe('{}');
    expect(normalizeToolInput(undefined, calculator)).toBe('{}');
  });

  it('passes broken JSON and plain text for a tool with several text parameters on to the executor', () => {
    expect(normalizeToolInput('{"expression": 2+2', calculator)).toBe('{"expression": 2+2');
    expect(normalizeToolInput('notes.txt hello', twoStrings)).toBe('notes.txt hello');
  });

  it('gives an unknown tool its JSON object, or {} so the executor reports the unknown tool', () => {
    expect(normalizeToolInput('{"a": 1}', undefined)).toBe('{"a": 1}');
    expect(normalizeToolInput('2+2', undefined)).toBe('{}');
  });
});

describe('buildTextToolCall', () => {
  it('builds the call with the resolved name, normalised arguments and the given id', () => {
    expect(
      buildTextToolCall(toolCall('Action: Calculator\nAction Input: 2+2'), specs, 'react_1'),
    ).toEqual({
      id: 'react_1',
      name: 'calculator',
      arguments: '{"expression":"2+2"}',
    });
    expect(decide('Action: abacus\nAction Input: 2+2')).toEqual({ name: 'abacus', arguments: {} });
    expect(decide('Action: Use the calculator tool\nAction Input: expression = 3*3')).toEqual({
      name: 'calculator',
      arguments: { expression: '3*3' },
    });
  });
});
