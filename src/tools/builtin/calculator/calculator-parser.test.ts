import { describe, expect, it } from 'vitest';
import { CalculatorError } from './calculator-errors.js';
import { IntegerLimit } from './calculator-numbers.js';
import { type Instruction, parseExpression } from './calculator-parser.js';

const options = { maxNestingDepth: 100, integerLimit: new IntegerLimit(4300) };

/** Renders the postfix program compactly: numbers, names, `neg`, operators, `fn:name`, `call:name/argc`. */
function postfix(source: string): string {
  return parseExpression(source, options)
    .map((instruction: Instruction) => {
      switch (instruction.op) {
        case 'number':
          return String(instruction.value);
        case 'name':
          return instruction.name;
        case 'negate':
          return 'neg';
        case 'binary':
          return instruction.operator;
        case 'function':
          return `fn:${instruction.name}`;
        case 'call':
          return `call:${instruction.name}/${instruction.argumentCount}`;
      }
      return '?';
    })
    .join(' ');
}

function parseError(source: string, maxNestingDepth = 100): CalculatorError {
  try {
    parseExpression(source, { ...options, maxNestingDepth });
  } catch (error) {
    if (error instanceof CalculatorError) return error;
    throw error;
  }
  throw new Error(`${source} parsed without error`);
}

describe('parseExpression', () => {
  it('follows Python precedence and associativity', () => {
    expect(postfix('1 + 2 * 3')).toBe('1 2 3 * +');
    expect(postfix('1 - 2 - 3')).toBe('1 2 - 3 -');
    expect(postfix('8 / 4 // 2 % 3')).toBe('8 4 / 2 // 3 %');
    expect(postfix('2 ** 3 ** 2')).toBe('2 3 2 ** **');
    expect(postfix('-2 ** 2')).toBe('2 2 ** neg');
    expect(postfix('2 ** -1')).toBe('2 1 neg **');
    expect(postfix('-2 ** -3 ** 4')).toBe('2 3 4 ** neg ** neg');
    expect(postfix('(1 + 2) * 3')).toBe('1 2 + 3 *');
    expect(postfix('-x * 2')).toBe('x neg 2 *');
  });

  it('folds runs of unary signs without recursion', () => {
    expect(postfix('--+-1')).toBe('1 neg');
    expect(postfix('+1')).toBe('1');
    expect(postfix(`${'-'.repeat(5000)}1`)).toBe('1');
  });

  it('compiles calls, checking the function name before the arguments', () => {
    expect(postfix('max(1, 2 + 3, x)')).toBe('fn:max 1 2 3 + x call:max/3');
    expect(postfix('abs()')).toBe('fn:abs call:abs/0');
    expect(postfix('min(1,)')).toBe('fn:min 1 call:min/1');
    expect(postfix('(abs)(1)')).toBe('fn:abs 1 call:abs/1');
    expect(postfix('sqrt(sqrt(16))')).toBe('fn:sqrt fn:sqrt 16 call:sqrt/1 call:sqrt/1');
  });

  it('asks for an expression when there are no tokens', () => {
    const error = parseError(' # nothing');
    expect(error.kind).toBe('empty');
    expect(error.message).toBe('No expression provided.');
  });

  it('counts parentheses and calls towards the nesting limit', () => {
    expect(postfix('((1))')).toBe('1');
    const error = parseError('abs(((1)))', 2);
    expect(error.kind).toBe('limit');
    expect(error.message).toBe(
      'Expression is nested too deeply: more than 2 levels of parentheses (the limit).',
    );
    expect(parseError(`${'('.repeat(5000)}`).kind).toBe('limit');
  });

  it.each([
    ['1 +', 'syntax', 'invalid syntax at position 4: unexpected end of expression'],
    ['(1', 'syntax', "invalid syntax at position 1: '(' was never closed"],
    ['abs(1', 'syntax', "invalid syntax at position 4: '(' was never closed"],
    ['abs(1,', 'syntax', "invalid syntax at position 4: '(' was never closed"],
    [')', 'syntax', "invalid syntax at position 1: unmatched ')'"],
    ['1 2', 'syntax', "invalid syntax at position 3: unexpected number '2'"],
    ['abs(,)', 'syntax', "invalid syntax at position 5: unexpected ','"],
    ['1 * * 2', 'syntax', "invalid syntax at position 5: unexpected '*'"],
    ['1 ! 2', 'syntax', "invalid syntax at position 3: unexpected '!'"],
    ['x.y', 'unsupported', 'Attribute access is not supported (position 2).'],
    ['x[0]', 'unsupported', 'Subscripts are not supported (position 2).'],
    ['[0]', 'unsupported', 'Lists are not supported (position 1).'],
    [
      'abs(x=1)',
      'unsupported',
      'Keyword arguments are not supported; pass arguments by position (position 6).',
    ],
    ['abs(**d)', 'unsupported', "Argument unpacking ('**') is not supported (position 5)."],
    ['1 is 1', 'unsupported', "Comparisons ('is') are not supported (position 3)."],
    [
      'yield',
      'unsupported',
      "Statements and keywords ('yield') are not supported; only a single arithmetic expression is allowed (position 1).",
    ],
    ['1 >= 2', 'unsupported', "Comparisons ('>=') are not supported (position 3)."],
    ['x **= 2', 'unsupported', "Assignments ('**=') are not supported (position 3)."],
    [
      '(1)(2)',
      'unsupported',
      'Only simple function calls such as sqrt(2) are allowed (position 4).',
    ],
  ])('refuses %j', (source, kind, message) => {
    const error = parseError(source);
    expect(error.kind).toBe(kind);
    expect(error.message).toBe(message);
  });
});
