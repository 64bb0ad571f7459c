import { describe, expect, it } from 'vitest';
import { CalculatorError } from './calculator-errors.js';
import {
  CALCULATOR_FUNCTION_NAMES,
  callFunction,
  isCalculatorFunction,
  lookupConstant,
} from './calculator-functions.js';
import { IntegerLimit, type PyValue } from './calculator-numbers.js';

const limit = new IntegerLimit(4300);

function call(name: string, ...args: PyValue[]): PyValue {
  return callFunction(name, args, limit);
}

function failure(name: string, ...args: PyValue[]): CalculatorError {
  try {
    call(name, ...args);
  } catch (error) {
    if (error instanceof CalculatorError) return error;
    throw error;
  }
  throw new Error(`${name}(${args.join(', ')}) did not fail`);
}

describe('the function whitelist', () => {
  it('has exactly the upstream functions and constants', () => {
    expect([...CALCULATOR_FUNCTION_NAMES].sort()).toEqual([
      'abs',
      'ceil',
      'cos',
      'floor',
      'log',
      'log10',
      'log2',
      'max',
      'min',
      'round',
      'sin',
      'sqrt',
      'tan',
    ]);
    expect(lookupConstant('pi')).toBe(Math.PI);
    expect(lookupConstant('e')).toBe(Math.E);
    for (const name of ['tau', 'inf', 'nan', 'constructor', '__proto__', 'toString']) {
      expect(lookupConstant(name)).toBeUndefined();
      expect(isCalculatorFunction(name)).toBe(false);
    }
    expect(failure('eval', 1n)).toEqual(new CalculatorError('name', 'Unknown function: eval'));
  });
});

describe('Python builtins', () => {
  it('abs keeps the type', () => {
    expect(call('abs', -3n)).toBe(3n);
    expect(call('abs', -3.5)).toBe(3.5);
    expect(call('abs', -0)).toBe(0);
  });

  it('round(x) rounds half to even and returns an int', () => {
    expect(
      [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999999999999996, 1e300].map((x) => call('round', x)),
    ).toEqual([0n, 2n, 2n, 0n, -2n, -2n, 2n, BigInt(1e300)]);
    expect(call('round', 7n)).toBe(7n);
    expect(failure('round', Number.POSITIVE_INFINITY).message).toBe(
      'cannot convert float infinity to integer',
    );
    expect(failure('round', Number.NaN).message).toBe('cannot convert float NaN to integer');
  });

  it('round(x, n) rounds the exact binary value half to even', () => {
    expect(call('round', 2.675, 2n)).toBe(2.67);
    expect(call('round', 0.125, 2n)).toBe(0.12);
    expect(call('round', 0.375, 2n)).toBe(0.38);
    expect(call('round', 1234.5678, -2n)).toBe(1200);
    expect(Object.is(call('round', -0.4, 0n), -0)).toBe(true);
    expect(call('round', 5e-324, 400n)).toBe(5e-324);
    expect(call('round', 5e-324, 323n)).toBe(0);
    expect(call('round', 1.5, -400n)).toBe(0);
    expect(call('round', Number.POSITIVE_INFINITY, 2n)).toBe(Number.POSITIVE_INFINITY);
    expect(failure('round', 1.7976931348623157e308, -308n).message).toBe(
      'rounded value too large to represent',
    );
  });

  it('round(int, n) stays an int and rounds ties to even for negative n', () => {
    expect(call('round', 12345n, 3n)).toBe(12345n);
    expect(call('round', 15n, -1n)).toBe(20n);
    expect(call('round', 25n, -1n)).toBe(20n);
    expect(call('round', -35n, -1n)).toBe(-40n);
    expect(call('round', 49n, -2n)).toBe(0n);
    expect(call('round', 50n, -2n)).toBe(0n);
    expect(call('round', 150n, -2n)).toBe(200n);
    expect(call('round', 5n, -(10n ** 100n))).toBe(0n);
  });

  it('round checks its arguments', () => {
    expect(failure('round').message).toBe('round() takes 1 or 2 arguments (0 given)');
    expect(failure('round', 1n, 2n, 3n).message).toBe('round() takes 1 or 2 arguments (3 given)');
    expect(failure('round', 2.5, 1).kind).toBe('type');
  });

  it('min and max return the first extreme argument unchanged', () => {
    expect(call('max', 1n, 2.5, 2n)).toBe(2.5);
    expect(call('min', 3n, 1n, 2n)).toBe(1n);
    expect(call('max', 10n ** 20n, 1e20)).toBe(10n ** 20n);
    expect(call('max', 1e20, 10n ** 20n)).toBe(1e20);
    expect(Object.is(call('min', -0, 0), -0)).toBe(true);
    expect(call('max', Number.NaN, 1n)).toBeNaN();
    expect(call('max', 1n, Number.NaN)).toBe(1n);
    expect(failure('min').message).toBe('min() expected at least 1 argument, got 0');
    expect(failure('max', 5n).message).toBe(
      'max() of a single number is not supported: pass two or more numbers',
    );
  });
});

describe('Python math functions', () => {
  it('sqrt, sin, cos and tan work on floats and report domain errors', () => {
    expect(call('sqrt', 16n)).toBe(4);
    expect(call('sqrt', 2)).toBe(Math.SQRT2);
    expect(call('sin', 0n)).toBe(0);
    expect(call('cos', 0n)).toBe(1);
    expect(call('tan', Number.NaN)).toBeNaN();
    for (const [name, argument] of [
      ['sqrt', -1n],
      ['sqrt', Number.NEGATIVE_INFINITY],
      ['sin', Number.POSITIVE_INFINITY],
      ['cos', Number.NEGATIVE_INFINITY],
      ['tan', Number.POSITIVE_INFINITY],
    ] as const) {
      expect(failure(name, argument)).toEqual(new CalculatorError('value', 'math domain error'));
    }
    expect(failure('sin', 10n ** 400n).message).toBe('int too large to convert to float');
    expect(failure('cos').message).toBe('cos() takes exactly one argument (0 given)');
  });

  it('log, log10 and log2 handle ints of any size like CPython loghelper', () => {
    expect(call('log', 10n ** 400n)).toBe(921.0340371976182);
    expect(call('log10', 10n ** 4000n)).toBe(4000);
    expect(call('log2', 2n ** 4000n)).toBe(4000);
    expect(call('log2', 2n ** 1024n - 1n)).toBe(1024);
    expect(call('log', 8n, 2n)).toBe(3);
    expect(call('log', Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(call('log10', Number.NaN)).toBeNaN();
    for (const argument of [0n, -1n, 0, -0, -2.5, Number.NEGATIVE_INFINITY]) {
      expect(failure('log', argument).message).toBe('math domain error');
    }
    expect(failure('log', 1n, 1n)).toEqual(
      new CalculatorError('zero-division', 'division by zero'),
    );
    expect(failure('log', 0n, 1n).message).toBe('math domain error');
    expect(failure('log2', 1n, 2n).message).toBe('log2() takes exactly one argument (2 given)');
  });

  it('ceil and floor return ints', () => {
    expect(call('ceil', 2.1)).toBe(3n);
    expect(call('floor', -2.1)).toBe(-3n);
    expect(call('ceil', -0.5)).toBe(0n);
    expect(call('floor', 10n ** 30n)).toBe(10n ** 30n);
    expect(call('floor', 1e300)).toBe(BigInt(1e300));
    expect(failure('ceil', Number.POSITIVE_INFINITY).kind).toBe('overflow');
    expect(failure('floor', Number.NaN).kind).toBe('value');
    expect(() => callFunction('ceil', [1e20], new IntegerLimit(5))).toThrow(
      'Integer result would exceed the limit of 5 digits.',
    );
  });
});
