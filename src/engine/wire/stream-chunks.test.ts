import { describe, expect, it } from 'vitest';
import { ZERO_USAGE } from '../../core/index.js';
import { endChunk, joinReasoning, ReasoningChunker, textChunks } from './stream-chunks.js';

describe('stream chunks', () => {
  it('textChunks gives reasoning then text, leaving out empty ones', () => {
    expect(textChunks('why', 'what')).toEqual([
      { type: 'reasoning_delta', text: 'why' },
      { type: 'text_delta', text: 'what' },
    ]);
    expect(textChunks('', 'what')).toEqual([{ type: 'text_delta', text: 'what' }]);
    expect(textChunks('', '')).toEqual([]);
  });

  it('joinReasoning puts a blank line between the parts that are not empty', () => {
    expect(joinReasoning('Field.', '', 'Block.')).toBe('Field.\n\nBlock.');
    expect(joinReasoning('', '')).toBe('');
  });

  it('endChunk takes only how the answer ended, with ttftSeconds 0', () => {
    const answer = { finishReason: 'stop', usage: ZERO_USAGE, model: 'm', content: 'left out' };
    expect(endChunk(answer)).toEqual({
      type: 'end',
      finishReason: 'stop',
      usage: ZERO_USAGE,
      model: 'm',
      ttftSeconds: 0,
    });
  });

  it('ReasoningChunker moves <think> blocks cut across deltas into reasoning', () => {
    const chunker = new ReasoningChunker();
    const chunks = [
      ...chunker.push('Field. ', '<thi'),
      ...chunker.push('', 'nk>Add.</th'),
      ...chunker.push('', 'ink>\n\nFour'),
      ...chunker.push('', ''),
      ...chunker.flush(),
    ];
    const textOf = (type: string) =>
      chunks.map((chunk) => (chunk.type === type && 'text' in chunk ? chunk.text : '')).join('');
    expect(textOf('reasoning_delta')).toBe('Field. Add.');
    expect(textOf('text_delta')).toBe('Four');
  });
});
