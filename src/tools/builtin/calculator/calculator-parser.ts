import type { BinaryOperator } from './calculator-arithmetic.js';
import { CalculatorError } from './calculator-errors.js';
import { CalculatorLexer, syntaxError, type Token } from './calculator-lexer.js';
import type { IntegerLimit, PyValue } from './calculator-numbers.js';

/**
 * One step of a compiled expression, run on a value stack in order (postfix form), so that evaluating never
 * recurses however long an operator chain is.
 */
export type Instruction =
  | { readonly op: 'number'; readonly value: PyValue }
  | { readonly op: 'name'; readonly name: string }
  | { readonly op: 'negate' }
  | { readonly op: 'binary'; readonly operator: BinaryOperator }
  | { readonly op: 'function'; readonly name: string }
  | { readonly op: 'call'; readonly name: string; readonly argumentCount: number };

/** Settings of the parser. */
export interface ParseOptions {
  /** The deepest allowed nesting of parentheses and calls. */
  readonly maxNestingDepth: number;
  /** The guard that integer literals must pass. */
  readonly integerLimit: IntegerLimit;
}

const SUM_OPERATORS: ReadonlySet<string> = new Set(['+', '-']);
const TERM_OPERATORS: ReadonlySet<string> = new Set(['*', '/', '//', '%']);
const BITWISE: ReadonlyMap<string, string> = new Map([
  ['^', 'bitwise XOR'],
  ['&', 'bitwise AND'],
  ['|', 'bitwise OR'],
  ['<<', 'left shift'],
  ['>>', 'right shift'],
  ['~', 'bitwise NOT'],
  ['@', 'matrix multiplication'],
]);
const COMPARISONS: ReadonlySet<string> = new Set(['<', '>', '<=', '>=', '==', '!=']);
const ASSIGNMENTS: ReadonlySet<string> = new Set([
  '=',
  '+=',
  '-=',
  '*=',
  '/=',
  '//=',
  '%=',
  '**=',
  '&=',
  '|=',
  '^=',
  '@=',
  '<<=',
  '>>=',
]);
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for ' +
    'from global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);

function unsupported(what: string, token: Token): CalculatorError {
  return new CalculatorError('unsupported', `${what} (position ${token.position + 1}).`);
}

/** Explains why a Python keyword cannot appear in a calculator expression. */
function keywordError(token: Token): CalculatorError {
  const word = token.text;
  if (word === 'True' || word === 'False' || word === 'None') {
    return unsupported(`Constant '${word}' is not supported; only numbers are allowed`, token);
  }
  if (word === 'and' || word === 'or' || word === 'not') {
    return unsupported(`Boolean operators ('${word}') are not supported`, token);
  }
  if (word === 'in' || word === 'is')
    return unsupported(`Comparisons ('${word}') are not supported`, token);
  if (word === 'if' || word === 'else') {
    return unsupported(`Conditional expressions ('${word}') are not supported`, token);
  }
  if (word === 'for') return unsupported("Comprehensions ('for') are not supported", token);
  if (word === 'lambda') return unsupported("Lambdas ('lambda') are not supported", token);
  return unsupported(
    `Statements and keywords ('${word}') are not supported; only a single arithmetic expression is allowed`,
    token,
  );
}

/** Explains an operator the grammar refuses, or returns `undefined` for a plain syntax error. */
function operatorError(token: Token, afterOperand: boolean): CalculatorError | undefined {
  const text = token.text;
  const bitwise = BITWISE.get(text);
  if (bitwise !== undefined) {
    const hint = text === '^' ? '; use ** for powers' : '';
    return unsupported(`The operator '${text}' (${bitwise}) is not supported${hint}`, token);
  }
  if (COMPARISONS.has(text)) return unsupported(`Comparisons ('${text}') are not supported`, token);
  if (ASSIGNMENTS.has(text)) return unsupported(`Assignments ('${text}') are not supported`, token);
  if (text === ':=') return unsupported("Assignment expressions (':=') are not supported", token);
  if (text === ',' && afterOperand) return unsupported('Tuples are not supported', token);
  if (text === ';') return unsupported("Multiple statements (';') are not supported", token);
  if (text === '...') return unsupported("The ellipsis ('...') is not supported", token);
  if (text === '.' && afterOperand) return unsupported('Attribute access is not supported', token);
  if (text === '[') {
    return unsupported(
      afterOperand ? 'Subscripts are not supported' : 'Lists are not supported',
      token,
    );
  }
  if (text === '{') return unsupported('Dictionaries and sets are not supported', token);
  return undefined;
}

/**
 * Builds the error for a token the grammar does not allow where it stands; `afterOperand` tells whether an
 * operand precedes it, `nested` whether it stands inside parentheses (so that a `)` there is not unmatched).
 */
function unexpected(token: Token, afterOperand: boolean, nested: boolean): CalculatorError {
  if (token.kind === 'string') return unsupported('Strings are not supported', token);
  if (token.kind === 'name' && KEYWORDS.has(token.text)) return keywordError(token);
  if (token.kind === 'operator') {
    const known = operatorError(token, afterOperand);
    if (known !== undefined) return known;
    return syntaxError(
      token.position,
      `${token.text === ')' && !nested ? 'unmatched' : 'unexpected'} '${token.text}'`,
    );
  }
  if (token.kind === 'end') return syntaxError(token.position, 'unexpected end of expression');
  if (token.kind === 'newline') {
    return syntaxError(
      token.position,
      'unexpected line break (line breaks are only allowed inside parentheses)',
    );
  }
  return syntaxError(token.position, `unexpected ${token.kind} '${token.text}'`);
}

/** Parses an expression of the calculator grammar into postfix instructions, or throws a `CalculatorError`. */
export function parseExpression(source: string, options: ParseOptions): readonly Instruction[] {
  return new Parser(source, options).parse();
}

class Parser {
  private readonly lexer: CalculatorLexer;
  private readonly maxDepth: number;
  private readonly code: Instruction[] = [];
  private token: Token;
  private depth = 0;

  constructor(source: string, options: ParseOptions) {
    this.lexer = new CalculatorLexer(source, options.integerLimit);
    this.maxDepth = options.maxNestingDepth;
    this.token = this.lexer.next();
  }

  parse(): readonly Instruction[] {
    if (this.atEnd()) throw new CalculatorError('empty', 'No expression provided.');
    this.parseSum();
    if (!this.atEnd()) throw this.unexpected(true);
    return this.code;
  }

  private unexpected(afterOperand: boolean): CalculatorError {
    return unexpected(this.token, afterOperand, this.depth > 0);
  }

  private advance(): void {
    this.token = this.lexer.next();
  }

  private atEnd(): boolean {
    return this.token.kind === 'end';
  }

  private at(operator: string): boolean {
    return this.token.kind === 'operator' && this.token.text === operator;
  }

  private atOneOf(operators: ReadonlySet<string>): string | undefined {
    const token = this.token;
    return token.kind === 'operator' && operators.has(token.text) ? token.text : undefined;
  }

  private parseSum(): void {
    this.parseTerm();
    for (let operator = this.atOneOf(SUM_OPERATORS); operator !== undefined; ) {
      this.advance();
      this.parseTerm();
      this.code.push({ op: 'binary', operator: operator as BinaryOperator });
      operator = this.atOneOf(SUM_OPERATORS);
    }
  }

  private parseTerm(): void {
    this.parseFactor();
    for (let operator = this.atOneOf(TERM_OPERATORS); operator !== undefined; ) {
      this.advance();
      this.parseFactor();
      this.code.push({ op: 'binary', operator: operator as BinaryOperator });
      operator = this.atOneOf(TERM_OPERATORS);
    }
  }

  /**
   * Parses `factor := ('+' | '-') factor | primary ['**' factor]` without recursion: `-a ** -b ** c` is read as
   * segments `(-, a) (-, b) (c)` and folded from the right into `-(a ** -(b ** c))`.
   */
  private parseFactor(): void {
    const negations: boolean[] = [];
    for (;;) {
      negations.push(this.parseSigns());
      this.parsePrimary();
      if (!this.at('**')) break;
      this.advance();
    }
    for (let index = negations.length - 1; index >= 0; index -= 1) {
      if (negations[index] === true) this.code.push({ op: 'negate' });
      if (index > 0) this.code.push({ op: 'binary', operator: '**' });
    }
  }

  /** Consumes a run of unary signs and tells whether an odd number of them were minus. */
  private parseSigns(): boolean {
    let negative = false;
    while (this.at('-') || this.at('+')) {
      if (this.at('-')) negative = !negative;
      this.advance();
    }
    return negative;
  }

  private parsePrimary(): void {
    let callee = this.parseAtom();
    for (;;) {
      if (this.at('(')) {
        if (callee === undefined) {
          throw unsupported('Only simple function calls such as sqrt(2) are allowed', this.token);
        }
        this.code.pop();
        this.parseCall(callee);
        callee = undefined;
      } else if (this.at('.') || this.at('[')) {
        throw this.unexpected(true);
      } else {
        return;
      }
    }
  }

  /** Parses a number, a name or a parenthesised expression; returns the name when the atom is a bare name. */
  private parseAtom(): string | undefined {
    const token = this.token;
    if (token.kind === 'number') {
      this.code.push({ op: 'number', value: token.value });
      this.advance();
      return undefined;
    }
    if (token.kind === 'name' && !KEYWORDS.has(token.text)) {
      this.code.push({ op: 'name', name: token.text });
      this.advance();
      return token.text;
    }
    if (this.at('(')) return this.parseGroup();
    throw this.unexpected(false);
  }

  private parseGroup(): string | undefined {
    const open = this.enter();
    if (this.at(')')) throw unsupported("Empty tuples ('()') are not supported", this.token);
    const start = this.code.length;
    this.parseSum();
    this.close(open);
    const only = this.code.length === start + 1 ? this.code[start] : undefined;
    return only?.op === 'name' ? only.name : undefined;
  }

  private parseCall(name: string): void {
    const open = this.enter();
    this.code.push({ op: 'function', name });
    let argumentCount = 0;
    while (!this.at(')')) {
      if (this.atEnd()) throw syntaxError(open.position, "'(' was never closed");
      if (this.at('*') || this.at('**')) {
        throw unsupported(`Argument unpacking ('${this.token.text}') is not supported`, this.token);
      }
      const start = this.code.length;
      this.parseSum();
      if (this.at('=') && this.code.length === start + 1 && this.code[start]?.op === 'name') {
        throw unsupported(
          'Keyword arguments are not supported; pass arguments by position',
          this.token,
        );
      }
      argumentCount += 1;
      if (!this.at(',')) break;
      this.advance();
    }
    this.close(open);
    this.code.push({ op: 'call', name, argumentCount });
  }

  /** Consumes an opening parenthesis, counting nesting depth; returns its token. */
  private enter(): Token {
    const open = this.token;
    this.depth += 1;
    if (this.depth > this.maxDepth) {
      throw new CalculatorError(
        'limit',
        `Expression is nested too deeply: more than ${this.maxDepth} levels of parentheses (the limit).`,
      );
    }
    this.advance();
    return open;
  }

  /** Consumes the closing parenthesis matching `open`. */
  private close(open: Token): void {
    if (this.atEnd()) throw syntaxError(open.position, "'(' was never closed");
    if (!this.at(')')) throw this.unexpected(true);
    this.depth -= 1;
    this.advance();
  }
}
