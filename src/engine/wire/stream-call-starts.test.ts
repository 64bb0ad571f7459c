import { describe, expect, it } from 'vitest';
import { toolCallFormatsFor } from './formats/family-formats.js';
import { type CallStarts, createCallStarts, type StartDecision } from './stream-call-starts.js';

const NAMES = new Set(['get_weather', 'calculator']);

function starts(model?: string): CallStarts {
  return createCallStarts({ formats: toolCallFormatsFor(model), names: NAMES });
}

/** Runs the check of the start at the beginning of `text` (or the reply-start check) on all of it. */
function decide(text: string, model?: string, atReplyStart = false): StartDecision {
  const set = starts(model);
  const needle = set.longestAt(text, 0);
  const check = atReplyStart
    ? set.replyStart()
    : needle === undefined
      ? undefined
      : set.checkFor(needle);
  return check === undefined ? { kind: 'call' } : check.next(text, 0);
}

describe('createCallStarts', () => {
  it('finds the earliest start, the longest at one index, and a start cut off at the end', () => {
    const set = starts();
    expect(set.find('See [TOOL_CALLS][{}]', 0)).toEqual({ index: 4, needle: '[TOOL_CALLS]' });
    expect(set.find('plain prose only.', 0)).toBeUndefined();
    expect(set.partialLength('text <tool_ca', 0)).toBe(8);
    expect(set.partialLength('text done.', 0)).toBe(0);
    expect(set.beginsLonger('[TOOL_')).toBe(true);
    expect(set.beginsLonger('[the')).toBe(false);
  });

  it('reads objects and lists to their close, strings and escapes skipped', () => {
    expect(decide('{"a": "}\\"}"} more')).toEqual({ kind: 'candidate', length: 13 });
    expect(decide('{"a": ')).toEqual({ kind: 'hold' });
    expect(decide('{ 1 }')).toEqual({ kind: 'text', length: 1 });
    expect(decide('{ x }')).toEqual({ kind: 'candidate', length: 5 });
    expect(decide('[{"name": 1}] x')).toEqual({ kind: 'candidate', length: 13 });
    expect(decide('[get_weather(city="]")] x')).toEqual({ kind: 'candidate', length: 23 });
  });

  it('lets links, numbers and plain brackets pass at once', () => {
    expect(decide('[the notes](https://x.y)')).toEqual({ kind: 'text', length: 1 });
    expect(decide('[1, 2]')).toEqual({ kind: 'text', length: 1 });
    expect(decide('[get_wea')).toEqual({ kind: 'hold' });
  });

  it('reads a fence to its closing fence, also when split across pieces', () => {
    const set = starts();
    const check = set.checkFor('```');
    expect(check?.next('```ts\ncode`', 0)).toEqual({ kind: 'hold' });
    expect(check?.feed?.('`')).toEqual({ kind: 'hold' });
    expect(check?.feed?.('` after')).toEqual({ kind: 'candidate', length: 13 });
  });

  it("tells GPT-OSS's channel words and recipients from prose", () => {
    expect(decide('commentary to=functions.x', undefined)).toEqual({ kind: 'call' });
    expect(decide('commentary on it', undefined)).toEqual({ kind: 'text', length: 10 });
    expect(decide('final<|message|>', undefined)).toEqual({ kind: 'call' });
    expect(decide('final ', undefined)).toEqual({ kind: 'hold' });
    expect(decide('to=x <|channel|>', undefined)).toEqual({ kind: 'call' });
    expect(decide('to=x, y', undefined)).toEqual({ kind: 'text', length: 5 });
    expect(decide('functools [{"name"', undefined)).toEqual({ kind: 'call' });
    expect(decide('functools module', undefined)).toEqual({ kind: 'text', length: 9 });
  });

  it('holds a reply that starts as a pythonic call, a Functionary segment or stripped GPT-OSS', () => {
    expect(decide('get_weather(city="x")', undefined, true)).toEqual({ kind: 'call' });
    expect(decide('get_weather is a tool', undefined, true)).toEqual({ kind: 'text', length: 0 });
    expect(decide('Sure', undefined, true)).toEqual({ kind: 'text', length: 0 });
    expect(decide('get_w', undefined, true)).toEqual({ kind: 'hold' });
    expect(decide('all\nHi', 'functionary-small-v3.2', true)).toEqual({ kind: 'call' });
    expect(decide('all\nHi', undefined, true)).toEqual({ kind: 'text', length: 0 });
    expect(decide('analysisThe user', undefined, true)).toEqual({ kind: 'call' });
  });
});

describe('createCallStarts: where visible text begins after held markup', () => {
  it("finds each family's opener, and none for formats without one", () => {
    const set = starts('functionary-small-v3.2');
    const harmony = '<|channel|>analysis<|message|>x<|end|><|channel|>final<|message|>Hi';
    expect(set.findOpener(harmony, 0)).toEqual({ index: 38, end: harmony.length - 2 });
    expect(set.findOpener('analysisx assistantfinalHi', 0)).toEqual({ index: 10, end: 24 });
    expect(set.findOpener('<|START_RESPONSE|>Hi', 0)).toEqual({ index: 0, end: 18 });
    expect(set.findOpener('all\nHi', 0)).toEqual({ index: 0, end: 4 });
    expect(set.findOpener('all\nHi', 1)).toBeUndefined();
    expect(set.openerLength).toBe('<|channel|>final<|message|>'.length);
    const none = createCallStarts({ formats: [], names: NAMES });
    expect(none.findOpener('all\n<|START_RESPONSE|>', 0)).toBeUndefined();
    expect(none.openerLength).toBe(0);
  });

  it('holds GPT-OSS headers left by stripped tokens, and a channel word until its follower is known', () => {
    expect(starts().find('Checking.assistantcommentary to=x', 0)).toEqual({
      index: 9,
      needle: 'assistantcommentary',
    });
    expect(decide('commentary  <|channel|>')).toEqual({ kind: 'call' });
    expect(decide('commentary  to')).toEqual({ kind: 'hold' });
    expect(decide('commentary on it')).toEqual({ kind: 'text', length: 10 });
  });
});
