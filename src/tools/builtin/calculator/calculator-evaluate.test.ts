import { describe, expect, it } from 'vitest';
import {
  type CalculatorOutcome,
  DEFAULT_CALCULATOR_LIMITS,
  evaluateExpression,
} from './calculator-evaluate.js';

function value(expression: string): string {
  const outcome = evaluateExpression(expression);
  if (!outcome.ok) throw new Error(`${expression} failed: ${outcome.message}`);
  return outcome.value;
}

function message(expression: string, limits?: Parameters<typeof evaluateExpression>[1]): string {
  const outcome = evaluateExpression(expression, limits);
  if (outcome.ok) throw new Error(`${expression} succeeded with ${outcome.value}`);
  return outcome.message;
}

/** The table of upstream-behaviour.md §5.1, row by row. */
const UPSTREAM_TABLE: readonly (readonly [string, string])[] = [
  ['2+3*4', '14'],
  ['3*7', '21'],
  ['10*5', '50'],
  ['3 * (4 + 5)', '27'],
  ['sqrt(144) + 3**2', '21.0'],
  ['sqrt(16)', '4.0'],
  ['10/4', '2.5'],
  ['4/2', '2.0'],
  ['10//3', '3'],
  ['-7//2', '-4'],
  ['7.5//2', '3.0'],
  ['10 % 3', '1'],
  ['-7 % 3', '2'],
  ['3 % -2', '-1'],
  ['2**10', '1024'],
  ['2**-1', '0.5'],
  ['2**0.5', '1.4142135623730951'],
  ['10**20', '100000000000000000000'],
  ['2**100', '1267650600228229401496703205376'],
  ['0.1+0.2', '0.30000000000000004'],
  ['1/3', '0.3333333333333333'],
  ['1e16', '1e+16'],
  ['2.0**60', '1.152921504606847e+18'],
  ['1e15+0.5', '1000000000000000.5'],
  ['1e-5', '1e-05'],
  ['0.0001', '0.0001'],
  ['round(2.5)', '2'],
  ['round(3.5)', '4'],
  ['round(2.567, 2)', '2.57'],
  ['ceil(2.1)', '3'],
  ['floor(-2.1)', '-3'],
  ['abs(-3)', '3'],
  ['abs(-3.0)', '3.0'],
  ['max(1, 2.5)', '2.5'],
  ['min(3,1,2)', '1'],
  ['log(e)', '1.0'],
  ['log(8, 2)', '3.0'],
  ['log10(1000)', '3.0'],
  ['log2(8)', '3.0'],
  ['sin(pi)', '1.2246467991473532e-16'],
  ['cos(0)', '1.0'],
  ['tan(0)', '0.0'],
  ['pi', '3.141592653589793'],
  ['e', '2.718281828459045'],
  ['-0.0', '-0.0'],
];

describe('evaluateExpression: the upstream table', () => {
  it.each(UPSTREAM_TABLE)('%s → %s', (expression, expected) => {
    expect(evaluateExpression(expression)).toEqual({ ok: true, value: expected });
  });

  it('refuses the complex literals upstream accepted', () => {
    expect(message('2j')).toBe("Complex numbers ('2j' at position 1) are not supported.");
    expect(message('1+2j')).toMatch(/^Complex numbers .* are not supported\.$/);
  });
});

describe('evaluateExpression: grammar', () => {
  it.each([
    ['1_000', '1000'],
    ['0x10', '16'],
    ['0o7', '7'],
    ['0b1', '1'],
    ['0XfF + 0O17 + 0B1_0', '272'],
    ['1.5', '1.5'],
    ['.5', '0.5'],
    ['5.', '5.0'],
    ['1e-3', '0.001'],
    ['1E3', '1000.0'],
    ['1e400', 'inf'],
    ['-1e400', '-inf'],
    ['1e400 - 1e400', 'nan'],
    ['00', '0'],
    ['0_0', '0'],
    ['012.5', '12.5'],
    ['-2**2', '-4'],
    ['2**-1', '0.5'],
    ['2**3**2', '512'],
    ['(2**3)**2', '64'],
    ['2**-2**2', '0.0625'],
    ['-2**-2', '-0.25'],
    ['--1', '1'],
    ['-+-2', '2'],
    ['- - - 3.0', '-3.0'],
    ['2--3', '5'],
    ['2*-3', '-6'],
    ['10 - 2 - 3', '5'],
    ['100 / 10 / 5', '2.0'],
    ['2 * 3 % 4', '2'],
    ['7 // 2 * 2', '6'],
    ['max(1, 2,)', '2'],
    ['(abs)(-2)', '2'],
    ['((1))', '1'],
  ])('%s → %s', (expression, expected) => {
    expect(value(expression)).toBe(expected);
  });

  it('accepts leading and trailing whitespace, comments and line breaks inside parentheses', () => {
    expect(value('  2+2  ')).toBe('4');
    expect(value('\n\t2 + 2\n')).toBe('4');
    expect(value('1 # a comment')).toBe('1');
    expect(value('(1 +\n 2)')).toBe('3');
    expect(value('1 \\\n + 2')).toBe('3');
  });

  it('resolves identifiers after NFKC normalisation, like Python', () => {
    expect(value('ｐｉ')).toBe('3.141592653589793');
  });
});

describe('evaluateExpression: numbers', () => {
  it.each([
    ['7//2', '3'],
    ['-7//-2', '3'],
    ['7//-2', '-4'],
    ['7%-3', '-2'],
    ['-7%-3', '-1'],
    ['-7.5//2', '-4.0'],
    ['-7.5%2', '0.5'],
    ['7.5%-2', '-0.5'],
    ['0.0%-1', '-0.0'],
    ['-0.0//1', '-0.0'],
    ['0/-5', '-0.0'],
    ['-1%1e300', '1e+300'],
    ['7//2.0', '3.0'],
    ['2**-2', '0.25'],
    ['(-2)**-3', '-0.125'],
    ['(-2.0)**3', '-8.0'],
    ['0**0', '1'],
    ['0.0**0', '1.0'],
    ['1e308*10', 'inf'],
    ['-1e308*10', '-inf'],
    ['10**400/10**399', '10.0'],
    ['2**1100/3**600', '7.24840412057269e+44'],
    ['(10**20+1)/1', '1e+20'],
    ['max(10**20, 1e20)', '100000000000000000000'],
    ['max(1e20, 10**20)', '1e+20'],
    ['abs(-2**64)', '18446744073709551616'],
  ])('%s → %s', (expression, expected) => {
    expect(value(expression)).toBe(expected);
  });

  it('formats floats like Python repr', () => {
    expect(value('1e15')).toBe('1000000000000000.0');
    expect(value('9999999999999998.0')).toBe('9999999999999998.0');
    expect(value('1e16-1')).toBe('1e+16');
    expect(value('123456789012345678.0')).toBe('1.2345678901234568e+17');
    expect(value('0.00012345')).toBe('0.00012345');
    expect(value('0.000012345')).toBe('1.2345e-05');
    expect(value('5e-324')).toBe('5e-324');
    expect(value('1.7976931348623157e308')).toBe('1.7976931348623157e+308');
    expect(value('1e100')).toBe('1e+100');
  });

  it('keeps integers exact at any size up to the digit limit', () => {
    expect(value('2**64 - 1')).toBe('18446744073709551615');
    expect(value('12345678901234567891 * 98765432109876543219')).toBe(
      (12345678901234567891n * 98765432109876543219n).toString(),
    );
    expect(value('10**4299').length).toBe(4300);
    expect(value('-(10**4299)').length).toBe(4301);
  });
});

describe('evaluateExpression: functions', () => {
  it.each([
    ['round(0.5)', '0'],
    ['round(1.5)', '2'],
    ['round(-2.5)', '-2'],
    ['round(0.125, 2)', '0.12'],
    ['round(0.375, 2)', '0.38'],
    ['round(2.675, 2)', '2.67'],
    ['round(-0.4, 0)', '-0.0'],
    ['round(25, -1)', '20'],
    ['round(35, -1)', '40'],
    ['round(-25, -1)', '-20'],
    ['round(123.456, -1)', '120.0'],
    ['round(12345, 2)', '12345'],
    ['round(5, -10**100)', '0'],
    ['round(1.5, 10**100)', '1.5'],
    ['round(1e300)', BigInt(1e300).toString()],
    ['ceil(-0.5)', '0'],
    ['floor(1e20)', '100000000000000000000'],
    ['ceil(10**30)', '1000000000000000000000000000000'],
    ['min(2, 2.0)', '2'],
    ['min(2.0, 2)', '2.0'],
    ['max(1, 2, 3, 2.5)', '3'],
    ['sqrt(2)', '1.4142135623730951'],
    ['sqrt(-0.0)', '-0.0'],
    ['sqrt(10**200)', '1e+100'],
    ['log(10**400)', '921.0340371976182'],
    ['log(2**1024)', '709.782712893384'],
    ['log10(10**400)', '400.0'],
    ['log2(2**2000)', '2000.0'],
    ['log(100, 10)', '2.0'],
    ['log(1e400)', 'inf'],
    ['sin(1e22)', '-0.8522008497671888'],
    ['tan(pi/4)', '0.9999999999999999'],
  ])('%s → %s', (expression, expected) => {
    expect(value(expression)).toBe(expected);
  });
});

describe('evaluateExpression: errors', () => {
  it.each([
    ['1/0', 'division by zero'],
    ['1.0/0', 'division by zero'],
    ['1//0', 'division by zero'],
    ['1.0//0.0', 'division by zero'],
    ['1%0', 'division by zero'],
    ['1.0%0.0', 'division by zero'],
    ['0**-1', 'division by zero'],
    ['0.0**-1', 'division by zero'],
    ['log(1, 1)', 'division by zero'],
    ['sqrt(-1)', 'math domain error'],
    ['log(0)', 'math domain error'],
    ['log(-1)', 'math domain error'],
    ['log10(-1)', 'math domain error'],
    ['sin(1e400)', 'math domain error'],
    ['x + 1', 'Unknown variable: x'],
    ['abs', 'Unknown variable: abs'],
    ['print', 'Unknown variable: print'],
    ['exec(1)', 'Unknown function: exec'],
    ['__import__(1)', 'Unknown function: __import__'],
    ['float(1)', 'Unknown function: float'],
    ['pi(2)', 'Unknown function: pi'],
    ['sqrt()', 'sqrt() takes exactly one argument (0 given)'],
    ['sqrt(1, 2)', 'sqrt() takes exactly one argument (2 given)'],
    ['abs()', 'abs() takes exactly one argument (0 given)'],
    ['log()', 'log() takes 1 or 2 arguments (0 given)'],
    ['log(1, 2, 3)', 'log() takes 1 or 2 arguments (3 given)'],
    ['round()', 'round() takes 1 or 2 arguments (0 given)'],
    ['round(2.5, 1.0)', 'round() needs an integer number of digits, not a float'],
    ['min()', 'min() expected at least 1 argument, got 0'],
    ['max(5)', 'max() of a single number is not supported: pass two or more numbers'],
    ['10.0**400', 'numerical result out of range'],
    ['2.0**1024', 'numerical result out of range'],
    ['(10**400)*1.0', 'int too large to convert to float'],
    ['sqrt(10**400)', 'int too large to convert to float'],
    ['10**400/3', 'integer division result too large for a float'],
    ['round(1e400)', 'cannot convert float infinity to integer'],
    ['floor(1e400 - 1e400)', 'cannot convert float NaN to integer'],
    ['round(1.7976931348623157e308, -308)', 'rounded value too large to represent'],
    [
      '(-8)**(1/3)',
      'A negative number cannot be raised to a fractional power (the result would be a complex number).',
    ],
    [
      '(-1)**0.5',
      'A negative number cannot be raised to a fractional power (the result would be a complex number).',
    ],
  ])('%s → %s', (expression, expected) => {
    expect(message(expression)).toBe(expected);
  });

  it.each([
    ['math.pi', 'Attribute access is not supported (position 5).'],
    ['math.sqrt(4)', 'Attribute access is not supported (position 5).'],
    ['a[1]', 'Subscripts are not supported (position 2).'],
    ['[1, 2]', 'Lists are not supported (position 1).'],
    ['{1: 2}', 'Dictionaries and sets are not supported (position 1).'],
    ['(1, 2)', 'Tuples are not supported (position 3).'],
    ['1, 2', 'Tuples are not supported (position 2).'],
    ['()', "Empty tuples ('()') are not supported (position 2)."],
    ['1 < 2', "Comparisons ('<') are not supported (position 3)."],
    ['1 == 1', "Comparisons ('==') are not supported (position 3)."],
    ['1 in 2', "Comparisons ('in') are not supported (position 3)."],
    ['1 and 2', "Boolean operators ('and') are not supported (position 3)."],
    ['1 or 2', "Boolean operators ('or') are not supported (position 3)."],
    ['not 1', "Boolean operators ('not') are not supported (position 1)."],
    ['1 if 1 else 2', "Conditional expressions ('if') are not supported (position 3)."],
    ['lambda: 1', "Lambdas ('lambda') are not supported (position 1)."],
    ['(x for x in 1)', "Comprehensions ('for') are not supported (position 4)."],
    ["'hello'", 'Strings are not supported (position 1).'],
    ['"hello" + 1', 'Strings are not supported (position 1).'],
    ["f'x'", 'Strings are not supported (position 2).'],
    [
      'round(2.567, ndigits=2)',
      'Keyword arguments are not supported; pass arguments by position (position 21).',
    ],
    ['max(*[1, 2])', "Argument unpacking ('*') is not supported (position 5)."],
    ['True', "Constant 'True' is not supported; only numbers are allowed (position 1)."],
    ['False + 1', "Constant 'False' is not supported; only numbers are allowed (position 1)."],
    ['None', "Constant 'None' is not supported; only numbers are allowed (position 1)."],
    ['...', "The ellipsis ('...') is not supported (position 1)."],
    ['2 ^ 3', "The operator '^' (bitwise XOR) is not supported; use ** for powers (position 3)."],
    ['2 & 3', "The operator '&' (bitwise AND) is not supported (position 3)."],
    ['2 | 3', "The operator '|' (bitwise OR) is not supported (position 3)."],
    ['1 << 2', "The operator '<<' (left shift) is not supported (position 3)."],
    ['8 >> 1', "The operator '>>' (right shift) is not supported (position 3)."],
    ['~1', "The operator '~' (bitwise NOT) is not supported (position 1)."],
    ['a @ b', "The operator '@' (matrix multiplication) is not supported (position 3)."],
    ['x = 1', "Assignments ('=') are not supported (position 3)."],
    ['x += 1', "Assignments ('+=') are not supported (position 3)."],
    ['(x := 1)', "Assignment expressions (':=') are not supported (position 4)."],
    ['1; 2', "Multiple statements (';') are not supported (position 2)."],
    [
      'import os',
      "Statements and keywords ('import') are not supported; only a single arithmetic expression is allowed (position 1).",
    ],
    ['abs(1)(2)', 'Only simple function calls such as sqrt(2) are allowed (position 7).'],
    ['2(3)', 'Only simple function calls such as sqrt(2) are allowed (position 2).'],
  ])('%s → %s', (expression, expected) => {
    expect(message(expression)).toBe(expected);
  });

  it.each([
    [
      '012',
      'invalid syntax at position 1: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
    ],
    ['(1+2', "invalid syntax at position 1: '(' was never closed"],
    ['max(1, 2', "invalid syntax at position 4: '(' was never closed"],
    ['1+2)', "invalid syntax at position 4: unmatched ')'"],
    ['2 + )', "invalid syntax at position 5: unmatched ')'"],
    ['abs(1 + )', "invalid syntax at position 9: unexpected ')'"],
    ['2 + ', 'invalid syntax at position 5: unexpected end of expression'],
    ['2 3', "invalid syntax at position 3: unexpected number '3'"],
    ['x y', "invalid syntax at position 3: unexpected name 'y'"],
    ['1..5', "invalid syntax at position 3: unexpected number '.5'"],
    [
      '1 +\n 2',
      'invalid syntax at position 4: unexpected line break (line breaks are only allowed inside parentheses)',
    ],
    [
      '1 \\ 2',
      'invalid syntax at position 3: unexpected character after line continuation character',
    ],
    ['2 $ 3', "invalid syntax at position 3: invalid character '$' (U+0024)"],
    ['1_', 'invalid syntax at position 1: invalid decimal literal'],
    ['1__0', 'invalid syntax at position 1: invalid decimal literal'],
    ['2x', 'invalid syntax at position 1: invalid decimal literal'],
    ['1e', 'invalid syntax at position 1: invalid decimal literal'],
    ['0x', 'invalid syntax at position 1: invalid hexadecimal literal'],
    ['0o8', 'invalid syntax at position 1: invalid octal literal'],
    ['0b2', 'invalid syntax at position 1: invalid binary literal'],
    [',', "invalid syntax at position 1: unexpected ','"],
  ])('%j → %s', (expression, expected) => {
    expect(message(expression)).toBe(expected);
  });

  it('asks for an expression when there is none', () => {
    expect(message('')).toBe('No expression provided.');
    expect(message('   \n\t ')).toBe('No expression provided.');
    expect(message('# only a comment')).toBe('No expression provided.');
  });

  it('reports a non-string input instead of throwing', () => {
    expect(message(5 as unknown as string)).toBe('The expression must be a string.');
  });

  it('never prefixes messages with "Error: "', () => {
    for (const expression of ['1/0', 'x', '(', '2j', '9**9**9']) {
      expect(message(expression)).not.toMatch(/^Error/);
    }
  });
});

describe('evaluateExpression: limits', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_CALCULATOR_LIMITS).toEqual({
      maxExpressionLength: 10_000,
      maxNestingDepth: 100,
      maxIntegerDigits: 4300,
    });
  });

  it('refuses long expressions', () => {
    expect(message('1'.padEnd(10_001, ' '))).toBe(
      'Expression is too long: 10001 characters (the limit is 10000).',
    );
    expect(message('1+1', { maxExpressionLength: 2 })).toBe(
      'Expression is too long: 3 characters (the limit is 2).',
    );
  });

  it('refuses deep nesting of parentheses and calls', () => {
    const limitMessage =
      'Expression is nested too deeply: more than 100 levels of parentheses (the limit).';
    expect(value(`${'('.repeat(100)}1${')'.repeat(100)}`)).toBe('1');
    expect(message(`${'('.repeat(101)}1${')'.repeat(101)}`)).toBe(limitMessage);
    expect(message(`${'abs('.repeat(101)}1${')'.repeat(101)}`)).toBe(limitMessage);
    expect(message('((1))', { maxNestingDepth: 1 })).toBe(
      'Expression is nested too deeply: more than 1 levels of parentheses (the limit).',
    );
  });

  it('refuses integers beyond the digit limit, checked before computing', () => {
    const limitMessage = 'Integer result would exceed the limit of 4300 digits.';
    for (const expression of [
      '9**9**9',
      '10**10**10',
      '2**2**2**2**2**2',
      '10**4300',
      '-(10**4300)',
      '10**4299 * 10',
      '(10**4000)*(10**4000)*(10**4000)',
      '9'.repeat(4301),
      `0x${'f'.repeat(4000)}`,
      `${'9'.repeat(4300)} + 1`,
      'round(10**4299 * 9, -4299) * 2',
      'floor(1e300) ** 15',
    ]) {
      expect(message(expression)).toBe(limitMessage);
    }
    expect(message('10**5', { maxIntegerDigits: 5 })).toBe(
      'Integer result would exceed the limit of 5 digits.',
    );
    expect(evaluateExpression('10**4', { maxIntegerDigits: 5 })).toEqual({
      ok: true,
      value: '10000',
    });
  });

  it('ignores limits that are not positive integers', () => {
    expect(evaluateExpression('((1))', { maxNestingDepth: Number.NaN })).toEqual({
      ok: true,
      value: '1',
    });
    expect(evaluateExpression('2**10', { maxIntegerDigits: -1 })).toEqual({
      ok: true,
      value: '1024',
    });
  });

  it('lets trivial bases have any exponent', () => {
    expect(value('1**(10**100)')).toBe('1');
    expect(value('0**(10**100)')).toBe('0');
    expect(value('(-1)**(10**100+1)')).toBe('-1');
  });
});

describe('evaluateExpression: hostile input stays fast and never throws', () => {
  const hostile: readonly (readonly [string, string])[] = [
    ['deep parentheses', `${'('.repeat(4999)}1${')'.repeat(4999)}`],
    ['unclosed parentheses', '('.repeat(10_000)],
    ['10,000 unary minuses', `${'-'.repeat(9999)}1`],
    ['long addition chain', Array.from({ length: 5000 }, () => '1').join('+')],
    ['long power tower', Array.from({ length: 3333 }, () => '2').join('**')],
    ['float power tower', Array.from({ length: 1200 }, () => '1.0001').join('**')],
    ['huge factor chain', Array.from({ length: 900 }, () => '(10**4000)').join('*')],
    ['huge sum chain', Array.from({ length: 900 }, () => '10**4000').join('+')],
    ['trigonometry of huge floats', Array.from({ length: 900 }, () => 'tan(1e300)').join('+')],
    ['logs of huge ints', Array.from({ length: 700 }, () => 'log(10**4000)').join('+')],
    ['many arguments', `max(${Array.from({ length: 4900 }, () => '1').join(',')})`],
    ['garbage', '$'.repeat(10_000)],
    ['line breaks', `(${'\n'.repeat(9990)}1)`],
  ];

  it.each(hostile)('%s', (_name, expression) => {
    expect(expression.length).toBeLessThanOrEqual(10_000);
    const started = performance.now();
    const outcome: CalculatorOutcome = evaluateExpression(expression);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(typeof outcome.ok).toBe('boolean');
  });

  it('survives a nesting limit too large for the JavaScript stack', () => {
    const deep = `${'('.repeat(4999)}1${')'.repeat(4999)}`;
    const outcome = evaluateExpression(deep, { maxNestingDepth: 1_000_000 });
    expect(outcome.ok ? outcome.value : outcome.message).toMatch(
      /^(1|The expression is too complex to evaluate\.)$/,
    );
  });
});
