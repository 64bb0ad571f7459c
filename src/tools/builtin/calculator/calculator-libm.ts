import { bitLength, decomposeFloat, ratioToFloat } from './calculator-numbers.js';

/**
 * Correctly rounded `log`, `log2`, `sin`, `cos`, `tan` and `pow` for finite doubles, computed in BigInt fixed point
 * with 192 fraction bits and rounded once at the end (exact integer powers, midpoints included, are computed
 * exactly). JavaScript's `Math` functions (fdlibm ports) are off by one unit in the last place for a few percent of
 * inputs; CPython calls the C library, whose functions (glibc's) are correctly rounded in all but about one case
 * in a thousand, so exact rounding reproduces Python's digits. `log10` reproduces glibc's formula instead, which is
 * not correctly rounded.
 */

/** Fraction bits of the fixed-point numbers (a fixed-point `v` stands for `v / 2**FRACTION_BITS`). */
const FRACTION_BITS = 192;
const SHIFT = BigInt(FRACTION_BITS);
const ONE = 1n << SHIFT;
/** Fraction bits of pi, enough to reduce any double's argument exactly. */
const PI_BITS = 1400;

function multiply(a: bigint, b: bigint): bigint {
  const product = a * b;
  return product >= 0n ? product >> SHIFT : -(-product >> SHIFT);
}

function divide(a: bigint, b: bigint): bigint {
  return (a << SHIFT) / b;
}

/** Returns `atanh(1 / q)` for an integer `q > 1`, scaled by `2**bits`. */
function atanhOfInverse(q: bigint, bits: bigint): bigint {
  const square = q * q;
  let power = (1n << bits) / q;
  let sum = power;
  for (let k = 3n; power !== 0n; k += 2n) {
    power /= square;
    sum += power / k;
  }
  return sum;
}

/** Returns `atan(1 / q)` for an integer `q > 1`, scaled by `2**bits`. */
function atanOfInverse(q: bigint, bits: bigint): bigint {
  const square = q * q;
  let power = (1n << bits) / q;
  let sum = power;
  for (let k = 3n, sign = -1n; power !== 0n; k += 2n, sign = -sign) {
    power /= square;
    sum += (sign * power) / k;
  }
  return sum;
}

const LN2 = 2n * atanhOfInverse(3n, SHIFT);
let piCache: { readonly halfPi: bigint; readonly twoOverPi: bigint } | undefined;

/** Returns pi/2 in fixed point and 2/pi scaled by `2**PI_BITS` (Machin's formula), computed once on first use. */
function piConstants(): { readonly halfPi: bigint; readonly twoOverPi: bigint } {
  if (piCache === undefined) {
    const bits = BigInt(PI_BITS + 16);
    const pi = (16n * atanOfInverse(5n, bits) - 4n * atanOfInverse(239n, bits)) >> 16n;
    piCache = {
      halfPi: pi >> BigInt(PI_BITS - FRACTION_BITS + 1),
      twoOverPi: (1n << BigInt(2 * PI_BITS + 1)) / pi,
    };
  }
  return piCache;
}

/** Converts a double to fixed point (exactly, unless it has bits below `2**-192`). */
function toFixed(value: number): bigint {
  const { mantissa, exponent } = decomposeFloat(value);
  const shift = exponent + FRACTION_BITS;
  const magnitude = shift >= 0 ? mantissa << BigInt(shift) : mantissa >> BigInt(-shift);
  return value < 0 ? -magnitude : magnitude;
}

/** Rounds `numerator * 2**exponent2 / denominator` (positive denominator) to the nearest double. */
function roundRatio(numerator: bigint, denominator: bigint, exponent2 = 0): number {
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const shift = BigInt(Math.abs(exponent2));
  const result =
    exponent2 >= 0
      ? ratioToFloat(magnitude << shift, denominator)
      : ratioToFloat(magnitude, denominator << shift);
  return negative ? -result : result;
}

/** Returns `e**t` for a fixed-point `t` as a fixed-point mantissa and a power of two: `e**t = m * 2**k`. */
function exponential(t: bigint): { readonly mantissa: bigint; readonly power: number } {
  const twice = (2n * t) / LN2;
  const k = twice >= 0n ? (twice + 1n) / 2n : (twice - 1n) / 2n;
  const r = t - k * LN2;
  let term = ONE;
  let sum = ONE;
  for (let n = 1n; term !== 0n; n += 1n) {
    term = multiply(term, r) / n;
    sum += term;
  }
  return { mantissa: sum, power: Number(k) };
}

/** Returns `ln x` in fixed point for a finite double `x > 0`. */
function logarithm(x: number): bigint {
  const { mantissa, exponent } = decomposeFloat(x);
  const bits = bitLength(mantissa);
  let k = exponent + bits - 1;
  let f = mantissa << BigInt(FRACTION_BITS - bits + 1);
  if (f * f > 2n * ONE * ONE) {
    f /= 2n;
    k += 1;
  }
  const guess = Math.log(Number(f) / 2 ** FRACTION_BITS);
  const { mantissa: scale, power } = exponential(-toFixed(guess));
  const g = multiply(f, power >= 0 ? scale << BigInt(power) : scale >> BigInt(-power));
  const s = divide(g - ONE, g + ONE);
  const correction = 2n * (s + multiply(multiply(s, s), s) / 3n);
  return BigInt(k) * LN2 + toFixed(guess) + correction;
}

/** Correctly rounded natural logarithm of a finite double `x > 0`. */
export function preciseLog(x: number): number {
  return roundRatio(logarithm(x), ONE);
}

/** Correctly rounded base-2 logarithm of a finite double `x > 0`. */
export function preciseLog2(x: number): number {
  return roundRatio(logarithm(x), LN2);
}

/** glibc's constants, bit for bit: 0x3FDBCB7B1526E50E (which is log10(e)), 0x3FD34413509F6000, 0x3D59FEF311F12B36. */
const IVLN10 = Math.LOG10E;
const LOG10_2HI = 0.30102999566361177;
const LOG10_2LO = 3.694239077158931e-13;

/**
 * Base-10 logarithm of a finite double `x > 0` by glibc's formula (`__ieee754_log10`), which CPython calls: glibc
 * combines a (correctly rounded) natural log of the mantissa with `log10(2)` in two parts, so its results are not
 * always correctly rounded, and this reproduces them.
 */
export function preciseLog10(x: number): number {
  const { mantissa, exponent } = decomposeFloat(x);
  const bits = bitLength(mantissa);
  const k = exponent + bits - 1;
  const below = k < 0 ? 1 : 0;
  const y = k + below;
  const z = y * LOG10_2LO + IVLN10 * preciseLog(Number(mantissa) / 2 ** (bits - 1 + below));
  return z + y * LOG10_2HI;
}

/** Reduces a finite `|x| >= 2**-27` to `r` in [-pi/4, pi/4] (fixed point) and the quadrant `n mod 4`. */
function reduce(x: number): { readonly r: bigint; readonly quadrant: number } {
  const { halfPi, twoOverPi } = piConstants();
  const { mantissa, exponent } = decomposeFloat(x);
  const product = mantissa * twoOverPi;
  const shift = BigInt(PI_BITS - exponent);
  const nearest = (product + (1n << (shift - 1n))) >> shift;
  const fraction = (product - (nearest << shift)) >> (shift - SHIFT);
  return { r: multiply(fraction, halfPi), quadrant: Number(nearest & 3n) };
}

/** Returns `sin r` and `cos r` in fixed point by their Taylor series (`|r| <= pi/4`). */
function sineAndCosine(r: bigint): { readonly sin: bigint; readonly cos: bigint } {
  const square = multiply(r, r);
  let sin = r;
  let term = r;
  for (let k = 2n; term !== 0n; k += 2n) {
    term = -multiply(term, square) / (k * (k + 1n));
    sin += term;
  }
  let cos = ONE;
  term = ONE;
  for (let k = 1n; term !== 0n; k += 2n) {
    term = -multiply(term, square) / (k * (k + 1n));
    cos += term;
  }
  return { sin, cos };
}

/** Values below this size have `sin x = tan x = x` and `cos x = 1` once rounded. */
const TINY = 2 ** -27;

/** Correctly rounded sine of a double (`NaN` for infinities and NaN). */
export function preciseSin(x: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  if (Math.abs(x) < TINY) return x;
  const { r, quadrant } = reduce(x);
  const { sin, cos } = sineAndCosine(r);
  const value = [sin, cos, -sin, -cos][quadrant] ?? sin;
  return roundRatio(x < 0 ? -value : value, ONE);
}

/** Correctly rounded cosine of a double (`NaN` for infinities and NaN). */
export function preciseCos(x: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  if (Math.abs(x) < TINY) return 1;
  const { r, quadrant } = reduce(x);
  const { sin, cos } = sineAndCosine(r);
  return roundRatio([cos, -sin, -cos, sin][quadrant] ?? cos, ONE);
}

/** Correctly rounded tangent of a double (`NaN` for infinities and NaN). */
export function preciseTan(x: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  if (Math.abs(x) < TINY) return x;
  const { r, quadrant } = reduce(x);
  const { sin, cos } = sineAndCosine(r);
  const [numerator, denominator] = quadrant % 2 === 0 ? [sin, cos] : [-cos, sin];
  const negative = (numerator < 0n !== denominator < 0n) !== x < 0;
  const magnitude = roundRatio(
    numerator < 0n ? -numerator : numerator,
    denominator < 0n ? -denominator : denominator,
  );
  return negative ? -magnitude : magnitude;
}

/** Returns `x ** y` exactly rounded for an integer `y` when the power is cheap to compute exactly. */
function exactPower(x: number, y: number): number | undefined {
  const { mantissa, exponent } = decomposeFloat(x);
  const powerOfTwo = (mantissa & (mantissa - 1n)) === 0n;
  if (!Number.isInteger(y) || (Math.abs(y) > 64 && !powerOfTwo)) return undefined;
  if (powerOfTwo) return roundRatio(1n, 1n, (exponent + bitLength(mantissa) - 1) * y);
  const power = mantissa ** BigInt(Math.abs(y));
  return y > 0 ? roundRatio(power, 1n, exponent * y) : roundRatio(1n, power, exponent * y);
}

/** Correctly rounded `x ** y` for finite `x > 0`, `x != 1` and finite `y != 0` (overflow gives `Infinity`). */
export function precisePower(x: number, y: number): number {
  const estimate = y * Math.log2(x);
  if (estimate > 1100) return Number.POSITIVE_INFINITY;
  if (estimate < -1100) return 0;
  const exact = exactPower(x, y);
  if (exact !== undefined) return exact;
  const { mantissa, exponent } = decomposeFloat(Math.abs(y));
  const scaled = mantissa * logarithm(x);
  const t = exponent >= 0 ? scaled << BigInt(exponent) : scaled >> BigInt(-exponent);
  const { mantissa: value, power } = exponential(y < 0 ? -t : t);
  return roundRatio(value, ONE, power);
}
