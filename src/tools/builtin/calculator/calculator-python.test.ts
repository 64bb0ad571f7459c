import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from './calculator-evaluate.js';

/** One expression and what CPython 3 made of it: `str(result)`, or the name of the exception it raised. */
interface PythonCase {
  readonly expression: string;
  readonly value?: string;
  readonly error?: string;
}

interface PythonFixture {
  readonly python: string;
  readonly cases: readonly PythonCase[];
}

const fixture = JSON.parse(
  readFileSync(new URL('./__fixtures__/calculator-python.json', import.meta.url), 'utf8'),
) as PythonFixture;

/** Python's exception names and the messages our evaluator must give for them when they are this precise. */
const EXACT_MESSAGES: Readonly<Record<string, string>> = {
  ZeroDivisionError: 'division by zero',
};

describe(`evaluateExpression agrees with CPython ${fixture.python} (scripts/calculator-fixtures.py)`, () => {
  it('has a few hundred cases, values and errors of every kind', () => {
    expect(fixture.cases.length).toBeGreaterThan(500);
    const errors = new Set(fixture.cases.map((entry) => entry.error).filter(Boolean));
    expect([...errors].sort()).toEqual([
      'OverflowError',
      'SyntaxError',
      'TypeError',
      'ValueError',
      'ZeroDivisionError',
    ]);
  });

  it('gives the same str(result) for every value and an error for every exception', () => {
    const disagreements: string[] = [];
    for (const entry of fixture.cases) {
      const outcome = evaluateExpression(entry.expression);
      const ours = outcome.ok ? `value ${outcome.value}` : `error ${outcome.message}`;
      const expectedMessage = entry.error === undefined ? undefined : EXACT_MESSAGES[entry.error];
      const agrees =
        entry.value !== undefined
          ? outcome.ok && outcome.value === entry.value
          : !outcome.ok && (expectedMessage === undefined || outcome.message === expectedMessage);
      if (!agrees) {
        disagreements.push(
          `${JSON.stringify(entry.expression)}: Python ${entry.value ?? entry.error}, ours ${ours}`,
        );
      }
    }
    expect(disagreements).toEqual([]);
  });
});
