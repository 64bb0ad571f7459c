import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalculatorError } from './calculator-errors.js';
import {
  bigLog2,
  bitLength,
  decomposeFloat,
  formatFloat,
  formatValue,
  IntegerLimit,
  intToFloat,
  ratioToFloat,
  roundHalfEven,
  toFloat,
} from './calculator-numbers.js';

describe('formatFloat (Python repr)', () => {
  it.each([
    [0, '0.0'],
    [-0, '-0.0'],
    [1, '1.0'],
    [-2.5, '-2.5'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e15, '1000000000000000.0'],
    [1e15 + 0.5, '1000000000000000.5'],
    [9999999999999998, '9999999999999998.0'],
    [1e16, '1e+16'],
    [2 ** 60, '1.152921504606847e+18'],
    [1.5e16, '1.5e+16'],
    [1e21, '1e+21'],
    [1e22, '1e+22'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [0.0001, '0.0001'],
    [0.00012345, '0.00012345'],
    [1e-5, '1e-05'],
    [1.2345e-5, '1.2345e-05'],
    [1e-7, '1e-07'],
    [5e-324, '5e-324'],
    [1e-100, '1e-100'],
    [123456789.12345679, '123456789.12345679'],
    [Number.POSITIVE_INFINITY, 'inf'],
    [Number.NEGATIVE_INFINITY, '-inf'],
    [Number.NaN, 'nan'],
  ])('%s → %s', (input, expected) => {
    expect(formatFloat(input)).toBe(expected);
  });

  it('formats ints with str() and floats with repr()', () => {
    expect(formatValue(-12345678901234567890n)).toBe('-12345678901234567890');
    expect(formatValue(3)).toBe('3.0');
  });

  it('always reads back to the same double and marks floats with a point or an exponent', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = formatFloat(x);
        expect(Number(text)).toBe(x);
        expect(text).toMatch(/^-?(\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$/);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('integer helpers', () => {
  it('measures bit lengths and logarithms of any size', () => {
    expect([0n, 1n, -1n, 2n, 255n, 256n, -(2n ** 100n)].map(bitLength)).toEqual([
      0, 1, 1, 2, 8, 9, 101,
    ]);
    expect(bigLog2(2n ** 5000n)).toBeCloseTo(5000, 9);
    expect(bigLog2(-(10n ** 400n))).toBeCloseTo(400 * Math.log2(10), 9);
  });

  it('converts ints to floats with correct rounding, refusing overflow like Python', () => {
    expect(intToFloat(2n ** 53n + 1n)).toBe(2 ** 53);
    expect(intToFloat(2n ** 53n + 3n)).toBe(2 ** 53 + 4);
    expect(toFloat(1.5)).toBe(1.5);
    expect(() => intToFloat(2n ** 1024n)).toThrow(
      new CalculatorError('overflow', 'int too large to convert to float'),
    );
  });

  it('rounds quotients half to even', () => {
    expect(roundHalfEven(5n, 2n)).toBe(2n);
    expect(roundHalfEven(7n, 2n)).toBe(4n);
    expect(roundHalfEven(8n, 3n)).toBe(3n);
    expect(roundHalfEven(4n, 3n)).toBe(1n);
  });

  it('divides integers to correctly rounded floats, subnormals and overflow included', () => {
    expect(ratioToFloat(1n, 3n)).toBe(1 / 3);
    expect(ratioToFloat(10n ** 400n, 10n ** 399n)).toBe(10);
    expect(ratioToFloat(1n, 2n ** 1074n)).toBe(5e-324);
    expect(ratioToFloat(1n, 2n ** 1075n)).toBe(0);
    expect(ratioToFloat(3n, 2n ** 1076n)).toBe(5e-324);
    expect(ratioToFloat(2n ** 1024n, 1n)).toBe(Number.POSITIVE_INFINITY);
    expect(ratioToFloat(2n ** 1024n - 2n ** 970n, 1n)).toBe(Number.POSITIVE_INFINITY);
    expect(ratioToFloat(2n ** 1024n - 2n ** 970n - 1n, 1n)).toBe(Number.MAX_VALUE);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 53n }),
        fc.bigInt({ min: 1n, max: 2n ** 53n }),
        (n, d) => {
          expect(ratioToFloat(n, d)).toBe(Number(n) / Number(d));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('splits floats into mantissa and exponent', () => {
    expect(decomposeFloat(1)).toEqual({ mantissa: 2n ** 52n, exponent: -52 });
    expect(decomposeFloat(5e-324)).toEqual({ mantissa: 1n, exponent: -1074 });
    expect(decomposeFloat(-0.75)).toEqual({ mantissa: 3n * 2n ** 51n, exponent: -53 });
  });
});

describe('IntegerLimit', () => {
  it('accepts integers with up to maxDigits digits and refuses longer ones', () => {
    const limit = new IntegerLimit(3);
    expect(limit.check(999n)).toBe(999n);
    expect(limit.check(-999n)).toBe(-999n);
    expect(() => limit.check(1000n)).toThrow('Integer result would exceed the limit of 3 digits.');
    expect(() => limit.check(-1000n)).toThrow(CalculatorError);
    const python = new IntegerLimit(4300);
    expect(python.check(10n ** 4300n - 1n)).toBe(10n ** 4300n - 1n);
    expect(() => python.check(10n ** 4300n)).toThrow(CalculatorError);
  });

  it('refuses results known to be at least a power of two beyond the limit', () => {
    const limit = new IntegerLimit(3);
    expect(() => limit.rejectIfAtLeast(10)).not.toThrow();
    expect(() => limit.rejectIfAtLeast(11)).toThrow(CalculatorError);
    expect(limit.exceeded().kind).toBe('limit');
  });
});
