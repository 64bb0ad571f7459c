import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../core/index.js';
import { ToolExecutor } from '../../executor.js';
import { ThinkTool } from '../think.js';
import { CalculatorTool } from './calculator.js';

describe('CalculatorTool', () => {
  const calc = new CalculatorTool();

  it('gives the documented results (tools.md and the upstream table)', async () => {
    const cases: Array<[string, string]> = [
      ['sqrt(144) + 3**2', '21.0'],
      ['2+2', '4'],
      ['2+3*4', '14'],
      ['340 * 15 / 100', '51.0'],
      ['10/4', '2.5'],
      ['-7//2', '-4'],
      ['2**100', '1267650600228229401496703205376'],
      ['0.1+0.2', '0.30000000000000004'],
      ['round(2.5)', '2'],
      ['log(8, 2)', '3.0'],
    ];
    for (const [expression, expected] of cases) {
      const result = await calc.execute({ expression });
      expect({ expression, content: result.content, success: result.success }).toEqual({
        expression,
        content: expected,
        success: true,
      });
    }
  });

  it('reports errors as failed results with a readable message', async () => {
    expect(await calc.execute({ expression: '1/0' })).toMatchObject({
      success: false,
      errorCode: 'tool_error',
      content: 'Error: division by zero',
    });
    expect(await calc.execute({ expression: 'sqrt(-1)' })).toMatchObject({
      success: false,
      content: 'Error: math domain error',
    });
    expect(await calc.execute({ expression: 'x + 1' })).toMatchObject({
      content: 'Error: Unknown variable: x',
    });
    expect(await calc.execute({ expression: '__import__("os")' })).toMatchObject({
      success: false,
    });
  });

  it('refuses a missing, empty or non-string expression when called directly', async () => {
    expect(await calc.execute({})).toMatchObject({
      success: false,
      content: 'No expression provided.',
    });
    expect(await calc.execute({ expression: '' })).toMatchObject({
      success: false,
      content: 'No expression provided.',
    });
    expect(await calc.execute({ expression: 5 })).toMatchObject({
      success: false,
      errorCode: 'invalid_arguments',
      content: 'Error: expression must be a string, got number',
    });
  });

  it('answers a pathological expression quickly with a failed result', async () => {
    const result = await calc.execute({ expression: '9**9**9**9' });
    expect(result.success).toBe(false);
    expect(result.content).toMatch(/^Error: /);
  });

  it('has the spec of the original', () => {
    expect(calc.toOpenAIFunction()).toMatchInlineSnapshot(`
      {
        "function": {
          "description": "Evaluate a mathematical expression safely. Supports arithmetic, math functions (sqrt, log, sin, cos), and constants.",
          "name": "calculator",
          "parameters": {
            "properties": {
              "expression": {
                "description": "Math expression to evaluate (e.g. '2+3*4', 'sqrt(16)')",
                "type": "string",
              },
            },
            "required": [
              "expression",
            ],
            "type": "object",
          },
        },
        "type": "function",
      }
    `);
    expect(calc.spec).toMatchObject({
      category: 'math',
      costEstimate: 0,
      latencyEstimate: 0,
      requiresConfirmation: false,
    });
  });
});

describe('ThinkTool', () => {
  it('echoes the thought verbatim at zero cost', async () => {
    const think = new ThinkTool();
    const thought = '  Let me break this problem into steps...\n1. ';
    expect(await think.execute({ thought })).toMatchObject({
      success: true,
      content: thought,
      costUsd: 0,
    });
    expect(await think.execute({ thought: 123 })).toMatchObject({ success: true, content: '123' });
    expect(await think.execute({})).toMatchObject({ success: true, content: '' });
    expect(think.spec).toMatchObject({
      name: 'think',
      category: 'reasoning',
      costEstimate: 0,
      latencyEstimate: 0,
    });
  });

  it('works through the executor with events', async () => {
    const bus = new EventBus({ recordHistory: true });
    const executor = new ToolExecutor([new ThinkTool(), new CalculatorTool()], { bus });
    const result = await executor.execute({
      id: 't1',
      name: 'think',
      arguments: '{"thought": "step one"}',
    });
    expect(result).toMatchObject({ toolName: 'think', success: true, content: 'step one' });
    expect(result.latencySeconds).toBeGreaterThan(0);
    expect(bus.history.map((event) => event.type)).toEqual(['tool_call_start', 'tool_call_end']);
  });
});
