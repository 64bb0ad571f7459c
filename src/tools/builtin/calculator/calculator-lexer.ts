import { CalculatorError } from './calculator-errors.js';
import type { IntegerLimit, PyValue } from './calculator-numbers.js';

/** A token of an expression; `position` is the 0-based offset of its first character in the source. */
export type Token =
  | {
      readonly kind: 'number';
      readonly text: string;
      readonly position: number;
      readonly value: PyValue;
    }
  | {
      readonly kind: 'name' | 'operator' | 'string' | 'newline' | 'end';
      readonly text: string;
      readonly position: number;
    };

/** Operators and punctuation Python knows, longest first, so that the parser can name what it refuses. */
// biome-ignore format: one group of operators per line reads better than one operator per line
const OPERATORS: readonly string[] = [
  '**=', '//=', '>>=', '<<=', '...',
  '**', '//', '<<', '>>', '<=', '>=', '==', '!=', ':=', '->',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@=',
  '+', '-', '*', '/', '%', '(', ')', ',', '^', '&', '|', '~', '@',
  '<', '>', '=', '.', '[', ']', '{', '}', ':', ';', '!',
];

const IDENTIFIER_START = /[\p{L}\p{Nl}_]/u;
const IDENTIFIER = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/uy;
const IDENTIFIER_PART = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u;
const DECIMAL = /(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/y;
const PREFIXED_BODY = /[0-9A-Za-z_]*/y;
const RADIXES: Readonly<Record<string, { readonly name: string; readonly digits: RegExp }>> = {
  x: { name: 'hexadecimal', digits: /^(?:_?[0-9a-f])+$/i },
  o: { name: 'octal', digits: /^(?:_?[0-7])+$/ },
  b: { name: 'binary', digits: /^(?:_?[01])+$/ },
};
const OPENING = new Set(['(', '[', '{']);
const CLOSING = new Set([')', ']', '}']);

/** Returns the error for malformed input at a 0-based offset, worded like Python's `SyntaxError`. */
export function syntaxError(position: number, detail: string): CalculatorError {
  return new CalculatorError('syntax', `invalid syntax at position ${position + 1}: ${detail}`);
}

function isLineBreak(char: string): boolean {
  return char === '\n' || char === '\r';
}

function isSpace(char: string): boolean {
  return /\s/u.test(char) && !isLineBreak(char);
}

/** Splits an expression into tokens on demand, following Python's lexical rules for the supported subset. */
export class CalculatorLexer {
  private readonly source: string;
  private readonly limit: IntegerLimit;
  private index = 0;
  private depth = 0;
  private started = false;

  /** Creates a lexer over `source` whose integer literals are checked against `limit`. */
  constructor(source: string, limit: IntegerLimit) {
    this.source = source;
    this.limit = limit;
  }

  /** Returns the next token; after the last one it keeps returning an `end` token. */
  next(): Token {
    this.skipTrivia(this.depth > 0 || !this.started);
    const position = this.index;
    const char = this.source.charAt(position);
    if (position >= this.source.length) return { kind: 'end', text: '', position };
    this.started = true;
    if (isLineBreak(char)) return this.lineBreak(position);
    const next = this.source.charAt(position + 1);
    if (/\d/.test(char) || (char === '.' && /\d/.test(next))) return this.number(position);
    if (IDENTIFIER_START.test(char)) return this.name(position);
    if (char === '"' || char === "'") return this.string(position, char);
    return this.operator(position);
  }

  /** Skips spaces, comments, line continuations and, when `lineBreaks` is set, line breaks. */
  private skipTrivia(lineBreaks: boolean): void {
    const source = this.source;
    while (this.index < source.length) {
      const char = source.charAt(this.index);
      if (isSpace(char) || (lineBreaks && isLineBreak(char))) {
        this.index += 1;
      } else if (char === '#') {
        while (this.index < source.length && !isLineBreak(source.charAt(this.index)))
          this.index += 1;
      } else if (char === '\\') {
        this.lineContinuation();
      } else {
        return;
      }
    }
  }

  private lineContinuation(): void {
    const rest = this.source.slice(this.index + 1, this.index + 3);
    const length = rest.startsWith('\r\n') ? 2 : isLineBreak(rest.charAt(0)) ? 1 : 0;
    if (length === 0) {
      throw syntaxError(this.index, 'unexpected character after line continuation character');
    }
    this.index += 1 + length;
  }

  /** A line break outside brackets ends the expression if only trivia follows, else it is a token. */
  private lineBreak(position: number): Token {
    this.skipTrivia(true);
    if (this.index >= this.source.length) return { kind: 'end', text: '', position: this.index };
    this.index = position + 1;
    return { kind: 'newline', text: '\n', position };
  }

  private number(position: number): Token {
    const char = this.source.charAt(position + 1).toLowerCase();
    const radix = this.source.charAt(position) === '0' ? RADIXES[char] : undefined;
    if (radix !== undefined) return this.prefixedInteger(position, char, radix);
    DECIMAL.lastIndex = position;
    DECIMAL.test(this.source);
    this.index = DECIMAL.lastIndex;
    const text = this.source.slice(position, this.index);
    this.rejectSuffix(position, text);
    const clean = text.replaceAll('_', '');
    if (/[.eE]/.test(clean)) return { kind: 'number', text, position, value: Number(clean) };
    if (/^0+[1-9]/.test(clean)) {
      throw syntaxError(
        position,
        'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
      );
    }
    const significant = clean.replace(/^0+(?=\d)/, '');
    if (significant.length > this.limit.maxDigits) throw this.limit.exceeded();
    return { kind: 'number', text, position, value: BigInt(significant) };
  }

  /** Refuses complex literals and literals glued to letters (`2j`, `2x`, `1_`). */
  private rejectSuffix(position: number, text: string): void {
    const next = this.source.charAt(this.index);
    if (next === 'j' || next === 'J') {
      throw new CalculatorError(
        'unsupported',
        `Complex numbers ('${text}${next}' at position ${position + 1}) are not supported.`,
      );
    }
    if (next !== '' && IDENTIFIER_PART.test(next)) {
      throw syntaxError(position, 'invalid decimal literal');
    }
  }

  private prefixedInteger(
    position: number,
    prefix: string,
    radix: { readonly name: string; readonly digits: RegExp },
  ): Token {
    PREFIXED_BODY.lastIndex = position + 2;
    PREFIXED_BODY.test(this.source);
    this.index = PREFIXED_BODY.lastIndex;
    const body = this.source.slice(position + 2, this.index);
    if (!radix.digits.test(body)) throw syntaxError(position, `invalid ${radix.name} literal`);
    const value = this.limit.check(BigInt(`0${prefix}${body.replaceAll('_', '')}`));
    return { kind: 'number', text: this.source.slice(position, this.index), position, value };
  }

  private name(position: number): Token {
    IDENTIFIER.lastIndex = position;
    IDENTIFIER.test(this.source);
    this.index = IDENTIFIER.lastIndex;
    const text = this.source.slice(position, this.index).normalize('NFKC');
    return { kind: 'name', text, position };
  }

  private string(position: number, quote: string): Token {
    const end = this.source.indexOf(quote, position + 1);
    this.index = end === -1 ? this.source.length : end + 1;
    return { kind: 'string', text: this.source.slice(position, this.index), position };
  }

  private operator(position: number): Token {
    const text = OPERATORS.find((candidate) => this.source.startsWith(candidate, position));
    if (text === undefined) {
      const codePoint = this.source.codePointAt(position) ?? 0;
      const char = String.fromCodePoint(codePoint);
      const code = codePoint.toString(16).toUpperCase().padStart(4, '0');
      throw syntaxError(position, `invalid character '${char}' (U+${code})`);
    }
    this.index = position + text.length;
    if (OPENING.has(text)) this.depth += 1;
    if (CLOSING.has(text) && this.depth > 0) this.depth -= 1;
    return { kind: 'operator', text, position };
  }
}
