import { describe, expect, it } from 'vitest';
import { parseChatRequest } from './chat-request.js';
import { ApiError } from './openai-error.js';

function paramOf(body: unknown): string | undefined {
  try {
    parseChatRequest(body);
  } catch (error) {
    if (error instanceof ApiError) return error.param;
    throw error;
  }
  return undefined;
}

describe('parseChatRequest', () => {
  it('maps messages to history plus the last user input, and reads the options', () => {
    const request = parseChatRequest({
      model: 'm',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'What is 2+2?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '4' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And ' },
            { type: 'text', text: 'x2?' },
          ],
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.5,
      max_completion_tokens: 64,
      top_p: 0.9,
    });
    expect(request).toEqual({
      model: 'm',
      history: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 2+2?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{}' }],
        },
        { role: 'tool', content: '4', toolCallId: 'call_1' },
      ],
      input: 'And x2?',
      stream: true,
      includeUsage: true,
      temperature: 0.5,
      maxTokens: 64,
    });
  });

  it('defaults to no streaming and no usage chunk', () => {
    const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(request).toMatchObject({ stream: false, includeUsage: false, history: [] });
    expect(request).not.toHaveProperty('temperature');
    expect(request).not.toHaveProperty('maxTokens');
  });

  it('names the wrong field in a 400', () => {
    const user = { role: 'user', content: 'x' };
    expect(paramOf('text')).toBe('body');
    expect(paramOf([user])).toBe('body');
    expect(paramOf({ model: '', messages: [user] })).toBe('model');
    expect(paramOf({ model: 'm', messages: [] })).toBe('messages');
    expect(paramOf({ model: 'm', messages: [user, 'hi'] })).toBe('messages[1]');
    expect(paramOf({ model: 'm', messages: [{ role: 'tool', content: 'x' }, user] })).toBe(
      'messages[0].tool_call_id',
    );
    expect(
      paramOf({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }),
    ).toBe('messages[0].content[0]');
    expect(paramOf({ model: 'm', messages: [user], max_tokens: 1.5 })).toBe('max_tokens');
    expect(paramOf({ model: 'm', messages: [user], stream: 'yes' })).toBe('stream');
    expect(paramOf({ model: 'm', messages: [user], stream_options: { include_usage: 1 } })).toBe(
      'stream_options.include_usage',
    );
    expect(paramOf({ model: 'm', messages: [user], n: 2 })).toBe('n');
    expect(paramOf({ model: 'm', messages: [user], functions: [{ name: 'f' }] })).toBe('functions');
  });

  it('accepts an empty tools list (some clients always send one)', () => {
    const request = parseChatRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
    });
    expect(request.input).toBe('x');
  });
});
