import { intFloorDivide, intModulo } from './calculator-arithmetic.js';
import { CalculatorError, divisionByZero, mathDomainError } from './calculator-errors.js';
import {
  preciseCos,
  preciseLog,
  preciseLog2,
  preciseLog10,
  preciseSin,
  preciseTan,
} from './calculator-libm.js';
import {
  bitLength,
  decomposeFloat,
  type IntegerLimit,
  type PyValue,
  ratioToFloat,
  roundHalfEven,
  toFloat,
} from './calculator-numbers.js';

type CalculatorFunction = (args: readonly PyValue[], limit: IntegerLimit) => PyValue;

const CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
]);

/** Returns the value of a whitelisted constant (`pi`, `e`), or `undefined` for any other name. */
export function lookupConstant(name: string): number | undefined {
  return CONSTANTS.get(name);
}

function typeError(message: string): CalculatorError {
  return new CalculatorError('type', message);
}

function single(name: string, args: readonly PyValue[]): PyValue {
  const [value] = args;
  if (args.length !== 1 || value === undefined) {
    throw typeError(`${name}() takes exactly one argument (${args.length} given)`);
  }
  return value;
}

/** Python's `math_1` wrapper: a float function that reports NaN or infinity out of finite input as a domain error. */
function mathFunction(name: string, compute: (x: number) => number): CalculatorFunction {
  return (args) => {
    const x = toFloat(single(name, args));
    const result = compute(x);
    if (Number.isNaN(result) && !Number.isNaN(x)) throw mathDomainError();
    if (!Number.isFinite(result) && Number.isFinite(x)) throw mathDomainError();
    return result;
  };
}

/** Python's `loghelper`: logs of ints of any size, floats through libm's domain rules. */
function logarithm(value: PyValue, compute: (x: number) => number): number {
  if (typeof value === 'bigint') {
    if (value <= 0n) throw mathDomainError();
    const approximation = Number(value);
    if (Number.isFinite(approximation)) return compute(approximation);
    let exponent = bitLength(value);
    let fraction = ratioToFloat(value, 1n << BigInt(exponent));
    if (fraction === 1) {
      fraction = 0.5;
      exponent += 1;
    }
    return compute(fraction) + compute(2) * exponent;
  }
  if (Number.isNaN(value) || value === Number.POSITIVE_INFINITY) return value;
  if (value <= 0) throw mathDomainError();
  return compute(value);
}

function log(args: readonly PyValue[]): PyValue {
  const [value, base] = args;
  if (value === undefined || args.length > 2) {
    throw typeError(`log() takes 1 or 2 arguments (${args.length} given)`);
  }
  const numerator = logarithm(value, preciseLog);
  if (base === undefined) return numerator;
  const denominator = logarithm(base, preciseLog);
  if (denominator === 0) throw divisionByZero();
  return numerator / denominator;
}

function floatToInt(value: number, limit: IntegerLimit): bigint {
  if (Number.isNaN(value))
    throw new CalculatorError('value', 'cannot convert float NaN to integer');
  if (!Number.isFinite(value)) {
    throw new CalculatorError('overflow', 'cannot convert float infinity to integer');
  }
  return limit.check(BigInt(value));
}

function integralFunction(name: string, compute: (x: number) => number): CalculatorFunction {
  return (args, limit) => {
    const value = single(name, args);
    return typeof value === 'bigint' ? value : floatToInt(compute(value), limit);
  };
}

/** Rounds a float to the nearest integer, ties to even, like Python's `round(float)`. */
function roundFloatToInt(value: number, limit: IntegerLimit): bigint {
  if (!Number.isFinite(value)) return floatToInt(value, limit);
  const floor = Math.floor(value);
  const fraction = value - floor;
  const up = fraction > 0.5 || (fraction === 0.5 && floor % 2 !== 0);
  return floatToInt(up ? floor + 1 : floor, limit);
}

/** Rounds a float to `digits` decimals from its exact binary value, ties to even, like CPython's `double_round`. */
function roundFloatToDigits(value: number, digits: bigint): number {
  if (!Number.isFinite(value)) return value;
  if (digits > 323n) return value;
  if (digits < -308n) return 0 * value;
  const places = Number(digits);
  const { mantissa, exponent } = decomposeFloat(value);
  let numerator = exponent > 0 ? mantissa << BigInt(exponent) : mantissa;
  let denominator = exponent < 0 ? 1n << BigInt(-exponent) : 1n;
  if (places >= 0) numerator *= 10n ** BigInt(places);
  else denominator *= 10n ** BigInt(-places);
  const scaled = roundHalfEven(numerator, denominator);
  const magnitude = Number(`${scaled}e${-places}`);
  if (!Number.isFinite(magnitude)) {
    throw new CalculatorError('overflow', 'rounded value too large to represent');
  }
  return value < 0 || Object.is(value, -0) ? -magnitude : magnitude;
}

/** Rounds an int to a multiple of `10 ** places`, ties to even, like Python's `round(int, -places)`. */
function roundIntToPowerOfTen(value: bigint, places: bigint, limit: IntegerLimit): bigint {
  if (places > BigInt(limit.maxDigits) + 2n) return 0n;
  const unit = 10n ** places;
  let quotient = intFloorDivide(value, unit);
  const twiceRemainder = intModulo(value, unit) * 2n;
  if (twiceRemainder > unit || (twiceRemainder === unit && (quotient & 1n) === 1n)) quotient += 1n;
  return limit.check(quotient * unit);
}

function round(args: readonly PyValue[], limit: IntegerLimit): PyValue {
  const [value, digits] = args;
  if (value === undefined || args.length > 2) {
    throw typeError(`round() takes 1 or 2 arguments (${args.length} given)`);
  }
  if (typeof digits === 'number') {
    throw typeError('round() needs an integer number of digits, not a float');
  }
  if (typeof value === 'bigint') {
    return digits === undefined || digits >= 0n
      ? value
      : roundIntToPowerOfTen(value, -digits, limit);
  }
  return digits === undefined ? roundFloatToInt(value, limit) : roundFloatToDigits(value, digits);
}

/** Python's `min`/`max` over two or more numbers: the first extreme value, returned unchanged. */
function extreme(name: 'min' | 'max'): CalculatorFunction {
  return (args) => {
    const [first] = args;
    if (first === undefined) throw typeError(`${name}() expected at least 1 argument, got 0`);
    if (args.length === 1) {
      throw typeError(`${name}() of a single number is not supported: pass two or more numbers`);
    }
    let best = first;
    for (const candidate of args) {
      if (name === 'max' ? candidate > best : candidate < best) best = candidate;
    }
    return best;
  };
}

function absolute(args: readonly PyValue[]): PyValue {
  const value = single('abs', args);
  if (typeof value === 'bigint') return value < 0n ? -value : value;
  return Math.abs(value);
}

const FUNCTIONS: ReadonlyMap<string, CalculatorFunction> = new Map<string, CalculatorFunction>([
  ['abs', absolute],
  ['round', round],
  ['min', extreme('min')],
  ['max', extreme('max')],
  ['sqrt', mathFunction('sqrt', Math.sqrt)],
  ['log', log],
  ['log10', (args) => logarithm(single('log10', args), preciseLog10)],
  ['log2', (args) => logarithm(single('log2', args), preciseLog2)],
  ['sin', mathFunction('sin', preciseSin)],
  ['cos', mathFunction('cos', preciseCos)],
  ['tan', mathFunction('tan', preciseTan)],
  ['ceil', integralFunction('ceil', Math.ceil)],
  ['floor', integralFunction('floor', Math.floor)],
]);

/** The names of the whitelisted functions, in the order the tool documents them. */
export const CALCULATOR_FUNCTION_NAMES: readonly string[] = [...FUNCTIONS.keys()];

/** Tells whether a name is a whitelisted function. */
export function isCalculatorFunction(name: string): boolean {
  return FUNCTIONS.has(name);
}

/** Calls a whitelisted function with already evaluated arguments. */
export function callFunction(name: string, args: readonly PyValue[], limit: IntegerLimit): PyValue {
  const implementation = FUNCTIONS.get(name);
  if (implementation === undefined) throw new CalculatorError('name', `Unknown function: ${name}`);
  return implementation(args, limit);
}
