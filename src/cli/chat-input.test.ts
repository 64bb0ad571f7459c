import { describe, expect, it } from 'vitest';
import { CONTINUATION_PROMPT, type LineEvent, PROMPT, readChatInput } from './chat-input.js';

/** A line source that replays `events` and records the prompts it was shown. */
function scripted(events: readonly LineEvent[]) {
  const prompts: string[] = [];
  const queue = [...events];
  return {
    prompts,
    readLine: async (prompt: string): Promise<LineEvent> => {
      prompts.push(prompt);
      return queue.shift() ?? { type: 'end' };
    },
  };
}

const line = (text: string): LineEvent => ({ type: 'line', text });

describe('readChatInput', () => {
  it('reads one line as one input', async () => {
    const source = scripted([line('hello')]);
    expect(await readChatInput(source)).toEqual({ type: 'text', text: 'hello' });
    expect(source.prompts).toEqual([PROMPT]);
  });

  it('continues a line ending in a backslash', async () => {
    const source = scripted([line('first \\'), line('second\\'), line('third')]);
    expect(await readChatInput(source)).toEqual({ type: 'text', text: 'first \nsecond\nthird' });
    expect(source.prompts).toEqual([PROMPT, CONTINUATION_PROMPT, CONTINUATION_PROMPT]);
  });

  it('reads a """ block as typed, to the closing fence', async () => {
    const source = scripted([line('"""'), line('  indented \\'), line(''), line('end"""')]);
    expect(await readChatInput(source)).toEqual({ type: 'text', text: '  indented \\\n\nend' });
    expect(await readChatInput(scripted([line('"""one line"""')]))).toEqual({
      type: 'text',
      text: 'one line',
    });
    expect(await readChatInput(scripted([line('"""start'), line('"""')]))).toEqual({
      type: 'text',
      text: 'start',
    });
  });

  it('drops a pending input on Ctrl-C and keeps what was read at the end of input', async () => {
    expect(
      await readChatInput(scripted([line('a\\'), { type: 'interrupt', hadText: false }])),
    ).toEqual({
      type: 'interrupt',
      hadText: true,
    });
    expect(await readChatInput(scripted([{ type: 'interrupt', hadText: false }]))).toEqual({
      type: 'interrupt',
      hadText: false,
    });
    expect(await readChatInput(scripted([line('"""'), line('open block')]))).toEqual({
      type: 'text',
      text: 'open block',
    });
    expect(await readChatInput(scripted([]))).toEqual({ type: 'end' });
  });
});
