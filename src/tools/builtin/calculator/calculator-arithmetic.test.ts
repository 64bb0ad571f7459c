import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyBinary,
  floatFloorDivide,
  floatModulo,
  floatPower,
  intFloorDivide,
  intModulo,
  intTrueDivide,
  negate,
} from './calculator-arithmetic.js';
import { IntegerLimit } from './calculator-numbers.js';

const limit = new IntegerLimit(4300);
const inf = Number.POSITIVE_INFINITY;

describe('int arithmetic', () => {
  it('floors like Python', () => {
    expect([
      intFloorDivide(7n, 2n),
      intFloorDivide(-7n, 2n),
      intFloorDivide(7n, -2n),
      intFloorDivide(-7n, -2n),
    ]).toEqual([3n, -4n, -4n, 3n]);
    expect([
      intModulo(7n, 3n),
      intModulo(-7n, 3n),
      intModulo(7n, -3n),
      intModulo(-7n, -3n),
    ]).toEqual([1n, 2n, -2n, -1n]);
    expect(intModulo(-6n, 3n)).toBe(0n);
  });

  it('divides to a correctly rounded float with the right signed zero', () => {
    expect(intTrueDivide(1n, 3n)).toBe(1 / 3);
    expect(Object.is(intTrueDivide(0n, -5n), -0)).toBe(true);
    expect(intTrueDivide(-(10n ** 400n), 10n ** 399n)).toBe(-10);
    expect(() => intTrueDivide(10n ** 400n, 3n)).toThrow(
      'integer division result too large for a float',
    );
  });

  it('keeps int op int as int except true division and negative powers', () => {
    expect(applyBinary('+', 2n, 3n, limit)).toBe(5n);
    expect(applyBinary('*', -4n, 3n, limit)).toBe(-12n);
    expect(applyBinary('/', 4n, 2n, limit)).toBe(2);
    expect(applyBinary('**', 2n, 100n, limit)).toBe(2n ** 100n);
    expect(applyBinary('**', 2n, -2n, limit)).toBe(0.25);
    expect(applyBinary('**', -1n, 10n ** 30n + 1n, limit)).toBe(-1n);
    expect(() => applyBinary('**', 2n, 10n ** 30n, limit)).toThrow(
      'Integer result would exceed the limit of 4300 digits.',
    );
  });

  it('mixes ints and floats into floats, refusing ints beyond the float range', () => {
    expect(applyBinary('+', 1n, 0.5, limit)).toBe(1.5);
    expect(applyBinary('//', 7n, 2.0, limit)).toBe(3);
    expect(() => applyBinary('*', 10n ** 400n, 1.5, limit)).toThrow(
      'int too large to convert to float',
    );
  });

  it('refuses every division by zero', () => {
    for (const operator of ['/', '//', '%'] as const) {
      expect(() => applyBinary(operator, 1n, 0n, limit)).toThrow('division by zero');
      expect(() => applyBinary(operator, 1.5, 0, limit)).toThrow('division by zero');
      expect(() => applyBinary(operator, 1n, -0, limit)).toThrow('division by zero');
    }
    expect(() => applyBinary('**', 0n, -1n, limit)).toThrow('division by zero');
  });

  it('negates ints and floats', () => {
    expect(negate(5n)).toBe(-5n);
    expect(Object.is(negate(0), -0)).toBe(true);
  });
});

describe('float floor division and modulo (CPython float_divmod)', () => {
  it.each([
    [7.5, 2, 3, 1.5],
    [-7.5, 2, -4, 0.5],
    [7.5, -2, -4, -0.5],
    [-7.5, -2, 3, -1.5],
    [0, -1, -0, -0],
    [-0, 1, -0, 0],
    [1e308, 1e-308, inf, 3.498445546245627e-309],
    [-1, 1e300, -1, 1e300],
    [1, -1e300, -1, -1e300],
    [5.5, 0.1, 54, 0.0999999999999997],
  ])('%s // %s = %s, %s %% %s = %s', (a, b, quotient, remainder) => {
    expect(floatFloorDivide(a, b)).toBe(quotient);
    expect(floatModulo(a, b)).toBe(remainder);
  });

  it('gives NaN for infinite dividends', () => {
    expect(floatFloorDivide(inf, 2)).toBeNaN();
    expect(floatModulo(inf, 2)).toBeNaN();
    expect(floatModulo(2, inf)).toBe(2);
    expect(floatModulo(-2, inf)).toBe(inf);
  });

  it('keeps the remainder signed like the divisor and smaller than it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e12, max: 1e12, noNaN: true }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((b) => Math.abs(b) > 1e-6),
        (a, b) => {
          const remainder = floatModulo(a, b);
          const quotient = floatFloorDivide(a, b);
          expect(Number.isInteger(quotient)).toBe(true);
          expect(Math.abs(remainder)).toBeLessThanOrEqual(Math.abs(b));
          expect(remainder === 0 || remainder < 0 === b < 0).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('floatPower (CPython float_pow)', () => {
  it.each([
    [Number.NaN, 0, 1],
    [1, Number.NaN, 1],
    [1, inf, 1],
    [-1, inf, 1],
    [-1, -inf, 1],
    [0.5, inf, 0],
    [0.5, -inf, inf],
    [2, -inf, 0],
    [0, -inf, inf],
    [-inf, 3, -inf],
    [-inf, 2, inf],
    [-inf, -3, -0],
    [inf, -2, 0],
    [-0, 3, -0],
    [-0, 2, 0],
    [-2, 3, -8],
    [-2, 2, 4],
    [-1, 1e300, 1],
    [2, 0.5, Math.SQRT2],
    [2, -1074, 5e-324],
    [10, -400, 0],
  ])('%s ** %s = %s', (base, exponent, expected) => {
    expect(floatPower(base, exponent)).toBe(expected);
  });

  it('returns NaN for a NaN operand other than the special cases', () => {
    expect(floatPower(Number.NaN, 2)).toBeNaN();
    expect(floatPower(2, Number.NaN)).toBeNaN();
  });

  it('raises Python errors for zero to a negative power, overflow and complex results', () => {
    expect(() => floatPower(0, -1)).toThrow('division by zero');
    expect(() => floatPower(-0, -0.5)).toThrow('division by zero');
    expect(() => floatPower(10, 400)).toThrow('numerical result out of range');
    expect(() => floatPower(-10, 401)).toThrow('numerical result out of range');
    expect(() => floatPower(-8, 1 / 3)).toThrow(
      'A negative number cannot be raised to a fractional power (the result would be a complex number).',
    );
  });
});
