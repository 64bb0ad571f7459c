import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandRContent, commandRFormat } from './command-r.js';
import type { OfferedToolSet, ReadToolCalls } from './tool-call-format.js';

function offer(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}

const TOOLS = offer('get_weather', 'search_web');

function read(reply: string, tools: OfferedToolSet = TOOLS): ReadToolCalls | undefined {
  return commandRFormat.read(reply, tools);
}

const PARIS = '{"city":"Paris"}';

function action(...entries: string[]): string {
  return `<|START_ACTION|>[\n    ${entries.join(',\n    ')}\n]<|END_ACTION|>`;
}

const WEATHER =
  '{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}';
const SEARCH = '{"tool_call_id": "1", "tool_name": "search_web", "parameters": {"q": "Louvre"}}';

describe('commandRFormat: positive cases', () => {
  it('reads one call and drops the plan', () => {
    const reply = `<|START_THINKING|>I will look up the weather.<|END_THINKING|>${action(WEATHER)}`;
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('reads several calls in one action, without passing on the positional ids', () => {
    const found = read(action(WEATHER, SEARCH));
    expect(found?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
      { name: 'search_web', arguments: '{"q":"Louvre"}' },
    ]);
    expect(found?.calls.every((call) => call.id === undefined)).toBe(true);
  });

  it('keeps the response text around an action, without its tokens', () => {
    const reply = `<|START_RESPONSE|>Let me check that.<|END_RESPONSE|>\n${action(WEATHER)}\nMore soon.<|END_OF_TURN_TOKEN|>`;
    expect(read(reply)).toEqual({
      content: 'Let me check that.\nMore soon.',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('keeps nested parameters, unicode and multi-line values', () => {
    const entry =
      '{"tool_call_id": "0", "tool_name": "search_web", "parameters": {"q": "Zürich 🏔️", "opts": {"langs": ["de", "fr"], "deep": {"on": true}}, "text": "line 1\\nline 2"}}';
    expect(JSON.parse(read(action(entry))?.calls[0]?.arguments ?? '')).toEqual({
      q: 'Zürich 🏔️',
      opts: { langs: ['de', 'fr'], deep: { on: true } },
      text: 'line 1\nline 2',
    });
  });

  it('reads an action whose <|END_ACTION|> is missing at the end of the output', () => {
    expect(read(`<|START_ACTION|>[${WEATHER}]`)?.calls).toEqual([
      { name: 'get_weather', arguments: PARIS },
    ]);
  });

  it('reads the call after an unclosed plan', () => {
    const reply = `<|START_THINKING|>Plan: weather.${action(WEATHER)}`;
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: PARIS }],
    });
  });

  it('keeps the good entries of an action with one unknown tool', () => {
    const bad = '{"tool_call_id": "1", "tool_name": "launch_rocket", "parameters": {}}';
    expect(read(action(WEATHER, bad))?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
  });

  it('reads the name / arguments spelling too', () => {
    const entry = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
    expect(read(action(entry))?.calls).toEqual([{ name: 'get_weather', arguments: PARIS }]);
  });
});

describe('commandRFormat: negative cases', () => {
  it('reads nothing from a plain response', () => {
    expect(read('<|START_RESPONSE|>It is sunny.<|END_RESPONSE|>')).toBeUndefined();
  });

  it('leaves JSON that only shows an example alone', () => {
    expect(read(`Calls look like this: [${WEATHER}]`)).toBeUndefined();
  });

  it('does not read a call to a tool that was not offered', () => {
    const bad = '{"tool_call_id": "0", "tool_name": "launch_rocket", "parameters": {}}';
    expect(read(action(bad))).toBeUndefined();
  });

  it('keeps a truncated action in the text', () => {
    expect(
      read('<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "param'),
    ).toBeUndefined();
  });

  it('does not read an action inside a code fence explaining the format', () => {
    const reply = `<|START_RESPONSE|>The format is:\n\`\`\`\n${action(WEATHER)}\n\`\`\`<|END_RESPONSE|>`;
    expect(read(reply)).toBeUndefined();
  });

  it('does not read an action written inside the plan', () => {
    const reply = `<|START_THINKING|>I could write ${action(WEATHER)} but will not.<|END_THINKING|><|START_RESPONSE|>No need.<|END_RESPONSE|>`;
    expect(read(reply)).toBeUndefined();
  });

  it('reads nothing when no tools are offered', () => {
    expect(read(action(WEATHER), offer())).toBeUndefined();
  });
});

describe('commandRContent', () => {
  it('takes out the response tokens one kind after the other, even when that joins a new token (property)', () => {
    const START = '<|START_RESPONSE|>';
    const END = '<|END_RESPONSE|>';
    const TURN = '<|END_OF_TURN_TOKEN|>';
    // What commandRContent does for a text without a plan: the tokens taken out, a trailing end of turn dropped.
    const expected = (text: string) => {
      const visible = text.replaceAll(START, '').replaceAll(END, '');
      const trimmed = visible.trimEnd();
      return (trimmed.endsWith(TURN) ? trimmed.slice(0, -TURN.length) : visible).trim();
    };
    const piece = fc.constantFrom(
      START,
      END,
      TURN,
      '<',
      '<|',
      '|>',
      'END_RESPONSE|>',
      'x',
      ' ',
      '\n',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(commandRContent(text)).toBe(expected(text));
      }),
      { numRuns: 3000, seed: 16 },
    );
    expect(commandRContent(`<|END_${START}RESPONSE|> a`)).toBe('a');
    expect(commandRContent(`<${START}|END_RESPONSE|>`)).toBe('');
  });

  it('gives the text of a reply with no call', () => {
    expect(
      commandRContent(
        '<|START_THINKING|>Easy one.<|END_THINKING|><|START_RESPONSE|>Hello there!<|END_RESPONSE|><|END_OF_TURN_TOKEN|>',
      ),
    ).toBe('Hello there!');
    expect(commandRContent('Plain text.')).toBe('Plain text.');
  });
});

describe('commandRFormat.visibleText', () => {
  const visible = (reply: string) => commandRFormat.visibleText?.(reply);

  it('shows the response of a reply with no call, the thinking as reasoning', () => {
    expect(
      visible(
        '<|START_THINKING|>Easy one.<|END_THINKING|><|START_RESPONSE|>Hello there!<|END_RESPONSE|><|END_OF_TURN_TOKEN|>',
      ),
    ).toEqual({ content: 'Hello there!', reasoning: 'Easy one.' });
    expect(visible('<|START_RESPONSE|>Hi.')).toEqual({ content: 'Hi.' });
    expect(visible('<|START_THINKING|>Unclosed plan<|START_RESPONSE|>Hi.')).toEqual({
      content: 'Hi.',
      reasoning: 'Unclosed plan',
    });
  });

  it('leaves prose alone, and an action that did not read as written', () => {
    expect(visible('Plain text.')).toBeUndefined();
    expect(visible('<|START_RESPONSE|>x<|START_ACTION|>[{"tool_name": "nope"}]')).toEqual({
      content: 'x<|START_ACTION|>[{"tool_name": "nope"}]',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Fuzz: never throws, calls are offered tools with object arguments, linear time

const VALID = `<|START_THINKING|>plan<|END_THINKING|>${action(WEATHER, SEARCH)}`;
const FRAGMENTS = [
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '<|START_THINKING|>',
  '<|END_THINKING|>',
  '<|START_RESPONSE|>',
  '<|END_RESPONSE|>',
  '```',
  WEATHER,
  '"',
  '[',
  '{',
  '}',
];

function checkResult(found: ReadToolCalls | undefined): void {
  for (const call of found?.calls ?? []) {
    expect(TOOLS.names.has(call.name)).toBe(true);
    expect(typeof JSON.parse(call.arguments)).toBe('object');
  }
}

describe('commandRFormat: fuzz', () => {
  it('never throws on random text and random splices of markers into valid replies', () => {
    const piece = fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.nat(VALID.length),
        fc.constantFrom(...FRAGMENTS),
        (pieces, at, marker) => {
          checkResult(read(pieces.join('')));
          checkResult(read(VALID.slice(0, at) + marker + VALID.slice(at)));
          expect(typeof commandRContent(pieces.join(''))).toBe('string');
          expect(commandRFormat.visibleText?.(pieces.join(''))?.content ?? '').not.toContain(
            '<|START_RESPONSE|>',
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads 200 KB of adversarial input in linear time', () => {
    const size = 200_000;
    const repeat = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
    const inputs = [
      repeat('<|START_ACTION|>[{"tool_name": "get_weather", "parameters": {"a": "'),
      repeat('<|START_THINKING|><|START_ACTION|>'),
      repeat('<|START_THINKING|>x'),
      repeat(`${action(WEATHER)} `),
      `<|START_ACTION|>${repeat('[')}`,
      repeat('```<|START_ACTION|>[]'),
    ];
    for (const input of inputs) {
      const started = performance.now();
      checkResult(read(input));
      commandRContent(input);
      commandRFormat.visibleText?.(input);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
