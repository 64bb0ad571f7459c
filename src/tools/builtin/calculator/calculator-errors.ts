/** The family of a calculator failure, mirroring the Python exception it stands for. */
export type CalculatorErrorKind =
  | 'empty'
  | 'syntax'
  | 'unsupported'
  | 'name'
  | 'type'
  | 'value'
  | 'zero-division'
  | 'overflow'
  | 'limit';

/** An expected failure of evaluation whose message is shown to the user as is. */
export class CalculatorError extends Error {
  /** The family of the failure. */
  readonly kind: CalculatorErrorKind;

  /** Creates an error of the given kind with a user-facing message. */
  constructor(kind: CalculatorErrorKind, message: string) {
    super(message);
    this.name = 'CalculatorError';
    this.kind = kind;
  }
}

/** The message Python gives for every division by zero, shared by `/`, `//`, `%`, `**` and `log`. */
export const DIVISION_BY_ZERO = 'division by zero';

/** The message Python's math module gives for an argument outside a function's domain. */
export const MATH_DOMAIN_ERROR = 'math domain error';

/** Creates the error for a division by zero. */
export function divisionByZero(): CalculatorError {
  return new CalculatorError('zero-division', DIVISION_BY_ZERO);
}

/** Creates the error for an argument outside a math function's domain. */
export function mathDomainError(): CalculatorError {
  return new CalculatorError('value', MATH_DOMAIN_ERROR);
}
