import { JarvisError } from './errors.js';

/** How `wholeNumberOption` checks a value. */
export interface WholeNumberRule {
  /** The smallest value accepted (default 0). */
  readonly min?: number;
  /** What the number means, added to the message in parentheses (e.g. "the most messages sent per run"). */
  readonly meaning?: string;
}

/** How `positiveNumberOption` checks a value. */
export interface PositiveNumberRule {
  /** Refuse `Infinity` (default true); false accepts it, e.g. for "no limit". */
  readonly finite?: boolean;
}

/**
 * Reads a whole-number option (turns, counts) of at least `rule.min`, or `fallback` when it is undefined;
 * anything else throws `invalid_argument` naming the option, what is accepted and what was given.
 */
export function wholeNumberOption(
  name: string,
  value: number | undefined,
  fallback: number,
  rule: WholeNumberRule = {},
): number {
  if (value === undefined) return fallback;
  const min = rule.min ?? 0;
  if (Number.isInteger(value) && value >= min) return value;
  const accepted = min === 1 ? 'a positive integer' : `a whole number of at least ${min}`;
  const meaning = rule.meaning === undefined ? '' : ` (${rule.meaning})`;
  throw invalidOption(`${name} must be ${accepted}${meaning}, got ${String(value)}`);
}

/**
 * Reads a positive number option (milliseconds, bytes, rates), or `fallback` when it is undefined; anything
 * else (zero, negative, NaN, not a number, and `Infinity` unless `rule.finite` is false) throws `invalid_argument`.
 */
export function positiveNumberOption(
  name: string,
  value: number | undefined,
  fallback: number,
  rule: PositiveNumberRule = {},
): number {
  if (value === undefined) return fallback;
  const finite = rule.finite ?? true;
  if (typeof value === 'number' && value > 0 && (!finite || Number.isFinite(value))) return value;
  const accepted = finite ? 'a positive finite number' : 'a positive number';
  throw invalidOption(`${name} must be ${accepted}, got ${String(value)}`);
}

function invalidOption(message: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message });
}
