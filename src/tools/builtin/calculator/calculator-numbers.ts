import { CalculatorError } from './calculator-errors.js';

/** A Python number: a `bigint` is a Python `int` (exact, any size), a `number` is a Python `float`. */
export type PyValue = bigint | number;

/** Tells whether a value is a Python `int`. */
export function isInt(value: PyValue): value is bigint {
  return typeof value === 'bigint';
}

/** Returns the number of bits of `|value|`, 0 for zero. */
export function bitLength(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  if (magnitude === 0n) return 0;
  const hex = magnitude.toString(16);
  const lead = Number.parseInt(hex.charAt(0), 16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(lead));
}

/** Returns `log2(|value|)` of a non-zero integer of any size, to float precision. */
export function bigLog2(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  const bits = bitLength(magnitude);
  if (bits <= 1000) return Math.log2(Number(magnitude));
  const shift = bits - 64;
  return Math.log2(Number(magnitude >> BigInt(shift))) + shift;
}

/** Converts an int to the nearest float like Python's `float(int)`, refusing ints beyond the float range. */
export function intToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) {
    throw new CalculatorError('overflow', 'int too large to convert to float');
  }
  return result;
}

/** Converts any Python number to a float, as Python does for mixed int/float arithmetic. */
export function toFloat(value: PyValue): number {
  return typeof value === 'bigint' ? intToFloat(value) : value;
}

/**
 * Returns `numerator / denominator` (a non-negative and a positive integer) correctly rounded to a float,
 * half to even, subnormals included; `Infinity` when the quotient is beyond the float range.
 */
export function ratioToFloat(numerator: bigint, denominator: bigint): number {
  if (numerator === 0n) return 0;
  let exponent = bitLength(numerator) - bitLength(denominator);
  const below =
    exponent >= 0
      ? numerator < denominator << BigInt(exponent)
      : numerator << BigInt(-exponent) < denominator;
  if (below) exponent -= 1;
  if (exponent > 1023) return Number.POSITIVE_INFINITY;
  const unit = Math.max(exponent - 52, -1074);
  const scaledNumerator = unit < 0 ? numerator << BigInt(-unit) : numerator;
  const scaledDenominator = unit > 0 ? denominator << BigInt(unit) : denominator;
  const quotient = roundHalfEven(scaledNumerator, scaledDenominator);
  return Number(quotient) * 2 ** unit;
}

/** Divides two non-negative integers (positive denominator), rounding the quotient half to even. */
export function roundHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const twiceRemainder = (numerator - quotient * denominator) * 2n;
  if (twiceRemainder > denominator) return quotient + 1n;
  if (twiceRemainder === denominator && (quotient & 1n) === 1n) return quotient + 1n;
  return quotient;
}

/** Splits a finite non-negative float into an integer mantissa and a power of two: `value = mantissa * 2**exponent`. */
export function decomposeFloat(value: number): {
  readonly mantissa: bigint;
  readonly exponent: number;
} {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | 0x10000000000000n, exponent: biased - 1075 };
}

/** Formats a float exactly like Python's `repr(float)` (shortest round-trip digits). */
export function formatFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  if (value < 0) return `-${formatFloat(-value)}`;
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const body = digits.length === 1 ? digits : `${digits.charAt(0)}.${digits.slice(1)}`;
    const magnitude = Math.abs(exponent);
    return `${body}e${exponent < 0 ? '-' : '+'}${magnitude < 10 ? '0' : ''}${magnitude}`;
  }
  const point = exponent + 1;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Formats a Python number exactly like Python's `str()`. */
export function formatValue(value: PyValue): string {
  return typeof value === 'bigint' ? value.toString() : formatFloat(value);
}

/** Guards the size of every integer the calculator produces, so that no input can make it slow. */
export class IntegerLimit {
  /** The largest number of decimal digits an integer may have. */
  readonly maxDigits: number;
  /** Integers of at least this many bits certainly exceed the limit. */
  private readonly rejectBits: number;
  /** Integers strictly between `-small` and `small` are certainly within the limit. */
  private readonly small: bigint;
  private bound: bigint | undefined;

  /** Creates a guard for integers of at most `maxDigits` decimal digits. */
  constructor(maxDigits: number) {
    this.maxDigits = maxDigits;
    this.rejectBits = Math.ceil(maxDigits * Math.log2(10)) + 1;
    this.small = 10n ** BigInt(Math.min(maxDigits, 30));
  }

  /** Returns the error for an integer beyond the limit. */
  exceeded(): CalculatorError {
    return new CalculatorError(
      'limit',
      `Integer result would exceed the limit of ${this.maxDigits} digits.`,
    );
  }

  /** Throws the limit error when a result is known to be at least `2 ** log2LowerBound`. */
  rejectIfAtLeast(log2LowerBound: number): void {
    if (log2LowerBound >= this.rejectBits) throw this.exceeded();
  }

  /** Returns the integer unchanged, or throws the limit error when it has too many digits. */
  check(value: bigint): bigint {
    if (value < this.small && value > -this.small) return value;
    const bits = bitLength(value);
    if (bits < this.rejectBits - 5) return value;
    if (bits > this.rejectBits) throw this.exceeded();
    this.bound ??= 10n ** BigInt(this.maxDigits);
    if (value >= this.bound || -value >= this.bound) throw this.exceeded();
    return value;
  }
}
