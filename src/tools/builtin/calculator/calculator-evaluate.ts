import { applyBinary, negate } from './calculator-arithmetic.js';
import { CalculatorError } from './calculator-errors.js';
import { callFunction, isCalculatorFunction, lookupConstant } from './calculator-functions.js';
import { formatValue, IntegerLimit, type PyValue } from './calculator-numbers.js';
import { type Instruction, parseExpression } from './calculator-parser.js';

/** Limits that keep every input cheap; all optional when calling. */
export interface CalculatorLimits {
  /** The longest accepted expression, in UTF-16 code units. */
  readonly maxExpressionLength: number;
  /** The deepest accepted nesting of parentheses and function calls. */
  readonly maxNestingDepth: number;
  /** The most decimal digits any integer (literal, intermediate or result) may have. */
  readonly maxIntegerDigits: number;
}

/** The default limits: 10,000 characters, 100 levels of nesting, and Python's own 4,300-digit `str(int)` limit. */
export const DEFAULT_CALCULATOR_LIMITS: CalculatorLimits = Object.freeze({
  maxExpressionLength: 10_000,
  maxNestingDepth: 100,
  maxIntegerDigits: 4_300,
});

/** The result of an evaluation: Python's `str(result)`, or a message (without an `Error: ` prefix). */
export type CalculatorOutcome =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly message: string };

const integerLimits = new Map<number, IntegerLimit>();

function integerLimitFor(maxDigits: number): IntegerLimit {
  let limit = integerLimits.get(maxDigits);
  if (limit === undefined) {
    if (integerLimits.size >= 16) integerLimits.clear();
    limit = new IntegerLimit(maxDigits);
    integerLimits.set(maxDigits, limit);
  }
  return limit;
}

/** Keeps a limit the caller gave when it is a positive integer, else falls back to the default. */
function pickLimit(given: number | undefined, fallback: number): number {
  return given !== undefined && Number.isSafeInteger(given) && given > 0 ? given : fallback;
}

function resolveLimits(limits: Partial<CalculatorLimits> | undefined): CalculatorLimits {
  const defaults = DEFAULT_CALCULATOR_LIMITS;
  return {
    maxExpressionLength: pickLimit(limits?.maxExpressionLength, defaults.maxExpressionLength),
    maxNestingDepth: pickLimit(limits?.maxNestingDepth, defaults.maxNestingDepth),
    maxIntegerDigits: pickLimit(limits?.maxIntegerDigits, defaults.maxIntegerDigits),
  };
}

function pop(stack: PyValue[]): PyValue {
  const value = stack.pop();
  if (value === undefined) throw new Error('calculator stack underflow');
  return value;
}

function execute(instruction: Instruction, stack: PyValue[], limit: IntegerLimit): void {
  switch (instruction.op) {
    case 'number':
      stack.push(instruction.value);
      return;
    case 'name': {
      const value = lookupConstant(instruction.name);
      if (value === undefined) {
        throw new CalculatorError('name', `Unknown variable: ${instruction.name}`);
      }
      stack.push(value);
      return;
    }
    case 'negate':
      stack.push(negate(pop(stack)));
      return;
    case 'binary': {
      const right = pop(stack);
      stack.push(applyBinary(instruction.operator, pop(stack), right, limit));
      return;
    }
    case 'function':
      if (!isCalculatorFunction(instruction.name)) {
        throw new CalculatorError('name', `Unknown function: ${instruction.name}`);
      }
      return;
    case 'call': {
      const args = stack.splice(stack.length - instruction.argumentCount);
      stack.push(callFunction(instruction.name, args, limit));
      return;
    }
  }
}

/** Runs compiled instructions on a value stack and returns the single value left. */
function run(program: readonly Instruction[], limit: IntegerLimit): PyValue {
  const stack: PyValue[] = [];
  for (const instruction of program) execute(instruction, stack, limit);
  if (stack.length !== 1) throw new Error('calculator stack imbalance');
  return pop(stack);
}

function evaluateOrThrow(expression: string, limits: CalculatorLimits): string {
  if (typeof expression !== 'string') {
    throw new CalculatorError('type', 'The expression must be a string.');
  }
  if (expression.length > limits.maxExpressionLength) {
    throw new CalculatorError(
      'limit',
      `Expression is too long: ${expression.length} characters (the limit is ${limits.maxExpressionLength}).`,
    );
  }
  const integerLimit = integerLimitFor(limits.maxIntegerDigits);
  const program = parseExpression(expression, {
    maxNestingDepth: limits.maxNestingDepth,
    integerLimit,
  });
  return formatValue(run(program, integerLimit));
}

/** Evaluates one expression of the whitelisted grammar; never throws for any string input. */
export function evaluateExpression(
  expression: string,
  limits?: Partial<CalculatorLimits>,
): CalculatorOutcome {
  try {
    return { ok: true, value: evaluateOrThrow(expression, resolveLimits(limits)) };
  } catch (error) {
    if (error instanceof CalculatorError) return { ok: false, message: error.message };
    if (error instanceof RangeError) {
      return { ok: false, message: 'The expression is too complex to evaluate.' };
    }
    return { ok: false, message: 'The expression could not be evaluated.' };
  }
}
