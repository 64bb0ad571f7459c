import { describe, expect, it } from 'vitest';
import { CalculatorError } from './calculator-errors.js';
import { CalculatorLexer, type Token } from './calculator-lexer.js';
import { IntegerLimit } from './calculator-numbers.js';

function tokens(source: string, maxDigits = 4300): Token[] {
  const lexer = new CalculatorLexer(source, new IntegerLimit(maxDigits));
  const result: Token[] = [];
  for (let token = lexer.next(); token.kind !== 'end'; token = lexer.next()) result.push(token);
  return result;
}

function values(source: string, maxDigits = 4300): unknown[] {
  return tokens(source, maxDigits).map((token) =>
    token.kind === 'number' ? token.value : token.text,
  );
}

function lexError(source: string): CalculatorError {
  try {
    tokens(source);
  } catch (error) {
    if (error instanceof CalculatorError) return error;
    throw error;
  }
  throw new Error(`${source} lexed without error`);
}

describe('CalculatorLexer', () => {
  it('reads Python integer literals as bigints', () => {
    expect(values('0 00 0_0 7 1_000 0x1F 0XfF 0o17 0O7 0b101 0B1_0')).toEqual([
      0n,
      0n,
      0n,
      7n,
      1000n,
      31n,
      255n,
      15n,
      7n,
      5n,
      2n,
    ]);
    expect(values('123456789012345678901234567890')).toEqual([123456789012345678901234567890n]);
  });

  it('reads Python float literals as numbers', () => {
    expect(values('1.5 .5 5. 1e-3 1E3 1.e2 1_0.2_5 012.5 012e1 1e1_0 1e400')).toEqual([
      1.5,
      0.5,
      5,
      0.001,
      1000,
      100,
      10.25,
      12.5,
      120,
      1e10,
      Number.POSITIVE_INFINITY,
    ]);
  });

  it('reads operators longest first and records 0-based positions', () => {
    expect(tokens('2**-3//4').map((token) => [token.kind, token.text, token.position])).toEqual([
      ['number', '2', 0],
      ['operator', '**', 1],
      ['operator', '-', 3],
      ['number', '3', 4],
      ['operator', '//', 5],
      ['number', '4', 7],
    ]);
    expect(values('<= >= == != := ** // << >> ... -> +=')).toEqual([
      '<=',
      '>=',
      '==',
      '!=',
      ':=',
      '**',
      '//',
      '<<',
      '>>',
      '...',
      '->',
      '+=',
    ]);
  });

  it('normalises names with NFKC and keeps unicode letters', () => {
    expect(values('ｐｉ x_1 π _')).toEqual(['pi', 'x_1', 'π', '_']);
  });

  it('skips whitespace, comments and line continuations, and line breaks inside brackets', () => {
    expect(values('  1 +\t2 # comment')).toEqual([1n, '+', 2n]);
    expect(values('(1 +\n\r\n 2)')).toEqual(['(', 1n, '+', 2n, ')']);
    expect(values('1 \\\n+ 2')).toEqual([1n, '+', 2n]);
    expect(values('\n\n1\n\n# trailing\n')).toEqual([1n]);
  });

  it('turns a line break between tokens outside brackets into a token', () => {
    expect(tokens('1\n+2').map((token) => token.kind)).toEqual([
      'number',
      'newline',
      'operator',
      'number',
    ]);
  });

  it('reads a string literal as one token, for the parser to refuse', () => {
    expect(tokens("'a b' \"c").map((token) => [token.kind, token.text])).toEqual([
      ['string', "'a b'"],
      ['string', '"c'],
    ]);
  });

  it.each([
    [
      '012',
      'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
    ],
    [
      '0_7',
      'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
    ],
    ['1_', 'invalid decimal literal'],
    ['1__0', 'invalid decimal literal'],
    ['1e', 'invalid decimal literal'],
    ['1e_1', 'invalid decimal literal'],
    ['1._5', 'invalid decimal literal'],
    ['2x', 'invalid decimal literal'],
    ['0x', 'invalid hexadecimal literal'],
    ['0xg', 'invalid hexadecimal literal'],
    ['0x_', 'invalid hexadecimal literal'],
    ['0o8', 'invalid octal literal'],
    ['0b12', 'invalid binary literal'],
    ['0b1__1', 'invalid binary literal'],
    ['?', "invalid character '?' (U+003F)"],
    ['😀', "invalid character '😀' (U+1F600)"],
    ['\\x', 'unexpected character after line continuation character'],
  ])('refuses %j: %s', (source, detail) => {
    const error = lexError(source);
    expect(error.kind).toBe('syntax');
    expect(error.message).toBe(`invalid syntax at position 1: ${detail}`);
  });

  it('refuses complex literals', () => {
    const error = lexError('1 + 2.5J');
    expect(error.kind).toBe('unsupported');
    expect(error.message).toBe("Complex numbers ('2.5J' at position 5) are not supported.");
  });

  it('refuses integer literals beyond the digit limit before converting them', () => {
    expect(values('99999', 5)).toEqual([99999n]);
    expect(lexError('9'.repeat(4301)).kind).toBe('limit');
    expect(lexError(`0x${'f'.repeat(3600)}`).kind).toBe('limit');
  });

  it('keeps returning the end token', () => {
    const lexer = new CalculatorLexer('1', new IntegerLimit(10));
    lexer.next();
    expect(lexer.next()).toEqual({ kind: 'end', text: '', position: 1 });
    expect(lexer.next().kind).toBe('end');
  });
});
