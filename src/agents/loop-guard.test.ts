import { describe, expect, it } from 'vitest';
import { jsonEqual, LoopGuard } from './loop-guard.js';

const call = (name: string, args: unknown) => ({ name, arguments: args });

describe('LoopGuard', () => {
  it('allows two identical calls, refuses the third and stops at the fourth', () => {
    const guard = new LoopGuard();
    const verdicts = [1, 2, 3, 4].map(() => guard.observe(call('search', '{"q":"x"}')));
    expect(verdicts).toEqual(['allow', 'allow', 'refuse', 'stop']);
    expect(guard.repeats).toBe(4);
  });

  it('compares arguments after parsing: key order and whitespace do not matter', () => {
    const guard = new LoopGuard();
    expect(guard.observe(call('search', '{"q":"x","n":1}'))).toBe('allow');
    expect(guard.observe(call('search', '{ "n": 1,\n "q": "x" }'))).toBe('allow');
    expect(guard.observe(call('search', { q: 'x', n: 1 }))).toBe('refuse');
    expect(guard.repeats).toBe(3);
  });

  it('treats blank arguments as an empty object', () => {
    const guard = new LoopGuard();
    guard.observe(call('now', ''));
    guard.observe(call('now', '{}'));
    expect(guard.observe(call('now', '  '))).toBe('refuse');
  });

  it('starts counting again after any different call', () => {
    const guard = new LoopGuard();
    guard.observe(call('search', '{"q":"x"}'));
    guard.observe(call('search', '{"q":"x"}'));
    expect(guard.observe(call('search', '{"q":"y"}'))).toBe('allow');
    expect(guard.repeats).toBe(1);
    expect(guard.observe(call('fetch', '{"q":"y"}'))).toBe('allow');
    expect(guard.observe(call('fetch', '{"q":"y"}'))).toBe('allow');
    expect(guard.observe(call('fetch', '{"q":"y"}'))).toBe('refuse');
  });

  it('compares malformed JSON by its exact text', () => {
    const guard = new LoopGuard();
    guard.observe(call('calc', '{"expression": '));
    expect(guard.observe(call('calc', '{"expression":'))).toBe('allow');
    expect(guard.repeats).toBe(1);
    guard.observe(call('calc', '{"expression":'));
    expect(guard.observe(call('calc', '{"expression":'))).toBe('refuse');
  });

  it('honours custom thresholds and forgets everything on reset', () => {
    const guard = new LoopGuard({ refuseAt: 2, stopAt: 3 });
    expect(guard.observe(call('a', '{}'))).toBe('allow');
    expect(guard.observe(call('a', '{}'))).toBe('refuse');
    guard.reset();
    expect(guard.repeats).toBe(0);
    expect(guard.observe(call('a', '{}'))).toBe('allow');
    expect(guard.observe(call('a', '{}'))).toBe('refuse');
    expect(guard.observe(call('a', '{}'))).toBe('stop');
  });
});

describe('jsonEqual', () => {
  it('compares JSON values deeply', () => {
    expect(jsonEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ 0: 1 }, [1])).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('a', 'a')).toBe(true);
  });
});
