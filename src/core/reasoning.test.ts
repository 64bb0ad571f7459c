import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ReasoningParts, ReasoningSplitter, splitReasoning } from './reasoning.js';

/** Feeds `deltas` through a splitter and joins what comes out. */
function streamed(deltas: readonly string[], startsInReasoning = false): ReasoningParts {
  const splitter = new ReasoningSplitter({ startsInReasoning });
  let content = '';
  let reasoning = '';
  for (const part of [...deltas.map((delta) => splitter.push(delta)), splitter.flush()]) {
    content += part.content;
    reasoning += part.reasoning;
  }
  return { content, reasoning };
}

/** Cuts `text` at the given (sorted, deduplicated) positions. */
function cut(text: string, positions: readonly number[]): string[] {
  const points = [...new Set(positions.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces;
}

describe('splitReasoning', () => {
  it('moves a Qwen3 / DeepSeek-R1 think block out of the answer', () => {
    const text = '<think>\nOkay, the user wants 2+2. That is 4.\n</think>\n\nThe answer is **4**.';
    expect(splitReasoning(text)).toEqual({
      content: 'The answer is **4**.',
      reasoning: 'Okay, the user wants 2+2. That is 4.',
    });
  });

  it('leaves text without tags alone, apart from surrounding whitespace', () => {
    expect(splitReasoning('  Just an answer.\n')).toEqual({
      content: 'Just an answer.',
      reasoning: '',
    });
    expect(splitReasoning('')).toEqual({ content: '', reasoning: '' });
  });

  it('accepts <thinking> and any case, and joins several blocks with a blank line', () => {
    const text = '<THINKING>first</Thinking>Part one. <think>second</THINK> Part two.';
    expect(splitReasoning(text)).toEqual({
      content: 'Part one. Part two.',
      reasoning: 'first\n\nsecond',
    });
  });

  it('collapses the whitespace a block leaves in the middle of the content', () => {
    expect(splitReasoning('Line one.\n<think>x</think>\nLine two.').content).toBe(
      'Line one.\nLine two.',
    );
    expect(splitReasoning('glued<think>x</think>together').content).toBe('gluedtogether');
    expect(splitReasoning('left<think>x</think> right').content).toBe('left right');
  });

  it('treats an unclosed block as reasoning to the end (a cut-off model)', () => {
    expect(splitReasoning('<think>\nLet me work this out step by')).toEqual({
      content: '',
      reasoning: 'Let me work this out step by',
    });
    expect(splitReasoning('Sure. <think>hmm')).toEqual({ content: 'Sure.', reasoning: 'hmm' });
  });

  it('reads text before a lone closing tag as reasoning (template opened the block)', () => {
    const text =
      'Okay, so the user asks for the capital of France.\nThat is Paris.\n</think>\n\nParis.';
    expect(splitReasoning(text)).toEqual({
      content: 'Paris.',
      reasoning: 'Okay, so the user asks for the capital of France.\nThat is Paris.',
    });
  });

  it('handles the empty block Qwen3 writes with thinking disabled', () => {
    expect(splitReasoning('<think>\n\n</think>\n\nHello! How can I help?')).toEqual({
      content: 'Hello! How can I help?',
      reasoning: '',
    });
  });

  it('keeps lookalike tags and lone brackets as text, and drops stray tags', () => {
    expect(splitReasoning('a < b and <thinker> and <th').content).toBe(
      'a < b and <thinker> and <th',
    );
    expect(splitReasoning('<think>a<think>b</think>c</think>d')).toEqual({
      content: 'cd',
      reasoning: 'ab',
    });
  });

  it('answers a megabyte of brackets quickly', () => {
    const text = `${'<th<'.repeat(250_000)}<think>${'<'.repeat(100_000)}`;
    const parts = splitReasoning(text);
    expect(parts.content.length).toBe(1_000_000);
    expect(parts.reasoning.length).toBe(100_000);
  });
});

describe('ReasoningSplitter', () => {
  it('splits a stream whose tags are cut across deltas', () => {
    const splitter = new ReasoningSplitter();
    expect(splitter.push('<th')).toEqual({ content: '', reasoning: '' });
    expect(splitter.push('ink>Let me ')).toEqual({ content: '', reasoning: 'Let me ' });
    expect(splitter.push('see.</thi')).toEqual({ content: '', reasoning: 'see.' });
    expect(splitter.push('nk>\n\nThe answer')).toEqual({ content: 'The answer', reasoning: '' });
    expect(splitter.push(' is 4.')).toEqual({ content: ' is 4.', reasoning: '' });
    expect(splitter.flush()).toEqual({ content: '', reasoning: '' });
  });

  it('holds back only what may still be a tag', () => {
    const splitter = new ReasoningSplitter();
    expect(splitter.push('x < y, so <b>')).toEqual({ content: 'x < y, so <b>', reasoning: '' });
    expect(splitter.push('see <')).toEqual({ content: 'see ', reasoning: '' });
    expect(splitter.push('/thinking')).toEqual({ content: '', reasoning: '' });
    expect(splitter.push('!')).toEqual({ content: '</thinking!', reasoning: '' });
    expect(splitter.push('end <thin')).toEqual({ content: 'end ', reasoning: '' });
    expect(splitter.flush()).toEqual({ content: '<thin', reasoning: '' });
  });

  it('starts inside a block when the template opened it', () => {
    expect(streamed(['Okay, 2+2', ' is 4.\n</th', 'ink>\n\n4'], true)).toEqual({
      content: '4',
      reasoning: 'Okay, 2+2 is 4.\n',
    });
  });

  it('drops a closing tag it cannot place when not told the template opened the block', () => {
    expect(streamed(['Okay.', '</think>', 'Answer.'])).toEqual({
      content: 'Okay.Answer.',
      reasoning: '',
    });
  });

  it('gives the same result however the text is cut into deltas, and agrees with splitReasoning', () => {
    const piece = fc.constantFrom(
      '<think>',
      '</think>',
      '<THINKING>',
      '</thinking>',
      '<th',
      '<',
      ' ',
      '\n',
      'a',
      'b c',
    );
    const text = fc.array(piece, { maxLength: 25 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), (input, positions) => {
        const whole = streamed([input]);
        expect(streamed(cut(input, positions))).toEqual(whole);
        const split = splitReasoning(input);
        if (!/<\/think(?:ing)?>/i.test(input.split(/<think(?:ing)?>/i)[0] ?? '')) {
          expect(whole.content.trimEnd()).toBe(split.content);
          expect(whole.reasoning.trimEnd()).toBe(split.reasoning);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('loses no text outside tags and never throws on random input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (input) => {
        const parts = streamed([input]);
        const withoutTags = input.replace(/<\/?think(?:ing)?>/gi, '').replace(/\s/g, '');
        expect((parts.content + parts.reasoning).replace(/\s/g, '')).toBe(withoutTags);
      }),
      { numRuns: 1000 },
    );
  });
});
