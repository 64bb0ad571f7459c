import { CalculatorError, divisionByZero } from './calculator-errors.js';
import { precisePower } from './calculator-libm.js';
import {
  bigLog2,
  bitLength,
  type IntegerLimit,
  type PyValue,
  ratioToFloat,
  toFloat,
} from './calculator-numbers.js';

/** A binary operator of the calculator grammar. */
export type BinaryOperator = '+' | '-' | '*' | '/' | '//' | '%' | '**';

/** Applies Python's unary minus. */
export function negate(value: PyValue): PyValue {
  return -value;
}

/** Applies a binary operator with Python 3 semantics (int stays int except `/`; mixing gives float). */
export function applyBinary(
  operator: BinaryOperator,
  left: PyValue,
  right: PyValue,
  limit: IntegerLimit,
): PyValue {
  if (typeof left === 'bigint' && typeof right === 'bigint') {
    return applyIntBinary(operator, left, right, limit);
  }
  return applyFloatBinary(operator, toFloat(left), toFloat(right));
}

function applyIntBinary(
  operator: BinaryOperator,
  left: bigint,
  right: bigint,
  limit: IntegerLimit,
): PyValue {
  switch (operator) {
    case '+':
      return limit.check(left + right);
    case '-':
      return limit.check(left - right);
    case '*':
      return intMultiply(left, right, limit);
    case '/':
      return intTrueDivide(left, right);
    case '//':
      return intFloorDivide(left, right);
    case '%':
      return intModulo(left, right);
    case '**':
      return right < 0n ? floatPower(toFloat(left), toFloat(right)) : intPower(left, right, limit);
  }
}

function applyFloatBinary(operator: BinaryOperator, left: number, right: number): number {
  switch (operator) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    case '/':
      if (right === 0) throw divisionByZero();
      return left / right;
    case '//':
      return floatFloorDivide(left, right);
    case '%':
      return floatModulo(left, right);
    case '**':
      return floatPower(left, right);
  }
}

function intMultiply(left: bigint, right: bigint, limit: IntegerLimit): bigint {
  if (left === 0n || right === 0n) return 0n;
  limit.rejectIfAtLeast(bitLength(left) + bitLength(right) - 2);
  return limit.check(left * right);
}

/** Divides two ints to a correctly rounded float, as Python's `int / int` does even for huge ints. */
export function intTrueDivide(left: bigint, right: bigint): number {
  if (right === 0n) throw divisionByZero();
  const negative = left < 0n !== right < 0n;
  const magnitude = ratioToFloat(left < 0n ? -left : left, right < 0n ? -right : right);
  if (magnitude === Number.POSITIVE_INFINITY) {
    throw new CalculatorError('overflow', 'integer division result too large for a float');
  }
  return negative ? -magnitude : magnitude;
}

/** Python's `int // int`: the quotient rounded towards minus infinity. */
export function intFloorDivide(left: bigint, right: bigint): bigint {
  if (right === 0n) throw divisionByZero();
  const quotient = left / right;
  const inexact = quotient * right !== left;
  return inexact && left < 0n !== right < 0n ? quotient - 1n : quotient;
}

/** Python's `int % int`: the remainder takes the sign of the divisor. */
export function intModulo(left: bigint, right: bigint): bigint {
  if (right === 0n) throw divisionByZero();
  const remainder = left % right;
  return remainder !== 0n && remainder < 0n !== right < 0n ? remainder + right : remainder;
}

function intPower(base: bigint, exponent: bigint, limit: IntegerLimit): bigint {
  if (exponent === 0n || base === 1n) return 1n;
  if (base === 0n) return 0n;
  if (base === -1n) return exponent % 2n === 0n ? 1n : -1n;
  limit.rejectIfAtLeast(Number(exponent) * bigLog2(base) - 2);
  return limit.check(base ** exponent);
}

function copySignOfZero(sign: number): number {
  return sign < 0 || Object.is(sign, -0) ? -0 : 0;
}

/** Python's `float % float` (CPython's float_rem): the result takes the sign of the divisor. */
export function floatModulo(left: number, right: number): number {
  if (right === 0) throw divisionByZero();
  let remainder = left % right;
  if (remainder !== 0) {
    if (right < 0 !== remainder < 0) remainder += right;
  } else {
    remainder = copySignOfZero(right);
  }
  return remainder;
}

/** Python's `float // float` (CPython's _float_div_mod), exact in the same corner cases. */
export function floatFloorDivide(left: number, right: number): number {
  if (right === 0) throw divisionByZero();
  const remainder = left % right;
  let quotient = (left - remainder) / right;
  if (remainder !== 0 && right < 0 !== remainder < 0) quotient -= 1;
  if (quotient === 0) return copySignOfZero(left / right);
  let floored = Math.floor(quotient);
  if (quotient - floored > 0.5) floored += 1;
  return floored;
}

function isOddInteger(value: number): boolean {
  return Math.abs(value) % 2 === 1;
}

/** Python's `float ** float` (CPython's float_pow) including its special cases and errors. */
export function floatPower(base: number, exponent: number): number {
  if (exponent === 0) return 1;
  if (Number.isNaN(base)) return base;
  if (Number.isNaN(exponent)) return base === 1 ? 1 : exponent;
  if (!Number.isFinite(exponent)) return infiniteExponentPower(base, exponent);
  if (!Number.isFinite(base)) {
    const odd = isOddInteger(exponent);
    if (exponent > 0) return odd ? base : Math.abs(base);
    return odd ? copySignOfZero(base) : 0;
  }
  if (base === 0) {
    if (exponent < 0) throw divisionByZero();
    return isOddInteger(exponent) ? base : 0;
  }
  return finitePower(base, exponent);
}

function infiniteExponentPower(base: number, exponent: number): number {
  const magnitude = Math.abs(base);
  if (magnitude === 1) return 1;
  return exponent > 0 === magnitude > 1 ? Math.abs(exponent) : 0;
}

function finitePower(base: number, exponent: number): number {
  let magnitude = base;
  let negateResult = false;
  if (base < 0) {
    if (exponent !== Math.floor(exponent)) {
      throw new CalculatorError(
        'value',
        'A negative number cannot be raised to a fractional power (the result would be a complex number).',
      );
    }
    magnitude = -base;
    negateResult = isOddInteger(exponent);
  }
  if (magnitude === 1) return negateResult ? -1 : 1;
  const result = precisePower(magnitude, exponent);
  if (!Number.isFinite(result)) {
    throw new CalculatorError('overflow', 'numerical result out of range');
  }
  return negateResult ? -result : result;
}
