import { describe, expect, it } from 'vitest';
import { JarvisError } from './errors.js';
import { positiveNumberOption, wholeNumberOption } from './option-checks.js';

describe('wholeNumberOption', () => {
  it('returns the value, or the fallback when it is undefined', () => {
    expect(wholeNumberOption('maxTurns', undefined, 10)).toBe(10);
    expect(wholeNumberOption('maxTurns', 0, 10)).toBe(0);
    expect(wholeNumberOption('maxTurns', 7, 10)).toBe(7);
  });

  it('refuses fractions, NaN, Infinity, values below the minimum and non-numbers', () => {
    const bad: unknown[] = [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3'];
    for (const value of bad) {
      expect(() => wholeNumberOption('maxTurns', value as number, 10)).toThrow(JarvisError);
    }
    expect(() => wholeNumberOption('maxTurns', 1.5, 10)).toThrow(
      'maxTurns must be a whole number of at least 0, got 1.5',
    );
  });

  it('names a positive integer and the meaning when the minimum is 1', () => {
    expect(wholeNumberOption('n', 1, 5, { min: 1 })).toBe(1);
    expect(() => wholeNumberOption('n', 0, 5, { min: 1, meaning: 'calls per turn' })).toThrow(
      'n must be a positive integer (calls per turn), got 0',
    );
  });
});

describe('positiveNumberOption', () => {
  it('returns the value, or the fallback when it is undefined', () => {
    expect(positiveNumberOption('timeoutMs', undefined, 30)).toBe(30);
    expect(positiveNumberOption('timeoutMs', 0.5, 30)).toBe(0.5);
  });

  it('refuses zero, negatives, NaN, Infinity and non-numbers', () => {
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5'] as unknown[]) {
      expect(() => positiveNumberOption('timeoutMs', value as number, 30)).toThrow(
        /^timeoutMs must be a positive finite number, got /,
      );
    }
  });

  it('accepts Infinity when finite is false', () => {
    expect(positiveNumberOption('rate', Number.POSITIVE_INFINITY, 1, { finite: false })).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(() => positiveNumberOption('rate', 0, 1, { finite: false })).toThrow(
      'rate must be a positive number, got 0',
    );
  });
});
