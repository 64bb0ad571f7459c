import { describe, expect, it } from 'vitest';
import { parseToolArguments } from './parse-arguments.js';

describe('parseToolArguments', () => {
  it('parses JSON object text and copies objects', () => {
    expect(parseToolArguments('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    const given = { nested: { b: 2 } };
    const parsed = parseToolArguments(given);
    expect(parsed).toEqual({ ok: true, value: given });
    expect(parsed.ok && parsed.value.nested).not.toBe(given.nested);
  });

  it('treats missing or blank arguments as an empty object', () => {
    expect(parseToolArguments(undefined)).toEqual({ ok: true, value: {} });
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments(' \n ')).toEqual({ ok: true, value: {} });
  });

  it('keeps the raw text of what it could not parse', () => {
    expect(parseToolArguments('{oops')).toMatchObject({ ok: false, raw: '{oops' });
    expect(parseToolArguments([1])).toMatchObject({
      ok: false,
      raw: '[1]',
      message: 'Invalid arguments: expected a JSON object, got array.',
    });
  });

  it('never lets a __proto__ key change the prototype of the arguments', () => {
    const parsed = parseToolArguments('{"__proto__": {"polluted": true}}');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
