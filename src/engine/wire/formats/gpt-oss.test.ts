import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFinder } from '../text-scan.js';
import { gptOssFormat, headerRecipient, isAnalysisHeader } from './gpt-oss.js';
import type { OfferedToolSet } from './tool-call-format.js';

const TOOLS: OfferedToolSet = {
  names: new Set(['get_weather', 'lookup_order']),
  parametersOf: () => undefined,
};

const read = (reply: string) => gptOssFormat.read(reply, TOOLS);

/** The first message follows the `<|start|>assistant` of the prompt, so it opens with `<|channel|>`. */
function analysis(text: string): string {
  return `<|channel|>analysis<|message|>${text}<|end|>`;
}

function toolCall(name: string, json: string, close = '<|call|>'): string {
  return `<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${json}${close}`;
}

describe('gptOssFormat: harmony with its tokens', () => {
  it('reads one call after the analysis, which is not content', () => {
    const reply =
      analysis('User wants weather in Tokyo. Call get_weather.') +
      toolCall('get_weather', '{"city":"Tokyo"}');
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Tokyo"}' }],
    });
  });

  it('reads a call whose <|call|> stop token was cut, as servers return it', () => {
    const reply = `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Lima"}`;
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Lima"}' }]);
  });

  it('reads several calls and keeps the commentary preamble as content', () => {
    const reply = [
      analysis('Need both.'),
      '<|start|>assistant<|channel|>commentary<|message|>Let me check both.<|end|>',
      toolCall('get_weather', '{"city": "Seoul"}'),
      toolCall('lookup_order', '{"order_id": 42, "filters": {"status": ["open"]}}'),
    ].join('');
    expect(read(reply)).toEqual({
      content: 'Let me check both.',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Seoul"}' },
        { name: 'lookup_order', arguments: '{"order_id":42,"filters":{"status":["open"]}}' },
      ],
    });
  });

  it('keeps the final channel as content next to a call', () => {
    const reply = `${toolCall('get_weather', '{"city": "Rome"}')}<|start|>assistant<|channel|>final<|message|>Fetching Rome's weather now.<|return|>`;
    expect(read(reply)).toEqual({
      content: "Fetching Rome's weather now.",
      calls: [{ name: 'get_weather', arguments: '{"city":"Rome"}' }],
    });
  });

  it('reads the recipient written before the channel, and unicode / multi-line values', () => {
    const reply = `<|start|>assistant to=functions.lookup_order<|channel|>commentary json<|message|>{"note": "ça va ✓\\nzweite Zeile", "order_id": 7}<|call|>`;
    expect(JSON.parse(read(reply)?.calls[0]?.arguments ?? '')).toEqual({
      note: 'ça va ✓\nzweite Zeile',
      order_id: 7,
    });
  });

  it('reads the form servers leave with some tokens stripped', () => {
    const reply = 'commentary to=functions.get_weather json<|message|>{"city": "Cairo"}';
    expect(read(reply)?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Cairo"}' }]);
  });

  it('keeps the good call when another names an unknown tool (which stays visible)', () => {
    const reply = toolCall('delete_account', '{}') + toolCall('get_weather', '{"city": "Baku"}');
    const result = read(reply);
    expect(result?.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Baku"}' }]);
    expect(result?.content).toContain('to=functions.delete_account');
  });

  it('returns nothing for a reply without a call, or with only an unknown tool or truncated JSON', () => {
    expect(
      read(`${analysis('Just chat.')}<|start|>assistant<|channel|>final<|message|>Hello!`),
    ).toBeUndefined();
    expect(read(toolCall('delete_account', '{}'))).toBeUndefined();
    expect(read(toolCall('get_weather', '{"city": "Ba', ''))).toBeUndefined();
  });

  it('ends a body at its first token, not at a `<|` that is none', () => {
    const body = '{"note": "a <|tag and <|constrain|> in a value", "city": "Oslo"}';
    expect(read(toolCall('get_weather', body))?.calls).toEqual([
      {
        name: 'get_weather',
        arguments: '{"note":"a <|tag and <|constrain|> in a value","city":"Oslo"}',
      },
    ]);
    // An end token inside a value ends the body there: the JSON is cut and the call stays visible.
    expect(read(toolCall('get_weather', '{"note": "<|end|>"}'))).toBeUndefined();
    const reply = `<|x <|channel|>final<|message|>Sunny.<|x<|end|>${toolCall('get_weather', '{"city": "Oslo"}')}`;
    expect(read(reply)?.content).toBe('<|x\nSunny.<|x');
  });

  it('does not read the format explained in a code fence', () => {
    const reply = `Harmony calls look like:\n\`\`\`\n${toolCall('get_weather', '{"city": "X"}')}\n\`\`\``;
    expect(read(reply)).toBeUndefined();
  });
});

describe('gptOssFormat: all special tokens stripped', () => {
  it('reads the call and leaves the analysis out', () => {
    const reply =
      'analysisThe user asks for weather in Paris. Use get_weather.assistantcommentary to=functions.get_weather json{"city":"Paris"}';
    expect(read(reply)).toEqual({
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
  });

  it('reads several calls and keeps the final text', () => {
    const reply =
      'analysisTwo lookups.assistantcommentary to=functions.get_weather json{"city": "Oslo"}assistantcommentary to=functions.lookup_order json{"order_id": 1}assistantfinalBoth requested.';
    expect(read(reply)).toEqual({
      content: 'Both requested.',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { name: 'lookup_order', arguments: '{"order_id":1}' },
      ],
    });
  });

  it('does not read prose that merely mentions a recipient', () => {
    expect(read('Send it to=functions.get_weather {"city": "X"} maybe.')).toBeUndefined();
    expect(
      read('The JSON {"name": "get_weather", "arguments": {}} is an example.'),
    ).toBeUndefined();
  });
});

describe('gptOssFormat.visibleText: a reply with no call', () => {
  const visible = (reply: string) => gptOssFormat.visibleText?.(reply);

  it('shows the final channel and gives the analysis as reasoning, never as content', () => {
    const reply = `${analysis('The user greets.')}<|start|>assistant<|channel|>final<|message|>Hello!<|return|>`;
    expect(visible(reply)).toEqual({ content: 'Hello!', reasoning: 'The user greets.' });
    expect(visible('<|channel|>final<|message|>Only the answer.<|end|>')).toEqual({
      content: 'Only the answer.',
    });
  });

  it('reads what servers leave with the tokens stripped', () => {
    expect(visible('analysisThe user greets.assistantfinalHello!')).toEqual({
      content: 'Hello!',
      reasoning: 'The user greets.',
    });
    expect(visible('assistantfinal Hi.')).toEqual({ content: 'Hi.' });
  });

  it('gives only what came so far of a reply cut off, the analysis never as content', () => {
    expect(visible(analysis('Still thinking'))).toEqual({
      content: '',
      reasoning: 'Still thinking',
    });
    expect(visible(`${analysis('Think.')}<|start|>assistant<|channel|>fin`)).toEqual({
      content: '',
      reasoning: 'Think.',
    });
  });

  it('leaves prose and a bare <|message|> alone, and a call that did not read as written', () => {
    expect(visible('The analysis of the final answer.')).toBeUndefined();
    expect(visible('analysis shows this, with no final channel')).toBeUndefined();
    expect(visible(`${analysis('Hm.')}${toolCall('unknown_tool', '{}')}`)).toEqual({
      content:
        '<|start|>assistant<|channel|>commentary to=functions.unknown_tool <|constrain|>json<|message|>{}',
      reasoning: 'Hm.',
    });
    expect(visible('text <|message|> more')).toBeUndefined();
    expect(
      visible('analysisX assistantcommentary to=functions.f json{}assistantfinalY'),
    ).toBeUndefined();
  });
});

describe('gpt-oss headers', () => {
  it('finds the recipient and the first channel word as the regular expressions they replace', () => {
    const recipient = /to=([^\s<{]{1,256})/;
    const channel = /(analysis|commentary|final)/;
    const piece = fc.constantFrom(
      'to=',
      'to',
      '=',
      'functions.get_weather',
      'x'.repeat(130),
      ' ',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '\u200b',
      '<',
      '{',
      '<|constrain|>',
      'json',
      'analysis',
      'commentary',
      'final',
      'analys',
      'fin',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const header = pieces.join('');
        expect(headerRecipient(header)).toBe(recipient.exec(header)?.[1]);
        // Read inside a reply (the header between other text), each `to=` from a finder as the reader does.
        const reply = `to=x ${header}to=y`;
        const end = 5 + header.length;
        expect(headerRecipient(reply, 5, end)).toBe(recipient.exec(header)?.[1]);
        expect(headerRecipient(reply, 5, end, createFinder(reply, 'to='))).toBe(
          recipient.exec(header)?.[1],
        );
        expect(isAnalysisHeader(header)).toBe(channel.exec(header)?.[0] === 'analysis');
      }),
      { numRuns: 3000, seed: 16 },
    );
  });
});

describe('gptOssFormat: robustness', () => {
  it('never throws on random text or markers spliced into valid replies', () => {
    const valid = analysis('Think.') + toolCall('get_weather', '{"city": "Oslo"}');
    const pieces = [
      '<|start|>',
      '<|channel|>',
      '<|message|>',
      '<|constrain|>',
      '<|end|>',
      '<|call|>',
      '<|return|>',
      'to=functions.get_weather',
      'analysis',
      'final',
      'commentary',
      '{',
      '}',
      '"',
      '```',
    ];
    const splice = fc
      .tuple(fc.nat(), fc.array(fc.constantFrom(...pieces), { maxLength: 6 }))
      .map(([at, inserted]) => {
        const index = at % (valid.length + 1);
        return valid.slice(0, index) + inserted.join('') + valid.slice(index);
      });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), splice), (reply) => {
        const result = read(reply);
        expect(typeof (gptOssFormat.visibleText?.(reply)?.content ?? '')).toBe('string');
        if (result !== undefined) {
          for (const found of result.calls) expect(TOOLS.names.has(found.name)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads 200 KB of adversarial input in bounded time', () => {
    const inputs = [
      `${'<|channel|>commentary to=functions.get_weather<|message|>{"a'.repeat(3_500)}`,
      `${'commentary to=functions.get_weather json{"a'.repeat(4_500)}`,
      `to=functions.${'x'.repeat(200_000)}`,
      '<|message|>'.repeat(18_000),
      `${'to='.repeat(60_000)}<|message|>`,
      `${'analysis'.repeat(25_000)}<|message|>{}`,
      `${'<|start|>'.repeat(20_000)}<|message|>`,
      `${toolCall('get_weather', `{"a": "${'<|x'.repeat(60_000)}`)}`,
      `${'<|x'.repeat(60_000)}<|channel|>final<|message|>${'<|x'.repeat(60_000)}<|end|>`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      read(input);
      gptOssFormat.visibleText?.(input);
      // 200 ms is the goal; ×10 keeps a loaded two-core machine from failing the build.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
