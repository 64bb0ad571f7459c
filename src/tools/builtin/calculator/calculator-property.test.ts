import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CalculatorOutcome, evaluateExpression } from './calculator-evaluate.js';
import { formatFloat } from './calculator-numbers.js';

function isOutcome(outcome: CalculatorOutcome): boolean {
  return outcome.ok
    ? typeof outcome.value === 'string' && outcome.value.length > 0
    : typeof outcome.message === 'string' &&
        outcome.message.length > 0 &&
        !outcome.message.startsWith('Error');
}

const FUNCTION_NAMES = ['abs', 'round', 'min', 'max', 'sqrt', 'log', 'log10', 'log2', 'sin', 'cos'];
const OPERATORS = ['+', '-', '*', '/', '//', '%', '**'];

const intLiteral = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.integer({ min: 0, max: 0xffff }).map((n) => `0x${n.toString(16)}`),
  fc.integer({ min: 0, max: 511 }).map((n) => `0o${n.toString(8)}`),
  fc.integer({ min: 0, max: 255 }).map((n) => `0b${n.toString(2)}`),
  fc
    .integer({ min: 1000, max: 999_999 })
    .map((n) => n.toLocaleString('en-US').replaceAll(',', '_')),
);
const floatLiteral = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }).map(formatFloat),
  fc.constantFrom('.5', '5.', '1e-3', '1E3', '1e400', '0.1', '2.5', '1e16'),
);
const atom = fc.oneof(intLiteral, floatLiteral, fc.constantFrom('pi', 'e', 'x', 'abs', 'True'));

/** Expressions of the grammar, mostly valid, with the odd unknown name or unsupported literal. */
const { expression } = fc.letrec<{ expression: string }>((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc
      .tuple(tie('expression'), fc.constantFrom(...OPERATORS), tie('expression'), fc.boolean())
      .map(([left, operator, right, spaced]) =>
        spaced ? `${left} ${operator} ${right}` : `${left}${operator}${right}`,
      ),
    fc
      .tuple(fc.constantFrom('-', '+', '--'), tie('expression'))
      .map(([sign, operand]) => `${sign}${operand}`),
    tie('expression').map((inner) => `(${inner})`),
    fc
      .tuple(fc.constantFrom(...FUNCTION_NAMES), fc.array(tie('expression'), { maxLength: 3 }))
      .map(([name, args]) => `${name}(${args.join(', ')})`),
  ),
}));

const calculatorCharacter = fc.constantFrom(
  ...'0123456789.eEjxob_+-*/%()^&|~<>=!,;:[]{}\'"# \n\t\\$@'.split(''),
  'pi',
  'sqrt(',
  'log(',
  '**',
  '//',
  'lambda',
  'import',
  'é',
  '😀',
  '\u00a0',
);
const calculatorNoise = fc
  .array(calculatorCharacter, { maxLength: 60 })
  .map((parts) => parts.join(''));

/** Inserts, deletes or replaces characters of a valid expression. */
const mutated = fc
  .tuple(
    expression,
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), calculatorCharacter), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([text, edits]) => {
    let result = text;
    for (const [at, kind, insert] of edits) {
      const index = result.length === 0 ? 0 : at % result.length;
      const removed = kind === 0 ? 0 : 1;
      result = result.slice(0, index) + (kind === 2 ? '' : insert) + result.slice(index + removed);
    }
    return result;
  });

describe('evaluateExpression properties', () => {
  it('answers every expression of the grammar without throwing', () => {
    fc.assert(
      fc.property(expression, (text) => isOutcome(evaluateExpression(text))),
      { numRuns: 1500 },
    );
  });

  it('answers random and mutated strings without throwing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) =>
        isOutcome(evaluateExpression(text)),
      ),
      {
        numRuns: 1000,
      },
    );
    fc.assert(
      fc.property(calculatorNoise, (text) => isOutcome(evaluateExpression(text))),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(mutated, (text) => isOutcome(evaluateExpression(text))),
      { numRuns: 1000 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(fc.oneof(expression, mutated), (text) => {
        expect(evaluateExpression(text)).toEqual(evaluateExpression(text));
      }),
      { numRuns: 300 },
    );
  });

  it('reads back the repr of every float, and of every int', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const repr = formatFloat(x);
        expect(Number(repr)).toBe(x);
        expect(evaluateExpression(repr)).toEqual({ ok: true, value: repr });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 200n), max: 10n ** 200n }), (n) => {
        expect(evaluateExpression(n.toString())).toEqual({ ok: true, value: n.toString() });
      }),
      { numRuns: 300 },
    );
  });
});

/** An integer expression tree, rendered fully parenthesised, with its value computed by a BigInt reference. */
interface IntCase {
  readonly text: string;
  readonly evaluate: () => bigint;
}

class ReferenceFailure extends Error {}

const LIMIT = 10n ** 4300n;

function guarded(value: bigint): bigint {
  if (value >= LIMIT || -value >= LIMIT) throw new ReferenceFailure('limit');
  return value;
}

function floorDivide(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new ReferenceFailure('zero');
  const q = a / b;
  return q * b !== a && a < 0n !== b < 0n ? q - 1n : q;
}

function combine(operator: string, a: bigint, b: bigint): bigint {
  switch (operator) {
    case '+':
      return guarded(a + b);
    case '-':
      return guarded(a - b);
    case '*':
      return guarded(a * b);
    case '//':
      return floorDivide(a, b);
    case '%':
      return a - floorDivide(a, b) * b;
    default:
      return guarded(a ** b);
  }
}

const { intCase } = fc.letrec<{ intCase: IntCase }>((tie) => ({
  intCase: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .bigInt({ min: -(10n ** 25n), max: 10n ** 25n })
      .map((n) => ({ text: `(${n})`, evaluate: () => n })),
    fc
      .tuple(tie('intCase'), fc.constantFrom('+', '-', '*', '//', '%'), tie('intCase'))
      .map(([left, operator, right]) => ({
        text: `(${left.text} ${operator} ${right.text})`,
        evaluate: () => {
          const a = left.evaluate();
          return combine(operator, a, right.evaluate());
        },
      })),
    fc.tuple(tie('intCase'), fc.integer({ min: 0, max: 6 })).map(([base, power]) => ({
      text: `(${base.text} ** ${power})`,
      evaluate: () => combine('**', base.evaluate(), BigInt(power)),
    })),
    tie('intCase').map((operand) => ({
      text: `(-${operand.text})`,
      evaluate: () => -operand.evaluate(),
    })),
  ),
}));

describe('integer arithmetic matches a BigInt reference', () => {
  it('computes +, -, *, //, %, ** and unary minus exactly, with Python floor semantics', () => {
    fc.assert(
      fc.property(intCase, (entry) => {
        let expected: CalculatorOutcome;
        try {
          expected = { ok: true, value: entry.evaluate().toString() };
        } catch (error) {
          const zero = error instanceof ReferenceFailure && error.message === 'zero';
          expected = {
            ok: false,
            message: zero
              ? 'division by zero'
              : 'Integer result would exceed the limit of 4300 digits.',
          };
        }
        expect(evaluateExpression(entry.text)).toEqual(expected);
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps (a // b) * b + a % b == a with the remainder signed like the divisor', () => {
    fc.assert(
      fc.property(
        fc.bigInt(),
        fc.bigInt().filter((n) => n !== 0n),
        (a, b) => {
          const quotient = BigInt(
            (evaluateExpression(`(${a}) // (${b})`) as { value: string }).value,
          );
          const remainder = BigInt(
            (evaluateExpression(`(${a}) % (${b})`) as { value: string }).value,
          );
          expect(quotient * b + remainder).toBe(a);
          expect(remainder === 0n || remainder < 0n === b < 0n).toBe(true);
          expect(remainder < 0n ? -remainder : remainder).toBeLessThan(b < 0n ? -b : b);
        },
      ),
      { numRuns: 300 },
    );
  });
});
